#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TroveStorage

/// What the live layer reacts to: a commit reached the store. Everything live (results
/// controllers, live results, object observers) is driven by this one input, whatever its
/// source, so a new source of commits only has to produce notices.
struct CommitNotice: Sendable {
    /// The version the commit produced.
    let version: UInt64
    /// The commit's changes by model name when known (a commit made through the same
    /// ``Store``); nil when it came from elsewhere (another `Store` on the file, another
    /// process), which means: re-read and compare.
    let changes: [String: ModelChanges]?

    /// Whether the commit may have changed something in `models`.
    func mayTouch(_ models: Set<String>) -> Bool {
        guard let changes else { return true }
        return changes.keys.contains { models.contains($0) }
    }
}

/// A subscription to every commit to a store's file, turned into ``CommitNotice``s:
/// commits through the `Store` come with their changes (``Store/addObserver(_:)``), others
/// (another `Store` on the file, another process) as a bare version
/// (``Store/observeCommits(_:)``). Cancelled on release.
final class CommitFeed: @unchecked Sendable {
    private let store: Store
    private let lock = Lock()
    private var token: UUID?
    private var observation: CommitObservation?

    /// Calls `handler` on the committing thread (or the store's watcher thread) after each
    /// commit; keep handlers short and hand the work to a queue.
    init(store: Store, _ handler: @escaping @Sendable (CommitNotice) -> Void) {
        self.store = store
        token = store.addObserver { commit in
            handler(CommitNotice(version: commit.version, changes: commit.changes))
        }
        observation = store.observeCommits { [store] version in
            // A commit through this Store is announced again, with its changes, right after.
            if store.isWritingOnCurrentThread { return }
            handler(CommitNotice(version: version, changes: nil))
        }
    }

    func cancel() {
        lock.lock()
        let t = token, o = observation
        token = nil
        observation = nil
        lock.unlock()
        if let t { store.removeObserver(t) }
        o?.cancel()
    }

    deinit { cancel() }
}

extension Schema {
    /// `model` and every model reachable from it through links, lists and linkingObjects: all
    /// that a predicate, a sort key or a closure reading an object of `model` can depend on.
    func modelsReachable(from model: String) -> Set<String> {
        var seen: Set<String> = [model]
        var stack = [model]
        while let name = stack.popLast() {
            for p in self[name]?.properties ?? [] {
                if let target = p.objectType, seen.insert(target).inserted { stack.append(target) }
            }
        }
        return seen
    }
}
