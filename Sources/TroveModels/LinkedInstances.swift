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
/// threads. A transaction's writes reuse one (``reused(in:)``), emptied at each write's
/// start, so that a loop of writes allocates none of its own.
final class NestedClassWrites: @unchecked Sendable {
    @TaskLocal static var current: NestedClassWrites?

    /// How deep links may nest in one write: as deep as a write stores nested objects and
    /// a read follows links.
    static var maximumDepth: Int { ObjectDecoder.maximumDepth }

    /// The transaction whose write this is, if an instance with a primary key is written by
    /// an upsert of its own (``pending``). Unowned: the transaction keeps the one its writes reuse.
    private unowned let transaction: Transaction?
    /// The instances on the path from the value written, in order: a cycle is one met again
    /// there, and each one's type names its link to the next in the error that shows it. A
    /// path is a few links long, so it is searched rather than hashed.
    private var path: [(id: ObjectIdentifier, instance: AnyObject, type: any PersistentModel.Type)] = []
    private var written: [ObjectIdentifier: Value] = [:]
    /// The upserts of the instances met, each after those of the instances it links to.
    private var pending: [(ValueTransaction) throws -> Void] = []
    /// How many upserts are waiting for the write to end.
    var pendingWrites: Int { pending.count }
    /// The class whose primary key's position in its table was found last, and that position:
    /// a loop of writes meets the same linked class each time.
    private var lastKeyIndex: (type: ObjectIdentifier, index: Int?)?

    init(writingIn transaction: Transaction?) { self.transaction = transaction }

    /// The one that `transaction`'s writes share, emptied of what its last write met.
    static func reused(in transaction: Transaction) -> NestedClassWrites {
        if let writes = transaction.typedWriteState as? NestedClassWrites {
            // Each asked first: most writes leave `pending` empty (their instances written
            // already). A refused write leaves what it met before the refusal in both.
            // `path` is always empty here: `value(of:)` pops it on a throw too.
            if !writes.written.isEmpty { writes.written.removeAll(keepingCapacity: true) }
            if !writes.pending.isEmpty { writes.pending.removeAll(keepingCapacity: true) }
            assert(writes.path.isEmpty, "a write left linked instances on the path")
            return writes
        }
        let writes = NestedClassWrites(writingIn: transaction)
        transaction.typedWriteState = writes
        return writes
    }

    func value<M: PersistentModel & AnyObject>(of instance: M) throws -> Value {
        let id = ObjectIdentifier(instance)
        if let value = written[id] { return value }
        guard !path.contains(where: { $0.id == id }) else {
            throw StoreError.invalidArgument(
                "a cycle of linked instances (\(cycle(backTo: id))) cannot be written as nested objects")
        }
        path.append((id, instance, M.self))
        defer { path.removeLast() }
        guard path.count <= Self.maximumDepth else {
            throw StoreError.invalidArgument("links from \(M.modelName) nested more than \(Self.maximumDepth) deep cannot be written as nested objects: keep a longer chain as primary keys")
        }
        let properties = try M._writtenProperties(of: instance)
        let value: Value
        // A null key (an optional one) is written nested, as it is given, linked by the nested write.
        if let transaction, let index = primaryKeyIndex(of: M.self), let key = properties[M.modelProperties[index].name], !key.isNull {
            // An instance written so already in this transaction (each player's one team) is
            // not written again, while no upsert before it in this write may change its object.
            if !pending.isEmpty || !ValueTransaction(transaction).wroteNested(
                M.modelName, primaryKey: key, properties: properties, writtenBy: ObjectIdentifier(M.self), writesWhole: M.writesWholeObjects(in:)) {
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

    /// The position of `M`'s primary key in its table; nil without one.
    private func primaryKeyIndex<M: PersistentModel>(of type: M.Type) -> Int? {
        if let last = lastKeyIndex, last.type == ObjectIdentifier(M.self) { return last.index }
        let index = try? M.primaryKeyIndex()
        lastKeyIndex = (ObjectIdentifier(M.self), index)
        return index
    }

    /// The links of the cycle that comes back to `id`, in the order followed:
    /// `Author.mentor, Author.mentor` for `a.mentor = b; b.mentor = a`.
    private func cycle(backTo id: ObjectIdentifier) -> String {
        let start = path.lastIndex { $0.id == id } ?? 0
        let targets = path[start...].dropFirst().map(\.id) + [id]
        return zip(path[start...], targets).map { step, target in
            step.type.linkName(from: step.instance, to: target)
        }.joined(separator: ", ")
    }

    /// Writes the instances met, in the order met.
    func write(in transaction: Transaction) throws {
        let values = ValueTransaction(transaction)
        for write in pending { try write(values) }
    }
}

extension PersistentModel {
    /// `Model.property` of the link or list of links from `instance` (of this class) that
    /// holds `target`, or the model's links alone when the way to it is through a struct value.
    static func linkName(from instance: AnyObject, to target: ObjectIdentifier) -> String {
        guard let instance = instance as? Self else { return "a link of \(modelName)" }
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
        let writes = NestedClassWrites.reused(in: self)
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
