import Trove

/// The linked class instances one write of a model value nests: those on the path from the
/// value written, a cycle when one comes back, and the nested value of each already written,
/// so that an instance linked from several places is encoded once.
///
/// Held in a task local for the duration of one synchronous write, so never shared between
/// threads.
final class NestedClassWrites: @unchecked Sendable {
    @TaskLocal static var current: NestedClassWrites?

    /// How deep links may nest in one write: as deep as a write stores nested objects and
    /// a read follows links.
    static var maximumDepth: Int { ObjectDecoder.maximumDepth }

    private var path: Set<ObjectIdentifier> = []
    private var written: [ObjectIdentifier: Value] = [:]

    func value<M: PersistentModel & AnyObject>(of instance: M) throws -> Value {
        let id = ObjectIdentifier(instance)
        if let value = written[id] { return value }
        guard path.insert(id).inserted else {
            throw StoreError.invalidArgument(
                "a cycle of linked instances through \(M.modelName) (a.friend = b, b.friend = a) cannot be written as nested objects")
        }
        defer { path.remove(id) }
        guard path.count <= Self.maximumDepth else {
            throw StoreError.invalidArgument("links from \(M.modelName) nested more than \(Self.maximumDepth) deep cannot be written as nested objects: keep a longer chain as primary keys")
        }
        let value = Value.object(try M._writtenProperties(of: instance))
        written[id] = value
        return value
    }
}

/// The pairs of class instances a comparison of stored values is comparing, so that a
/// comparison of cyclic graphs that comes back to a pair takes it as equal there, and ends.
final class ComparedInstances: @unchecked Sendable {
    @TaskLocal static var current: ComparedInstances?

    private struct Pair: Hashable {
        let a: ObjectIdentifier
        let b: ObjectIdentifier
    }

    private var comparing: Set<Pair> = []

    func equal(_ a: AnyObject, _ b: AnyObject, _ compare: () -> Bool) -> Bool {
        let pair = Pair(a: ObjectIdentifier(a), b: ObjectIdentifier(b))
        guard comparing.insert(pair).inserted else { return true }
        defer { comparing.remove(pair) }
        return compare()
    }
}
