import Trove

/// Whether a watched aggregate's value changed between two runs of its query, and so prints
/// again.
///
/// `Value`'s `==` holds a NaN unequal to itself, so a NaN total (a sum or average that met both
/// infinities) would print after every commit. Here any NaN is the same as any other, whatever
/// its sign and payload bits: those record how the arithmetic came to the NaN (which operand
/// was a NaN first, the processor's default NaN for `inf + -inf`), not the values, and nothing
/// prints them. Comparing bits instead would also hold `0.0` and `-0.0` apart, which `==` (and
/// every query) takes as one number.
enum AggregateChange {
    static func between(_ old: Value, _ new: Value) -> Bool {
        switch (old, new) {
        case (.double(let a), .double(let b)) where a.isNaN && b.isNaN: false
        case (.float(let a), .float(let b)) where a.isNaN && b.isNaN: false
        default: old != new
        }
    }
}
