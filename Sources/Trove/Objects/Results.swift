/// Objects of one model, fetched lazily from a snapshot.
public struct Results: RandomAccessCollection {
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

    public var modelName: String { model.name }
    public var startIndex: Int { 0 }
    public var endIndex: Int {
        switch keyStorage {
        case .ordered(let keys): keys.count
        case .sortedOnUse(let pending): pending.count
        }
    }

    /// The object at `index`. Traps if it vanished, which cannot happen within one snapshot.
    public subscript(index: Int) -> DynamicObject {
        guard let o = try? snapshot.object(model, key: keys[index]) else {
            fatalError("object \(model.name)#\(keys[index]) is not readable: its snapshot has ended")
        }
        return o
    }

    /// References to the objects, in order.
    public var references: [ObjectReference] { keys.map { ObjectReference(model: model.name, key: $0) } }
}
