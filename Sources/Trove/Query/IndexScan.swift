import Foundation
import TroveStorage

/// Candidate objects read from the primary-key tree or a secondary index: the key ranges that
/// hold the values a comparison accepts.
///
/// Index keys are `IndexKey` encodings (plus the 8-byte object key, in a secondary index), so
/// a comparison becomes ranges of bytes. The candidates are a superset of the matches (long
/// strings are truncated in keys, an integer index is read with rounded bounds), so the
/// caller always checks every candidate against the whole predicate.
struct IndexScan {
    /// `lower ..< upper` in the tree's key order.
    struct KeyRange: Hashable {
        var lower: [UInt8]
        var upper: [UInt8]
    }

    /// The property whose index is read.
    let property: PropertyLayout
    /// Whether that index is the primary-key tree (whose values are the object keys).
    let isPrimaryKey: Bool
    let ranges: [KeyRange]
    /// The comparison served, for plans: `name BEGINSWITH "A"`.
    let summary: String

    /// The scan serving `c`, or nil when no index can.
    init?(_ c: PathComparison, model: ModelLayout) {
        guard c.path.isDirect, case .property(let p) = c.path.terminal, p.model === model,
              c.quantifier == .any, c.options.isEmpty else { return nil }
        let isPrimaryKey = model.primaryKey === p
        guard isPrimaryKey || p.isIndexed, p.type.canBeIndexed else { return nil }
        guard let ranges = Self.ranges(c, type: p.type) else { return nil }
        self.property = p
        self.isPrimaryKey = isPrimaryKey
        self.ranges = ranges
        self.summary = "\(c.path.text) \(c.op.symbol) \(c.constant)"
        self.isExact = c.op == .equal || c.op == .in
    }

    var treeName: String { isPrimaryKey ? property.model.primaryKeyTree : property.indexTreeName }

    /// Whether each range holds one value (`==`, `IN`), rather than an interval.
    let isExact: Bool

    /// How many entries the ranges hold, counting no further than `cap`.
    func count(in snapshot: Snapshot, cap: Int) throws -> Int {
        guard let tree = try snapshot.tree(treeName) else { return 0 }
        var n = 0
        for range in ranges {
            try visit(range, tree, snapshot) { _ in
                n += 1
                return n < cap
            }
            if n >= cap { return n }
        }
        return n
    }

