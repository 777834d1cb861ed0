/// An `AND` of comparisons of the object's own fixed-width properties with constants
/// (`age >= 30 AND age < 40 AND score > 50.0`), tested in one loop that reads each slot once.
///
/// Each comparison is a range on one slot; comparisons of the same slot intersect into one range.
/// Integers keep inclusive `Int64` bounds; doubles, dates and floats (widened to `Double`,
/// which is exact) keep bounds that may be strict. Null never passes, nor does NaN: the
/// answers of `PayloadMatcher`'s fixed-width tests and of `ValueComparison`.
struct SlotRanges {
    struct Range {
        enum Kind { case int, double, float }

        let slot: Int
        let kind: Kind
        var intLow = Int64.min, intHigh = Int64.max
        var low = -Double.infinity, high = Double.infinity
        var lowIsStrict = false, highIsStrict = false
        /// Whether a record written before the property existed passes (it reads the default).
        var missingPasses = false

        @inline(__always)
        func passes(_ bytes: UnsafeRawBufferPointer) -> Bool {
            switch kind {
            case .int:
                guard let v = RecordCodec.int(bytes) else { return false }
                return intLow <= v && v <= intHigh
            case .double:
                guard bytes.count == 8 else { return false }
                return contains(bytes.loadUnaligned(as: Double.self))
            case .float:
                guard bytes.count == 4 else { return false }
                return contains(Double(bytes.loadUnaligned(as: Float.self)))
            }
        }

        @inline(__always)
        private func contains(_ v: Double) -> Bool {
            (lowIsStrict ? v > low : v >= low) && (highIsStrict ? v < high : v <= high)
        }
    }

    private(set) var ranges: ContiguousArray<Range> = []

    init() {}

    /// The ranges of `predicate` when they are the whole of it (a comparison, or an `AND` of
    /// comparisons, this type tests), so that a scan can test them without a closure.
    init?(only predicate: BoundPredicate) {
        let operands: [BoundPredicate] = if case .and(let operands) = predicate { operands } else { [predicate] }
        for operand in operands {
            guard case .path(let c) = operand, add(c) else { return nil }
        }
        if isEmpty { return nil }
    }

    var isEmpty: Bool { ranges.isEmpty }

    /// Adds `c` if it is a comparison this type tests; false (and unchanged) otherwise.
    mutating func add(_ c: PathComparison) -> Bool {
        guard c.path.isDirect, !c.path.isToMany else { return false }
        let p = c.path.property
        switch (c.path.kind, c.constant) {
        case (.int, .int(let v)):
            guard let (low, high) = Self.integerBounds(c.op, v) else { return false }
            merge(p, .int) { $0.intLow = max($0.intLow, low); $0.intHigh = min($0.intHigh, high) }
        case (.int, .list(let bounds)) where c.op == .between:
            guard bounds.count == 2, case .int(let low) = bounds[0], case .int(let high) = bounds[1] else { return false }
            merge(p, .int) { $0.intLow = max($0.intLow, low); $0.intHigh = min($0.intHigh, high) }
        case (.double, .double(let v)):
            return addFloating(p, .double, c.op, v)
        case (.date, .date(let d)):
            return addFloating(p, .double, c.op, d.timeIntervalSinceReferenceDate)
        case (.float, .float(let v)):
            return addFloating(p, .float, c.op, Double(v))
        default:
            return false
        }
        return true
    }

    /// Whether the record passes every range.
    @inline(__always)
    func test(_ record: RecordView) -> Bool {
        for range in ranges {
            if let bytes = record.slot(range.slot) {
                if !range.passes(bytes) { return false }
            } else if !range.missingPasses {
                return false
            }
        }
        return true
    }

    // MARK: Building

    /// Inclusive bounds for `v op c`; nil for an operator that is not a range. An empty range
    /// (`< Int64.min`) is `low > high`.
    private static func integerBounds(_ op: BoundOperator, _ c: Int64) -> (Int64, Int64)? {
        switch op {
        case .equal: (c, c)
        case .less: c == .min ? (1, 0) : (.min, c - 1)
        case .lessOrEqual: (.min, c)
        case .greater: c == .max ? (1, 0) : (c + 1, .max)
        case .greaterOrEqual: (c, .max)
        default: nil
        }
    }

    private mutating func addFloating(_ p: PropertyLayout, _ kind: Range.Kind, _ op: BoundOperator, _ c: Double) -> Bool {
        // Intersecting bounds picks the tighter one, which means nothing with NaN: keep it apart.
        let separate = c.isNaN
        switch op {
        case .equal:
            merge(p, kind, separate: separate) { $0.tighten(low: c, strict: false); $0.tighten(high: c, strict: false) }
        case .less: merge(p, kind, separate: separate) { $0.tighten(high: c, strict: true) }
        case .lessOrEqual: merge(p, kind, separate: separate) { $0.tighten(high: c, strict: false) }
        case .greater: merge(p, kind, separate: separate) { $0.tighten(low: c, strict: true) }
        case .greaterOrEqual: merge(p, kind, separate: separate) { $0.tighten(low: c, strict: false) }
        default: return false
        }
        return true
    }

    private mutating func merge(_ p: PropertyLayout, _ kind: Range.Kind, separate: Bool = false, _ update: (inout Range) -> Void) {
        let index: Int
        if !separate, let i = ranges.firstIndex(where: { $0.slot == p.id && $0.kind == kind && !$0.hasNaNBound }) {
            index = i
        } else {
            ranges.append(Range(slot: p.id, kind: kind))
            index = ranges.count - 1
        }
        update(&ranges[index])
        let range = ranges[index]
        ranges[index].missingPasses = KeyPathReader.defaultPayload(p).withUnsafeBytes { range.passes($0) }
    }
}

extension SlotRanges.Range {
    var hasNaNBound: Bool { low.isNaN || high.isNaN }

    mutating func tighten(low c: Double, strict: Bool) {
        if c > low || (c == low && strict) { low = c; lowIsStrict = strict }
        if c.isNaN { low = c; lowIsStrict = strict }
    }

    mutating func tighten(high c: Double, strict: Bool) {
        if c < high || (c == high && strict) { high = c; highIsStrict = strict }
        if c.isNaN { high = c; highIsStrict = strict }
    }
}
