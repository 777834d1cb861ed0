import TroveStorage

/// A request's results that follow the store: after a commit (by any `Store` or process)
/// they are re-evaluated against the newest snapshot when next read.
///
/// ```swift
/// let open = try LiveResults(store: store, request: ResultsRequest("Task", where: "done == false"))
/// print(open.count)            // 3
/// try store.write { tx in try tx.insert("Task", [...]) }
/// print(open.count)            // 4
/// ```
///
/// Reading ``count``, ``results`` or iterating picks up commits; the subscript does not, so
/// `for i in 0..<live.count { live[i] }` reads one consistent evaluation. Use it on one
/// thread at a time, like the ``Snapshot`` it reads. For change notifications use a
/// ``ResultsController``.
public final class LiveResults: Sequence {
    public let store: Store
    public let request: ResultsRequest
    private let latest = LatestVersion()
    private let feed: CommitObservation
    private var evaluated: Results

    /// Evaluates `request` now and follows commits from then on.
    public init(store: Store, request: ResultsRequest) throws {
        self.store = store
        self.request = request
        let dependencies = store.schema.modelsReachable(from: request.model)
        feed = store.observeCommits { [latest] commit in
            if commit.mayTouch(dependencies) { latest.note(commit.version) }
        }
        let snapshot = try store.beginRead()
        evaluated = try request.results(in: snapshot)
    }

    /// The results as of the newest commit.
    public var results: Results {
        get throws {
            try refresh()
            return evaluated
        }
    }

    /// The version the last evaluation read.
    public var version: UInt64 { evaluated.snapshot.version }

    /// Re-evaluates if a commit that may matter happened since; returns whether it did.
    @discardableResult
    public func refresh() throws -> Bool {
        guard latest.value > evaluated.snapshot.version else { return false }
        let snapshot = try store.beginRead()
        // The previous snapshot ends when the last Results or object read from it goes.
        evaluated = try request.results(in: snapshot)
        return true
    }

    /// The number of objects, after picking up commits (a failed re-evaluation keeps the
    /// previous results).
    public var count: Int {
        _ = try? refresh()
        return evaluated.count
    }

    /// The object at `index` of the last evaluation.
    public subscript(index: Int) -> DynamicObject { evaluated[index] }

    /// Iterates the results as of the newest commit.
    public func makeIterator() -> Results.Iterator {
        _ = try? refresh()
        return evaluated.makeIterator()
    }
}

/// The newest version the commit observation announced; read from any thread.
final class LatestVersion: @unchecked Sendable {
    private let lock = Lock()
    private var latest: UInt64 = 0

    func note(_ version: UInt64) {
        lock.lock(); latest = max(latest, version); lock.unlock()
    }

    var value: UInt64 { lock.lock(); defer { lock.unlock() }; return latest }
}
