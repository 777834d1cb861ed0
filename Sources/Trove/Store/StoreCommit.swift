/// A commit that reached a store's file, as ``Store/observeCommits(_:)`` reports it.
public struct StoreCommit: Sendable {
    /// The version the commit produced: the ``Snapshot/version`` a read begun after it sees.
    public let version: UInt64
    /// The commit's changes by model name when known: a commit made through the observing
    /// ``Store``. Nil for a commit from elsewhere (another `Store` on the file, another
    /// process), which means: re-read and compare.
    public let changes: [String: ModelChanges]?

    /// Whether the commit may have changed something in `models`.
    func mayTouch(_ models: Set<String>) -> Bool {
        guard let changes else { return true }
        return changes.keys.contains { models.contains($0) }
    }
}
