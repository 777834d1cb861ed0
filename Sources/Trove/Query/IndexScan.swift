import TroveStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Candidate objects read from the primary-key tree or a secondary index: the key ranges that
/// hold the values a comparison accepts.
///
/// Index keys are `IndexKey` encodings (plus the 8-byte object key, in a secondary index), so
/// a comparison becomes ranges of bytes. The ranges hold a superset of the matches (long
/// strings are truncated in keys, strings stored in NFD sort apart from their NFC form), so
/// each entry is either decided by its key (`entryCheck`) or left for the caller to check
/// against the object itself.
///
/// A class: plans pass scans around, and a struct this size costs a dozen retains per copy.
final class IndexScan {
    /// `lower ..< upper` in the tree's key order.
    struct KeyRange: Hashable {
        var lower: [UInt8]
        /// Nil for the keys that start with `lower` (an equality's value, a `BEGINSWITH` prefix).
        var upper: [UInt8]?

        /// Whether `key`, at or after `lower` (these bytes, lent), is inside the range.
        @inline(__always)
        func holds(_ key: UnsafeRawBufferPointer, lower: UnsafeRawBufferPointer) -> Bool {
            if let upper { upper.withUnsafeBytes { IndexScan.less(key, $0) } } else { IndexScan.hasPrefix(key, lower) }
        }
    }

    /// What an entry's key says about the comparison served, without reading the object.
    enum EntryCheck {
        /// Every entry in the ranges satisfies it (`==` and `IN` on values the keys hold whole).
        case decides
        /// An entry whose string is ASCII and whole in the key decides: it satisfies the
        /// comparison exactly when its key is at least `from` (nil: always). Others are only
        /// candidates. For string ranges and `BEGINSWITH` with ASCII constants: ASCII is its
        /// own NFC form, so its bytes order as the comparison orders strings.
        case asciiStrings(from: [UInt8]?)
        /// Entries are only candidates.
        case candidates
    }

    /// The property whose index is read.
    let property: PropertyLayout
    /// Whether that index is the primary-key tree (whose values are the object keys).
    let isPrimaryKey: Bool
    let ranges: [KeyRange]
    let entryCheck: EntryCheck
    /// Whether each range holds one value (`==`, `IN`), rather than an interval.
    let isPointLookup: Bool
    /// The comparisons served.
    private let served: Served

    private enum Served {
        case one(PathComparison)
        case all([PathComparison])
        case bounds([(op: BoundOperator, constant: Value)])
    }

    /// The comparison served, for plans: `name BEGINSWITH "A"` (built only for `explain`).
    var summary: String {
        func text(_ c: PathComparison) -> String { "\(c.path.text) \(c.op.symbol) \(c.constant)" }
        switch served {
        case .one(let c): return text(c)
        case .all(let cs): return cs.map(text).joined(separator: " AND ")
        case .bounds(let bs): return bs.map { "\(property.name) \($0.op.symbol) \($0.constant)" }.joined(separator: " AND ")
        }
    }

    /// The scan serving `c`, or nil when no index can.
    convenience init?(_ c: PathComparison, model: ModelLayout) {
        guard let p = Self.indexedProperty(c, model: model) else { return nil }
        if c.op.isOrdering {
            self.init(ordering: [c], model: model)
            return
        }
        guard let (ranges, check) = Self.ranges(c, type: p.type) else { return nil }
        self.init(property: p, isPrimaryKey: model.primaryKey === p, ranges: ranges, entryCheck: check,
                  isPointLookup: c.op == .equal || c.op == .in, served: .one(c))
    }

    private init(property: PropertyLayout, isPrimaryKey: Bool, ranges: [KeyRange], entryCheck: EntryCheck,
                 isPointLookup: Bool, served: Served) {
        self.property = property
        self.isPrimaryKey = isPrimaryKey
        self.ranges = ranges
        self.entryCheck = entryCheck
        self.isPointLookup = isPointLookup
        self.served = served
    }

