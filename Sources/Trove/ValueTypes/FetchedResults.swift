/// The values of a query, decoded lazily and kept current: after a commit (by any `Store` or
/// process) reading ``count`` or iterating re-evaluates the query; the subscript reads the
/// evaluation `count` last saw, so `for i in 0..<results.count { results[i] }` is consistent.
/// Use it on one thread at a time.
public final class FetchedResults<T: Persistable>: Sequence {
    private let live: LiveResults
    private var decoded: [Int: T] = [:]
    private var decodedVersion: UInt64

    init(_ live: LiveResults) {
        self.live = live
        decodedVersion = live.version
    }

    /// The number of values as of the newest commit.
    public var count: Int { live.count }

    /// The value at `index` of the last evaluation. Traps if the stored object does not
    /// decode as `T` (a type that does not match its model); ``value(at:)`` throws instead.
    public subscript(index: Int) -> T {
        do {
            return try value(at: index)
        } catch {
            fatalError("\(T.self) at \(index) does not decode from \(T.modelName): \(error)")
        }
    }

    /// The value at `index` of the last evaluation, decoded once per evaluation.
    public func value(at index: Int) throws -> T {
        if live.version != decodedVersion {
            decoded = [:]
            decodedVersion = live.version
        }
        if let v = decoded[index] { return v }
        let v = try ObjectDecoder.decode(T.self, from: live[index])
        decoded[index] = v
        return v
    }

    /// Iterates the values as of the newest commit.
    public func makeIterator() -> AnyIterator<T> {
        let n = count
        var i = 0
        return AnyIterator {
            guard i < n else { return nil }
            defer { i += 1 }
            return self[i]
        }
    }
}
