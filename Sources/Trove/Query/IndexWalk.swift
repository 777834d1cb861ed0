import TroveStorage

/// One index of a model (a secondary index or the primary-key tree) walked in its key order,
/// forward or backward, over key ranges: each entry's value encoding and object key, and no
/// record read. The questions' plans stand on it: the ends of an index (`min`, `max`), the
/// values its keys hold (`sum`, `avg`), runs of equal values (`GROUP`) and positions in
/// SORT order (`OFFSET`).
struct IndexWalk {
    let property: PropertyLayout
    let isPrimaryKey: Bool
    private let snapshot: Snapshot
    private let tree: Tree?

    /// Every key, null entries (tag 0) first.
    static let everything = IndexScan.KeyRange(lower: [], upper: nil)
    /// The keys of non-null values.
    static let values = IndexScan.KeyRange(lower: [1], upper: [2])

    /// The walk of the index of `path`, a direct path to an indexed property or the primary
    /// key of `model`; nil for any other path.
    init?(_ path: BoundKeyPath, model: ModelLayout, snapshot: Snapshot) throws {
        guard path.isDirect, path.property.model === model else { return nil }
        let p = path.property
        let isPrimaryKey = model.primaryKey === p
        guard isPrimaryKey || p.isIndexed, p.type.canBeIndexed else { return nil }
        self.property = p
        self.isPrimaryKey = isPrimaryKey
        self.snapshot = snapshot
        tree = try isPrimaryKey ? snapshot.primaryKeyTree(model) : snapshot.indexTree(p)
    }

    /// The plan's access for this index.
    var access: QueryPlan.Access {
        isPrimaryKey ? .primaryKey(property: property.name) : .index(property: property.name)
    }

    /// `USING PRIMARY KEY id` or `USING INDEX name`, as the plans name an index.
    var usingText: String {
        isPrimaryKey ? "USING PRIMARY KEY \(property.name)" : "USING INDEX \(property.name)"
    }

    /// Calls `body` with the value encoding and object key of each entry in `range`, in key
    /// order or (`descending`) against it, until `body` returns false. Returns false when
    /// `body` stopped the walk.
    @discardableResult
    func walk(_ range: IndexScan.KeyRange, descending: Bool = false,
              _ body: (UnsafeRawBufferPointer, UInt64) throws -> Bool) throws -> Bool {
        guard let tree else { return true }
        let upper = range.upper ?? IndexKey.successor(ofPrefix: range.lower)
        let isPrimaryKey = self.isPrimaryKey
        if !descending {
            // The tree's own walk: a cursor step per entry costs twice as much.
            var stopped = false
            try range.lower.withUnsafeBytes { lower in
                try snapshot.storageTx.forEach(tree, from: lower) { key, value in
                    let inside = if let upper { upper.withUnsafeBytes { IndexScan.less(key, $0) } } else { IndexScan.hasPrefix(key, lower) }
                    guard inside else { return false }
                    guard let objectKey = IndexScan.objectKey(entry: key, value: value, isPrimaryKey: isPrimaryKey) else { return true }
                    let valueKey = isPrimaryKey ? key : UnsafeRawBufferPointer(rebasing: key[..<(key.count - 8)])
                    if try body(valueKey, objectKey) { return true }
                    stopped = true
                    return false
                }
            }
            return !stopped
        }
        let cursor = try snapshot.storageTx.cursor(tree)
        // The last key below `upper`, then backwards.
        var positioned = if let upper { try cursor.seek(upper) ? try cursor.prev() : try cursor.last() } else { try cursor.last() }
        while positioned {
            let more: Bool? = try cursor.withEntry { key, value in
                let inside = !range.lower.withUnsafeBytes { IndexScan.less(key, $0) }
                guard inside, range.upper != nil || range.lower.withUnsafeBytes({ IndexScan.hasPrefix(key, $0) }) else { return nil }
                guard let objectKey = IndexScan.objectKey(entry: key, value: value, isPrimaryKey: isPrimaryKey) else { return true }
                let valueKey = isPrimaryKey ? key : UnsafeRawBufferPointer(rebasing: key[..<(key.count - 8)])
                return try body(valueKey, objectKey)
            }
            guard let more else { return true }
            if !more { return false }
            positioned = try cursor.prev()
        }
        return true
    }

