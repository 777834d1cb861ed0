/// Objects of one model, fetched lazily from a snapshot: each object is read when the
/// subscript (or iteration) reaches it.
public struct Results: RandomAccessCollection {
    /// The snapshot the objects are read from; they are readable while it is live.
    public let snapshot: Snapshot
    let model: ModelLayout
    private let keyStorage: KeyStorage

    /// The object keys in the results' order: as given, or gathered out of order and sorted
    /// into key order on first use. A range lookup finds them in index order, and a caller that
    /// only counts them then never pays for the sort (a fifth of a range query of 45 matches at
    /// 1M objects).
    private enum KeyStorage {
        case ordered([UInt64])
        case sortedOnUse(UnorderedKeys)
    }

    /// Keys waiting to be sorted; a class so that the first reader's sort serves every later
    /// one. Results belong to their snapshot's thread, as the snapshot does.
    private final class UnorderedKeys {
        // Read on every subscript: unchecked exclusivity, as nothing reenters while they change.
        @exclusivity(unchecked) private var keys: [UInt64]
        @exclusivity(unchecked) private var isSorted = false
        init(_ keys: [UInt64]) { self.keys = keys }
        var count: Int { keys.count }
        var sorted: [UInt64] {
            if !isSorted {
                keys.sort()
                isSorted = true
            }
            return keys
        }
    }

    /// Results holding `keys`, in the order they are given (key order, or a query's sort).
    init(snapshot: Snapshot, model: ModelLayout, keys: [UInt64]) {
        self.snapshot = snapshot
        self.model = model
        keyStorage = .ordered(keys)
    }

    /// Results holding `keys` in any order (each once); they are sorted when first read.
    init(snapshot: Snapshot, model: ModelLayout, unorderedKeys keys: [UInt64]) {
        self.snapshot = snapshot
        self.model = model
        keyStorage = keys.count < 2 ? .ordered(keys) : .sortedOnUse(UnorderedKeys(keys))
    }

    /// The object keys in the results' order.
    var keys: [UInt64] {
        switch keyStorage {
        case .ordered(let keys): keys
        case .sortedOnUse(let pending): pending.sorted
        }
    }

    /// The name of the objects' model.
    public var modelName: String { model.name }
    public var startIndex: Int { 0 }
    public var endIndex: Int {
        switch keyStorage {
        case .ordered(let keys): keys.count
        case .sortedOnUse(let pending): pending.count
        }
    }

    /// The object at `index`.
    ///
    /// A subscript cannot throw: an object that cannot be read (the snapshot has ended, the
    /// transaction that fetched the results has deleted it since, the file is damaged) comes
    /// back unreadable, and its reads throw the reason (``StoreError/invalidated`` for an
    /// ended snapshot).
    public subscript(index: Int) -> DynamicObject {
        let key = keys[index]
        do {
            try snapshot.checkLive()
            guard let object = try snapshot.object(model, key: key) else {
                throw StoreError.objectDeleted(model: model.name)
            }
            return object
        } catch {
            return DynamicObject(snapshot: snapshot, model: model, key: key, unreadable: error)
        }
    }

    /// References to the objects, in order.
    public var references: [ObjectReference] { keys.map { ObjectReference(model: model.name, key: $0) } }
}
