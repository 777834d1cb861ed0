/// SplitMix64: a tiny deterministic generator, so a test that fails on a seed fails again on it.
///
/// The randomized tests of every module (crash simulations, differential queries, typed
/// predicates) draw from this one generator, so a seed means the same sequence everywhere.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<n`.
    public mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// True with the given probability, in percent.
    public mutating func chance(_ percent: Int) -> Bool { int(100) < percent }

    /// One of `items`, which must not be empty.
    public mutating func pick<T>(_ items: [T]) -> T { items[int(items.count)] }
}