    /// Calls `body` with the value encoding and object key of each entry from the one at
    /// `position` (0 is the first) on, in key order, until `body` returns false. The entries
    /// before `position` are skipped by count, a leaf at a time, none read. Returns how many
    /// were skipped, and false when `body` stopped the walk.
    func walkAll(from position: Int, _ body: (UnsafeRawBufferPointer, UInt64) throws -> Bool) throws -> (skipped: Int, complete: Bool) {
        guard let tree else { return (0, true) }
        let cursor = try snapshot.storageTx.cursor(tree)
        guard try cursor.first(), try cursor.advance(by: position) else { return (Swift.min(position, tree.count), true) }
        let isPrimaryKey = self.isPrimaryKey
        repeat {
            let more = try cursor.withEntry { key, value -> Bool in
                guard let objectKey = IndexScan.objectKey(entry: key, value: value, isPrimaryKey: isPrimaryKey) else { return true }
                return try body(isPrimaryKey ? key : UnsafeRawBufferPointer(rebasing: key[..<(key.count - 8)]), objectKey)
            }
            if !more { return (position, false) }
        } while try cursor.next()
        return (position, true)
    }

    /// Calls `body` with the value encoding and object key of each entry of `range` from the
    /// one at `position` within it (0 is its first) on, in key order, until `body` returns
    /// false. The entries before `position` are skipped by count, a leaf at a time, none read.
    /// Returns how many entries were passed over (`position`, though the range may have held
    /// fewer), and false when `body` stopped the walk.
    func walk(_ range: IndexScan.KeyRange, from position: Int,
              _ body: (UnsafeRawBufferPointer, UInt64) throws -> Bool) throws -> (skipped: Int, complete: Bool) {
        guard position > 0 else { return (0, try walk(range, body)) }
        guard let tree else { return (0, true) }
        let cursor = try snapshot.storageTx.cursor(tree)
        guard try cursor.seek(range.lower), try cursor.advance(by: position) else { return (position, true) }
        let isPrimaryKey = self.isPrimaryKey
        let upper = range.upper ?? IndexKey.successor(ofPrefix: range.lower)
        repeat {
            let more: Bool? = try cursor.withEntry { key, value in
                let inside = if let upper { upper.withUnsafeBytes { IndexScan.less(key, $0) } } else { range.lower.withUnsafeBytes { IndexScan.hasPrefix(key, $0) } }
                guard inside else { return nil }
                guard let objectKey = IndexScan.objectKey(entry: key, value: value, isPrimaryKey: isPrimaryKey) else { return true }
                return try body(isPrimaryKey ? key : UnsafeRawBufferPointer(rebasing: key[..<(key.count - 8)]), objectKey)
            }
            guard let more else { return (position, true) }
            if !more { return (position, false) }
        } while try cursor.next()
        return (position, true)
    }

    /// The value an entry's encoding holds whole, or nil (see `IndexKey.value(of:as:)`).
    func value(_ valueKey: UnsafeRawBufferPointer) -> Value? {
        IndexKey.value(of: valueKey, as: property.type)
    }

    /// Whether the index holds a NaN, which sorts after every number in keys (before, with its
    /// sign bit set) but compares with none: two looks, at the ends of the values.
    func holdsNaN() throws -> Bool {
        guard property.type == .double || property.type == .float else { return false }
        var found = false
        for descending in [false, true] {
            try walk(Self.values, descending: descending) { key, _ in
                if case .double(let d)? = value(key), d.isNaN { found = true }
                if case .float(let f)? = value(key), f.isNaN { found = true }
                return false
            }
        }
        return found
    }
}