    /// One scan serving every comparison of `comparisons` (`<`, `<=`, `>`, `>=`, `BETWEEN` on
    /// the same indexed property, the conjuncts of an `AND`): the intersection of their ranges.
    convenience init?(ordering comparisons: [PathComparison], model: ModelLayout) {
        guard let first = comparisons.first, let p = Self.indexedProperty(first, model: model),
              comparisons.allSatisfy({ $0.op.isOrdering && Self.indexedProperty($0, model: model) === p }),
              let (range, check) = Self.orderingRange(comparisons.map { ($0.op, $0.constant) }, type: p.type) else { return nil }
        self.init(property: p, isPrimaryKey: model.primaryKey === p, ranges: range.map { [$0] } ?? [], entryCheck: check, isPointLookup: false,
                  served: .all(comparisons))
    }

    /// The scan of `property` (of `model`) between `bounds`, ordering comparisons with their
    /// constants: what `init(ordering:model:)` builds, for a caller that checked the property
    /// once and has only the constants (its summary names no comparison).
    convenience init?(property p: PropertyLayout, model: ModelLayout, bounds: [(op: BoundOperator, constant: Value)]) {
        guard let (range, check) = Self.orderingRange(bounds, type: p.type) else { return nil }
        self.init(property: p, isPrimaryKey: model.primaryKey === p, ranges: range.map { [$0] } ?? [], entryCheck: check,
                  isPointLookup: false, served: .bounds(bounds))
    }

    /// The indexed property (or primary key) of model `c` compares, if an index can serve it.
    static func indexedProperty(_ c: PathComparison, model: ModelLayout) -> PropertyLayout? {
        guard c.path.isDirect, case .property(let p) = c.path.terminal, p.model === model,
              c.quantifier == .any, c.options.isEmpty else { return nil }
        guard model.primaryKey === p || p.isIndexed, p.type.canBeIndexed else { return nil }
        return p
    }

    /// The ranges in key order, or nil when two overlap (a walk of them would meet an entry
    /// twice).
    var disjointRanges: [KeyRange]? {
        let sorted = ranges.sorted { $0.lower.lexicographicallyPrecedes($1.lower) }
        for (a, b) in zip(sorted, sorted.dropFirst()) {
            guard let end = a.upper ?? IndexKey.successor(ofPrefix: a.lower), !b.lower.lexicographicallyPrecedes(end) else { return nil }
        }
        return sorted
    }

    var treeName: String { isPrimaryKey ? property.model.primaryKeyTree : property.indexTreeName }

    /// Whether an entry's key can decide the comparison: false when every entry is a candidate.
    var keysCanDecide: Bool {
        if case .candidates = entryCheck { return false }
        return true
    }

    /// Adds the object of every entry in the ranges to `candidates`, as a match or as a
    /// candidate to check, and counts the entries read in `read`. Returns false, leaving
    /// them incomplete, once `read` reaches `cap` or the candidates to check reach `unsureCap`.
    func collect(in snapshot: Snapshot, cap: Int, unsureCap: Int = .max, into candidates: inout IndexCandidates, read: inout Int) throws -> Bool {
        guard read < cap else { return false }
        let tree = try isPrimaryKey ? snapshot.primaryKeyTree(property.model) : snapshot.indexTree(property)
        guard !ranges.isEmpty, let tree else { return true }
        let isPrimaryKey = self.isPrimaryKey
        let check = entryCheck
        var complete = true
        if case .decides = check, !isPrimaryKey {
            // Every entry in the ranges is a match, named by its key's last 8 bytes: the loop
            // of the general case below without its verdict (`region == x` over many objects).
            for range in ranges {
                try range.lower.withUnsafeBytes { lower in
                    try snapshot.storageTx.forEach(tree, from: lower) { key, _ in
                        guard range.holds(key, lower: lower) else { return false }
                        read += 1
                        if key.count >= 8 {
                            candidates.addMatch(UInt64(bigEndian: key.loadUnaligned(fromByteOffset: key.count - 8, as: UInt64.self)))
                        }
                        if read >= cap { complete = false; return false }
                        return true
                    }
                }
                if !complete { return false }
            }
            return true
        }
        for range in ranges {
            try range.lower.withUnsafeBytes { lower in
                try snapshot.storageTx.forEach(tree, from: lower) { key, value in
                    // One look at the key: inside the range, what it decides, and the object key.
                    guard range.holds(key, lower: lower) else { return false }
                    read += 1
                    let verdict = Self.verdict(key, check, hasObjectKey: !isPrimaryKey)
                    if verdict != .rejected {
                        if let objectKey = Self.objectKey(entry: key, value: value, isPrimaryKey: isPrimaryKey) {
                            if verdict == .match { candidates.addMatch(objectKey) } else { candidates.addUnsure(objectKey) }
                        }
                    }
                    if read >= cap || candidates.unsure.count >= unsureCap { complete = false; return false }
                    return true
                }
            }
            if !complete { return false }
        }
        return true
    }

