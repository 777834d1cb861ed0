/// The values of a query, decoded lazily and kept current: after a commit (by any `Store` or
/// process) reading ``count`` or ``values`` re-evaluates the query; the subscript reads the
/// evaluation `count` last saw, so `for i in 0..<results.count { try results[i] }` is
/// consistent. Use it on one thread at a time.
///
/// Reads throw when a stored object does not decode as `T` (a type that does not match its
/// model), which is why this is not a `Sequence`: iterate ``values``.
public final class FetchedResults<T: Persistable> {
    private let live: LiveResults
    private var decoded: [Int: T] = [:]
    private var decodedVersion: UInt64

    init(_ live: LiveResults) {
        self.live = live
        decodedVersion = live.version
    }

    /// The number of values as of the newest commit.
    public var count: Int { live.count }

    /// The value at `index` of the last evaluation, decoded once per evaluation.
    public subscript(index: Int) -> T {
        get throws {
            if live.version != decodedVersion {
                decoded = [:]
                decodedVersion = live.version
            }
            if let v = decoded[index] { return v }
            let v = try ObjectDecoder.decode(T.self, from: live[index])
            decoded[index] = v
            return v
        }
    }

    /// Every value as of the newest commit, in order.
    public var values: [T] {
        get throws { try (0..<count).map { try self[$0] } }
    }
}
