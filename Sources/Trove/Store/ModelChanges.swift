/// What one commit changed in one model: object keys inserted, deleted, and modified with the
/// ids of the properties that changed. Live results and observers are driven by this.
public struct ModelChanges: Sendable {
    public var inserted: Set<UInt64> = []
    public var deleted: Set<UInt64> = []
    /// Modified objects and the names of the properties whose values changed.
    public var modified: [UInt64: Set<String>] = [:]

    public var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && modified.isEmpty }
}

/// One model's changes as a transaction records them: cheap to keep per write, turned into
/// ``ModelChanges`` only when someone reads them. Keys are allocated in ascending order, so
/// the inserted ones are a few ranges rather than a set of every key (128 MiB at 10M).
struct ModelChangeLog {
    /// Ascending, disjoint ranges of keys inserted by this transaction.
    private var insertedRanges: [Range<UInt64>] = []
    /// Keys in `insertedRanges` deleted again.
    private var insertedThenDeleted: Set<UInt64> = []
    private var deleted: Set<UInt64> = []
    private var modified: [UInt64: PropertyMask] = [:]

    func wasInserted(_ key: UInt64) -> Bool {
        guard let last = insertedRanges.last, key < last.upperBound else { return false }
        if key < last.lowerBound {
            var lo = 0, hi = insertedRanges.count - 1
            while lo < hi {
                let mid = (lo + hi) / 2
                if insertedRanges[mid].upperBound <= key { lo = mid + 1 } else { hi = mid }
            }
            guard insertedRanges[lo].contains(key) else { return false }
        }
        return !insertedThenDeleted.contains(key)
    }

    mutating func recordInsert(_ key: UInt64) {
        if let last = insertedRanges.last, last.upperBound == key {
            insertedRanges[insertedRanges.count - 1] = last.lowerBound..<(key + 1)
        } else {
            insertedRanges.append(key..<(key + 1))
        }
    }

    mutating func recordDelete(_ key: UInt64) {
        if wasInserted(key) { insertedThenDeleted.insert(key) } else { deleted.insert(key) }
        modified[key] = nil
    }

    /// Records changed properties of an object, unless this transaction inserted it.
    mutating func recordModified(_ key: UInt64, _ mask: PropertyMask) {
        if wasInserted(key) { return }
        modified[key, default: PropertyMask()].formUnion(mask)
    }

    func changes(of m: ModelLayout) -> ModelChanges {
        var out = ModelChanges()
        var inserted = Set<UInt64>(minimumCapacity: insertedRanges.reduce(0) { $0 + $1.count })
        for r in insertedRanges { for k in r where !insertedThenDeleted.contains(k) { inserted.insert(k) } }
        out.inserted = inserted
        out.deleted = deleted
        for (key, mask) in modified { out.modified[key] = mask.names(in: m) }
        return out
    }
}
