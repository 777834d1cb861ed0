/// The sum of fractional numbers as the aggregates take it (`sum`, `avg`, `@sum`, `@avg`,
/// `list.@sum`, `Results.sum(of:)`), and what PostgreSQL's `sum` gives for the same values.
///
/// A NaN adds nothing (its caller does not count it either). An infinity is data: a sum that
/// meets +inf is +inf, one that meets -inf is -inf, and one that meets both is NaN, as in
/// PostgreSQL. The finite values are added apart from the infinities, so an infinity among
/// them neither hides nor makes an overflow: the sum is an overflow (`value` is nil) when the
/// running sum of the finite values leaves the range of `double`, whatever infinities are
/// beside them. PostgreSQL is given the same split.
///
/// The running sum depends on the order the values come in: 1e308, 1e308, -1e308 overflows,
/// 1e308, -1e308, 1e308 does not. A store adds in object-key order, PostgreSQL in the order it
/// reads its rows (which an UPDATE changes), so finite values whose partial sums reach the
/// range can be an overflow on one backend and a total on the other. Detecting it in every
/// order would take a second, scaled sum on both sides, a cost every sum would pay.
///
/// A sum of floats is a double, held to double's range; read as a `Float` (the typed API's
/// `sum(\.x)`), the same rule holds for `Float`'s range (`floatValue`).
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

    /// The sum as a `Float` reads it (a sum of floats in the typed API): as `value`, except
    /// that when the finite values' sum is beyond `Float`'s range it is that sum, which no
    /// `Float` holds, whatever infinities are beside it. The reader's range check then meets
    /// the overflow, as it does without an infinity, where `value` would hand it the infinity.
    var floatValue: Double? {
        guard finite.isFinite else { return nil }
        return Float(finite).isFinite ? value : finite
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
