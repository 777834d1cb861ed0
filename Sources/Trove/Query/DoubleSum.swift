/// The sum of fractional numbers as the aggregates take it (`sum`, `avg`, `@sum`, `@avg`,
/// `list.@sum`, `Results.sum(of:)`), and what PostgreSQL's `sum` gives for the same values.
///
/// A NaN adds nothing (its caller does not count it either). An infinity is data: a sum that
/// meets +inf is +inf, one that meets -inf is -inf, and one that meets both is NaN, as in
/// PostgreSQL. The finite values are added apart from the infinities, so whether their sum
/// leaves the range of `double` does not depend on where an infinity comes among them: such a
/// sum is an overflow (`value` is nil) whatever infinities are beside it, in every order the
/// values may come in (PostgreSQL, which adds in its own order, is given the same split).
struct DoubleSum {
    private var finite = 0.0
    private var positiveInfinity = false
    private var negativeInfinity = false

    /// Adds `value`; a NaN adds nothing.
    @inline(__always)
    mutating func add(_ value: Double) {
        if value.isFinite {
            finite += value
        } else if value == .infinity {
            positiveInfinity = true
        } else if value == -.infinity {
            negativeInfinity = true
        }
    }

    /// Adds `value`, which is finite (an integer's `Double`): the loops over integers.
    @inline(__always)
    mutating func add(finite value: Double) {
        finite += value
    }

    /// The sum; nil when the finite values' sum is beyond the range of `double`.
    var value: Double? {
        guard finite.isFinite else { return nil }
        switch (positiveInfinity, negativeInfinity) {
        case (true, true): return .nan
        case (true, false): return .infinity
        case (false, true): return -.infinity
        case (false, false): return finite
        }
    }
}
