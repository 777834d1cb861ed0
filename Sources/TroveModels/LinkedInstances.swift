import Trove

/// The linked class instances one write of a model value nests: those on the path from the
/// value written, a cycle when one comes back, and what each instance met is written as, so
/// that an instance linked from several places (a diamond, a ladder of shared instances) is
/// written once, whatever the number of paths to it.
///
/// In a transaction's write (``Transaction/writingInstances(of:_:)``) an instance with a
/// primary key is written by an upsert of its own, after those of the instances it links to
/// and before the value that links to it, and every link to it is its primary key: a nested
/// object written once would still be walked by the transaction once per path to it. Built
/// outside a write, an instance is its nested object, built once.
///
/// Held in a task local for the duration of one synchronous write, so never shared between
/// threads.
final class NestedClassWrites: @unchecked Sendable {
    @TaskLocal static var current: NestedClassWrites?

    /// How deep links may nest in one write: as deep as a write stores nested objects and
    /// a read follows links.
    static var maximumDepth: Int { ObjectDecoder.maximumDepth }

    /// The transaction whose write this is, if an instance with a primary key is written by
    /// an upsert of its own (``pending``).
    private let transaction: Transaction?
    private var separately: Bool { transaction != nil }
    private var path: Set<ObjectIdentifier> = []
    /// The instances on the path in order, each with what names its link to another, for
    /// the error that shows a cycle.
    private var steps: [(id: ObjectIdentifier, link: (ObjectIdentifier) -> String)] = []
    private var written: [ObjectIdentifier: Value] = [:]
    /// The upserts of the instances met, each after those of the instances it links to.
    private var pending: [(ValueTransaction) throws -> Void] = []
    /// How many upserts are waiting for the write to end.
    var pendingWrites: Int { pending.count }

    init(writingIn transaction: Transaction?) { self.transaction = transaction }

    func value<M: PersistentModel & AnyObject>(of instance: M) throws -> Value {
        let id = ObjectIdentifier(instance)
        if let value = written[id] { return value }
        guard path.insert(id).inserted else {
            throw StoreError.invalidArgument(
                "a cycle of linked instances (\(cycle(backTo: id))) cannot be written as nested objects")
        }
        steps.append((id, { M.linkName(from: instance, to: $0) }))
        defer { path.remove(id); steps.removeLast() }
        guard path.count <= Self.maximumDepth else {
            throw StoreError.invalidArgument("links from \(M.modelName) nested more than \(Self.maximumDepth) deep cannot be written as nested objects: keep a longer chain as primary keys")
        }
        let properties = try M._writtenProperties(of: instance)
        let value: Value
        // A null key (an optional one) is written nested, as it is given, linked by the nested write.
        if separately, let index = try? M.primaryKeyIndex(), let key = properties[M.modelProperties[index].name], !key.isNull {
            // An instance written so already in this transaction (each player's one team) is
            // not written again, while no upsert before it in this write may change its object.
            if !pending.isEmpty || transaction.map({ ValueTransaction($0).wroteNested(
                M.modelName, primaryKey: key, properties: properties, writtenBy: ObjectIdentifier(M.self), writesWhole: M.writesWholeObjects(in:))
            }) != true {
                let depth = path.count - 1
                pending.append {
                    _ = try $0.addNested(M.modelName, properties: properties, writtenBy: ObjectIdentifier(M.self),
                                         writesWhole: M.writesWholeObjects(in:), depth: depth)
                }
            }
            value = key
        } else {
            // Without a primary key each nested object is an object of its own.
            value = .object(properties)
        }
        written[id] = value
        return value
    }

    /// The links of the cycle that comes back to `id`, in the order followed:
    /// `Author.mentor, Author.mentor` for `a.mentor = b; b.mentor = a`.
    private func cycle(backTo id: ObjectIdentifier) -> String {
        let start = steps.lastIndex { $0.id == id } ?? 0
        let targets = steps[start...].dropFirst().map(\.id) + [id]
        return zip(steps[start...], targets).map { $0.link($1) }.joined(separator: ", ")
    }

    /// Writes the instances met, in the order met.
    func write(in transaction: Transaction) throws {
        let values = ValueTransaction(transaction)
        for write in pending { try write(values) }
    }
}

extension PersistentModel where Self: AnyObject {
    /// `Model.property` of the link or list of links from `instance` that holds `target`, or
    /// the model's links alone when the way to it is through a struct value.
    static func linkName(from instance: Self, to target: ObjectIdentifier) -> String {
        for p in modelProperties where p.linkedModel != nil && p.schema.isStored {
            let value = instance[keyPath: p.keyPath]
            let linked = (value as? [any PersistentModel]) ?? (value as? any PersistentModel).map { [$0] } ?? []
            if linked.contains(where: { ObjectIdentifier($0 as AnyObject) == target }) { return "\(modelName).\(p.name)" }
        }
        return "a link of \(modelName)"
    }
}

extension Transaction {
    /// What `build` makes for one write of `T` (its properties, or a partial update's), with
    /// the class instances it links to written first, each once (see ``NestedClassWrites``).
    /// A type whose writes nest no class instance builds as it is, with nothing recorded.
    @inlinable
    func writingInstances<T: PersistentModel, R>(of type: T.Type, _ build: () throws -> R) throws -> R {
        if T._nestsNoClassInstance { return try build() }
        return try writingInstances(build)
    }

    @usableFromInline
    func writingInstances<R>(_ build: () throws -> R) throws -> R {
        // Not met: a write is not made while another's values are built.
        if NestedClassWrites.current != nil { return try build() }
        let writes = NestedClassWrites(writingIn: self)
        let built = try NestedClassWrites.$current.withValue(writes, operation: build)
        try writes.write(in: self)
        return built
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