    /// Adds the object keys of every entry in the ranges to `keys`.
    func collect(in snapshot: Snapshot, into keys: inout Set<UInt64>) throws {
        guard let tree = try snapshot.tree(treeName) else { return }
        let isPrimaryKey = self.isPrimaryKey
        for range in ranges {
            try visit(range, tree, snapshot) { cursor in
                let key = try isPrimaryKey
                    ? cursor.withValue { $0.count == 8 ? UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) : nil }
                    : cursor.withKey { $0.count >= 8 ? UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: $0.count - 8, as: UInt64.self)) : nil }
                if let key { keys.insert(key) }
                return true
            }
        }
    }

    /// Calls `body` on each entry of `range` until it returns false.
    private func visit(_ range: KeyRange, _ tree: Tree, _ snapshot: Snapshot, _ body: (Cursor) throws -> Bool) throws {
        let cursor = try snapshot.storageTx.cursor(tree)
        var ok = try cursor.seek(range.lower)
        while ok {
            let inside = try cursor.withKey { key in range.upper.withUnsafeBytes { Self.less(key, $0) } }
            guard inside, try body(cursor) else { return }
            ok = try cursor.next()
        }
    }

    private static func less(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let common = min(a.count, b.count)
        if common > 0, let p = a.baseAddress, let q = b.baseAddress {
            let order = memcmp(p, q, common)
            if order != 0 { return order < 0 }
        }
        return a.count < b.count
    }

    // MARK: Ranges

    /// Every non-null value sorts between these.
    private static let firstValue: [UInt8] = [1]
    private static let pastValues: [UInt8] = [2]

    private static func ranges(_ c: PathComparison, type: PropertyType) -> [KeyRange]? {
        switch c.op {
        case .equal:
            return equalRanges(c.constant, type: type)
        case .in:
            guard case .list(let items) = c.constant else { return nil }
            var ranges: [KeyRange] = []
            for item in items {
                guard let r = equalRanges(item, type: type) else { return nil }
                ranges += r
            }
            return Array(Set(ranges)).sorted { $0.lower.lexicographicallyPrecedes($1.lower) }
        case .less, .lessOrEqual, .greater, .greaterOrEqual, .between:
            // Strings order by scalar values of their NFC form; keys hold the bytes as stored.
            guard type != .string, type != .bool, type != .uuid else { return nil }
            var lower = firstValue, upper = pastValues
            switch c.op {
            case .greater:
                guard let k = bound(c.constant, type, roundingUp: false) else { return [] }
                lower = successor(k)
            case .greaterOrEqual:
                guard let k = bound(c.constant, type, roundingUp: true) else { return [] }
                lower = k
            case .less:
                guard let k = bound(c.constant, type, roundingUp: true) else { return [] }
                upper = k
            case .lessOrEqual:
                guard let k = bound(c.constant, type, roundingUp: false) else { return [] }
                upper = successor(k)
            default:
                guard case .list(let bounds) = c.constant, bounds.count == 2,
                      let low = bound(bounds[0], type, roundingUp: true),
                      let high = bound(bounds[1], type, roundingUp: false) else { return [] }
                lower = low
                upper = successor(high)
            }
            return [KeyRange(lower: lower, upper: upper)]
        case .beginsWith:
            guard type == .string, case .string(let prefix) = c.constant else { return nil }
            return variants(prefix).map { variant in
                var key: [UInt8] = [1]
                var n = 0
                for byte in variant.utf8 where n < IndexKey.maxValueBytes {
                    key.append(byte)
                    if byte == 0 { key.append(0xFF) }
                    n += 1
                }
                return KeyRange(lower: key, upper: successor(key))
            }
        default:
            return nil
        }
    }

    private static func equalRanges(_ value: Value, type: PropertyType) -> [KeyRange]? {
        switch (value, type) {
        case (.string(let s), .string):
            return variants(s).map { prefixRange(IndexKey.encode(.string($0), as: type)) }
        case (.double(let d), _) where type.isInteger:
            guard let i = Int64(exactly: d) else { return [] }
            return [prefixRange(IndexKey.encode(.int(i), as: type))]
        default:
            return [prefixRange(IndexKey.encode(value, as: type))]
        }
    }

    /// The spellings of a string an index may hold for it: as written, NFC and NFD.
    private static func variants(_ s: String) -> [String] {
        // ASCII has one spelling; normalizing it costs more than the whole lookup.
        if s.utf8.allSatisfy({ $0 < 0x80 }) { return [s] }
        // Deduplicated by bytes: a `Set<String>` would merge them, as `==` is canonical equivalence.
        var seen = Set<[UInt8]>()
        return [s, s.precomposedStringWithCanonicalMapping, s.decomposedStringWithCanonicalMapping].filter {
            seen.insert(Array($0.utf8)).inserted
        }
    }

    /// The encoded bound for an ordering comparison; integer properties round a fractional
    /// bound outward.
    private static func bound(_ value: Value, _ type: PropertyType, roundingUp: Bool) -> [UInt8]? {
        if type.isInteger, case .double(let d) = value {
            guard !d.isNaN else { return nil }
            let rounded = roundingUp ? d.rounded(.up) : d.rounded(.down)
            let clamped = rounded >= 9.2e18 ? Int64.max : rounded <= -9.2e18 ? Int64.min : Int64(rounded)
            return IndexKey.encode(.int(clamped), as: type)
        }
        return IndexKey.encode(value, as: type)
    }

    private static func prefixRange(_ prefix: [UInt8]) -> KeyRange {
        KeyRange(lower: prefix, upper: successor(prefix))
    }

    private static func successor(_ key: [UInt8]) -> [UInt8] {
        IndexKey.successor(ofPrefix: key) ?? [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    }
}