    /// What an entry's key says: it satisfies the comparisons served, may, or does not.
    enum EntryVerdict { case match, unsure, rejected }

    static func verdict(_ key: UnsafeRawBufferPointer, _ check: EntryCheck, hasObjectKey: Bool) -> EntryVerdict {
        switch check {
        case .decides:
            return .match
        case .candidates:
            return .unsure
        case .asciiStrings(let from):
            guard holdsWholeASCII(key, hasObjectKey: hasObjectKey) else { return .unsure }
            guard let from else { return .match }
            return from.withUnsafeBytes { less(key, $0) } ? .rejected : .match
        }
    }

    /// Whether an index key holds a whole ASCII string without NUL (whose bytes order as the
    /// string does): tag 1, the string's bytes, 0x00 0x00 (absent when truncated).
    static func holdsWholeASCII(_ key: UnsafeRawBufferPointer, hasObjectKey: Bool) -> Bool {
        let end = key.count - (hasObjectKey ? 8 : 0)
        guard end >= 3, key[0] == 1, key[end - 1] == 0, key[end - 2] == 0 else { return false }
        // No byte may be 0 (an escaped NUL) or have its top bit set (not ASCII): eight at a time.
        let high: UInt64 = 0x8080_8080_8080_8080, ones: UInt64 = 0x0101_0101_0101_0101
        var i = 1
        while i + 8 <= end - 2 {
            let w = key.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if w & high != 0 || (w &- ones) & ~w & high != 0 { return false }
            i += 8
        }
        while i < end - 2 {
            let b = key[i]
            if b == 0 || b >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// The object an index entry names: the primary-key tree's value, or a secondary index
    /// key's last 8 bytes; nil for a malformed entry.
    @inline(__always)
    static func objectKey(entry: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, isPrimaryKey: Bool) -> UInt64? {
        if isPrimaryKey {
            return IndexKey.objectKey(value: value)
        }
        return entry.count >= 8 ? UInt64(bigEndian: entry.loadUnaligned(fromByteOffset: entry.count - 8, as: UInt64.self)) : nil
    }

    /// Eight bytes at a time, inlined: an index walk tests every entry, and prefixes are short.
    @inline(__always)
    static func hasPrefix(_ key: UnsafeRawBufferPointer, _ prefix: UnsafeRawBufferPointer) -> Bool {
        let n = prefix.count
        guard key.count >= n else { return false }
        guard n > 0, let p = key.baseAddress, let q = prefix.baseAddress else { return true }
        var i = 0
        while i &+ 8 <= n {
            if p.loadUnaligned(fromByteOffset: i, as: UInt64.self) != q.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i &+= 8
        }
        while i < n {
            if p.load(fromByteOffset: i, as: UInt8.self) != q.load(fromByteOffset: i, as: UInt8.self) { return false }
            i &+= 1
        }
        return true
    }

    /// Whether key `a` sorts before key `b`, in the order of the storage's trees.
    @inline(__always)
    static func less(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        compareKeys(a, b) < 0
    }

    // MARK: Ranges

    /// Every non-null value sorts between these.
    private static let firstValue: [UInt8] = [1]
    private static let pastValues: [UInt8] = [2]

    private static func ranges(_ c: PathComparison, type: PropertyType) -> ([KeyRange], EntryCheck)? {
        switch c.op {
        case .equal:
            guard let (ranges, decides) = equalRanges(c.constant, type: type) else { return nil }
            return (ranges, decides ? .decides : .candidates)
        case .in:
            guard case .list(let items) = c.constant else { return nil }
            var ranges: [KeyRange] = []
            var decides = true
            for item in items {
                guard let (r, d) = equalRanges(item, type: type) else { return nil }
                ranges += r
                decides = decides && d
            }
            let sorted = Array(Set(ranges)).sorted { $0.lower.lexicographicallyPrecedes($1.lower) }
            return (sorted, decides ? .decides : .candidates)
        case .beginsWith:
            guard type == .string, case .string(let prefix) = c.constant else { return nil }
            let ranges = variants(prefix).map { variant in
                var key: [UInt8] = [1]
                var n = 0
                for byte in variant.utf8 where n < IndexKey.maxValueBytes {
                    key.append(byte)
                    if byte == 0 { key.append(0xFF) }
                    n += 1
                }
                return KeyRange(lower: key, upper: nil)
            }
            // An ASCII string starts with an ASCII prefix exactly when its bytes do.
            let isASCII = prefix.utf8.count <= IndexKey.maxValueBytes && prefix.utf8.allSatisfy { $0 < 0x80 }
            return (ranges, isASCII ? .asciiStrings(from: nil) : .candidates)
        default:
            return nil
        }
    }

    /// The intersection of the ranges of ordering comparisons, nil for an empty one.
    private static func orderingRange(_ comparisons: [(op: BoundOperator, constant: Value)], type: PropertyType) -> (KeyRange?, EntryCheck)? {
        if type == .string { return stringRange(comparisons) }
        // Booleans and UUIDs do not order (the binder refuses them).
        guard type != .bool, type != .uuid else { return nil }
        var lower = firstValue, upper = pastValues
        // Integer bounds are exact; a fractional or huge bound is rounded and clamped, and
        // doubles may hold NaN, which a range holds but no comparison accepts. A date's key is
        // its seconds as an order-preserving double, exact: bounded by the keys of the two
        // infinities, a range leaves out only NaN (after +inf, or before -inf with its sign set).
        var decides = type.isInteger || type == .date
        if type == .date {
            lower = IndexKey.encode(.date(Date(timeIntervalSinceReferenceDate: -.infinity)), as: .date)
            upper = successor(IndexKey.encode(.date(Date(timeIntervalSinceReferenceDate: .infinity)), as: .date))
        }
        for c in comparisons {
            var low: [UInt8]?, high: [UInt8]?
            switch c.op {
            case .greater:
                guard let k = bound(c.constant, type, roundingUp: false) else { return (nil, .decides) }
                low = successor(k)
            case .greaterOrEqual:
                guard let k = bound(c.constant, type, roundingUp: true) else { return (nil, .decides) }
                low = k
            case .less:
                guard let k = bound(c.constant, type, roundingUp: true) else { return (nil, .decides) }
                high = k
            case .lessOrEqual:
                guard let k = bound(c.constant, type, roundingUp: false) else { return (nil, .decides) }
                high = successor(k)
            case .between:
                guard case .list(let bounds) = c.constant, bounds.count == 2,
                      let l = bound(bounds[0], type, roundingUp: true),
                      let h = bound(bounds[1], type, roundingUp: false) else { return (nil, .decides) }
                low = l
                high = successor(h)
            default:
                return nil
            }
            let constants: [Value] = if case .list(let items) = c.constant { items } else { [c.constant] }
            if type == .date {
                // No date orders with NaN; any other constant is left to the records.
                for constant in constants {
                    guard case .date(let d) = constant else { decides = false; continue }
                    if d.timeIntervalSinceReferenceDate.isNaN { return (nil, .decides) }
                }
            } else if !constants.allSatisfy({ if case .int = $0 { true } else { false } }) {
                decides = false
            }
            if let low, lower.lexicographicallyPrecedes(low) { lower = low }
            if let high, high.lexicographicallyPrecedes(upper) { upper = high }
        }
        guard lower.lexicographicallyPrecedes(upper) else { return (nil, .decides) }
        return (KeyRange(lower: lower, upper: upper), decides ? .decides : .candidates)
    }

    /// The tightest lower and upper bounds of ordering comparisons on strings, each with
    /// whether it is included, or nil when a bound is not ASCII (or too long for a key).
    static func asciiStringBounds(_ comparisons: some Sequence<(op: BoundOperator, constant: Value)>)
        -> (lower: (s: String, inclusive: Bool)?, upper: (s: String, inclusive: Bool)?)? {
        // Bounds stay strings: their UTF-8 views compare without copies.
        var lower: (s: String, inclusive: Bool)?
        var upper: (s: String, inclusive: Bool)?
        func ascii(_ value: Value) -> String? {
            guard case .string(let s) = value, s.utf8.count <= IndexKey.maxValueBytes, isASCII(s) else { return nil }
            return s
        }
        func raise(_ b: String, _ inclusive: Bool) {
            guard let l = lower else { lower = (b, inclusive); return }
            if l.s.utf8.lexicographicallyPrecedes(b.utf8) || (l.s.utf8.elementsEqual(b.utf8) && !inclusive) { lower = (b, inclusive) }
        }
        func lowerUpper(_ b: String, _ inclusive: Bool) {
            guard let u = upper else { upper = (b, inclusive); return }
            if b.utf8.lexicographicallyPrecedes(u.s.utf8) || (u.s.utf8.elementsEqual(b.utf8) && !inclusive) { upper = (b, inclusive) }
        }
        for c in comparisons {
            switch c.op {
            case .greater, .greaterOrEqual:
                guard let b = ascii(c.constant) else { return nil }
                raise(b, c.op == .greaterOrEqual)
            case .less, .lessOrEqual:
                guard let b = ascii(c.constant) else { return nil }
                lowerUpper(b, c.op == .lessOrEqual)
            case .between:
                guard case .list(let bounds) = c.constant, bounds.count == 2,
                      let l = ascii(bounds[0]), let h = ascii(bounds[1]) else { return nil }
                raise(l, true)
                lowerUpper(h, true)
            default:
                return nil
            }
        }
        return (lower, upper)
    }

    /// The number of leading bytes `a` and `b` share.
    static func sharedPrefixCount(_ a: String, _ b: String) -> Int {
        var a = a, b = b
        return a.withUTF8 { l in
            b.withUTF8 { h in
                var n = 0
                while n < l.count, n < h.count, l[n] == h[n] { n += 1 }
                return n
            }
        }
    }

    /// The range of keys that may hold strings between ASCII bounds, or nil when a bound is not
    /// ASCII (or too long for a key).
    ///
    /// Strings compare by the scalars of their NFC form, keys hold the bytes as stored. For a
    /// string stored in NFC the two agree. One stored decomposed (`e` + U+0301 for `é`) differs
    /// from its NFC form first at a letter that, composed, lies above every ASCII character:
    /// it can sort below an ASCII lower bound `lo` while its NFC form does not, but only if it
    /// begins with a prefix of `lo` longer than the prefix `lo` shares with the upper bound
    /// (otherwise its NFC form lies above that bound too). So the scan starts at that prefix of
    /// `lo`; the ASCII entries below `lo` are skipped by `EntryCheck.asciiStrings(from:)`, the
    /// others checked.
    private static func stringRange(_ comparisons: [(op: BoundOperator, constant: Value)]) -> (KeyRange?, EntryCheck)? {
        guard let (lower, upper) = asciiStringBounds(comparisons) else { return nil }
        func encoded(_ s: String, prefix: Int = .max) -> [UInt8] {
            var s = s
            return s.withUTF8 { bytes in
                let bytes = UnsafeBufferPointer(rebasing: bytes.prefix(prefix))
                var key: [UInt8] = [1]
                key.reserveCapacity(bytes.count + 3)
                IndexKey.appendEscaped(bytes, to: &key)
                return key
            }
        }
        let lowerKey = lower.map { $0.inclusive ? encoded($0.s) : successor(encoded($0.s)) } ?? firstValue
        let upperKey = upper.map { $0.inclusive ? successor(encoded($0.s)) : encoded($0.s) } ?? pastValues
        guard lowerKey.lexicographicallyPrecedes(upperKey) else { return (nil, .decides) }
        var scanLower = firstValue
        if let lo = lower?.s, let hi = upper?.s {
            let shared = sharedPrefixCount(lo, hi)
            if shared + 1 >= lo.utf8.count {
                scanLower = lowerKey
            } else {
                // The prefix's key without a terminator: it precedes every string starting with it.
                var key = encoded(lo, prefix: shared + 1)
                key.removeLast(2)
                scanLower = key
            }
        }
        return (KeyRange(lower: scanLower, upper: upperKey), .asciiStrings(from: lowerKey))
    }

    /// The ranges of the keys equal to `value`, and whether those keys hold it whole (so that
    /// every entry in them equals it).
    private static func equalRanges(_ value: Value, type: PropertyType) -> ([KeyRange], Bool)? {
        switch (value, type) {
        case (.string(let s), .string):
            // A truncated key has no 0x00 0x00 terminator.
            if isASCII(s) {
                let key = IndexKey.encode(value, as: type)
                return ([prefixRange(key)], key[key.count - 1] == 0 && key[key.count - 2] == 0)
            }
            let keys = variants(s).map { IndexKey.encode(.string($0), as: type) }
            // A truncated key has no 0x00 0x00 terminator.
            return (keys.map(prefixRange), keys.allSatisfy { $0.count >= 3 && $0[$0.count - 1] == 0 && $0[$0.count - 2] == 0 })
        case (.double(let d), _) where type.isInteger:
            guard let i = Int64(exactly: d) else { return ([], true) }
            return ([prefixRange(IndexKey.encode(.int(i), as: type))], true)
        default:
            return ([prefixRange(IndexKey.encode(value, as: type))], keysDecideEquality(value, type))
        }
    }

    /// Whether equal keys mean equal values: not for decimals (keys hold a rounded double),
    /// NaN (never equal to itself), data (truncated keys) or links.
    static func keysDecideEquality(_ value: Value, _ type: PropertyType) -> Bool {
        switch value {
        case .null: true
        case .int: type.isInteger
        case .bool: type == .bool
        case .uuid: type == .uuid
        case .double(let d): type == .double && !d.isNaN
        case .float(let f): type == .float && !f.isNaN
        case .date(let d): type == .date && !d.timeIntervalSinceReferenceDate.isNaN
        default: false
        }
    }

    static func isASCII(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { bytes in bytes.allSatisfy { $0 < 0x80 } }
    }

    /// The spellings of a string an index may hold for it: as written, NFC and NFD.
    private static func variants(_ s: String) -> [String] {
        // ASCII has one spelling; normalizing it costs more than the whole lookup.
        if isASCII(s) { return [s] }
        // Deduplicated by bytes: a `Set<String>` would merge them, as `==` is canonical equivalence.
        var seen = Set<[UInt8]>()
        return [s, s.nfc, s.nfd].filter {
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
        KeyRange(lower: prefix, upper: nil)
    }

    private static func successor(_ key: [UInt8]) -> [UInt8] {
        IndexKey.successor(ofPrefix: key) ?? [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    }
}
