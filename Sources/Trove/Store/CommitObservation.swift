#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TroveStorage

extension Store {
    /// Calls `handler` after every commit to this store's file, by this `Store`, another
    /// `Store` on the file or another process.
    ///
    /// ```swift
    /// let observation = store.observeCommits { commit in
    ///     print("now at version", commit.version)
    /// }
    /// ```
    /// A commit through this `Store` is reported on the committing thread, once, with its
    /// changes; others are reported on a watcher thread without them (several in quick
    /// succession may come as one, with the newest version). Keep the handler short and hand
    /// the work to a queue. Observation stops when the returned object is cancelled or released.
    ///
    /// The handler runs once the transaction has ended: on the committing thread no write is
    /// open, so a write the handler makes (``write(_:)``, or a ``TroveRepository`` save) is a
    /// transaction of its own, committed when it returns, not a part of the one reported. Its
    /// commit is reported once the commit being reported has reached every handler, so each
    /// handler sees commits in order.
    ///
    /// A vacuum's commits are not reported: they move pages and change no object, so an
    /// observer is not woken for them, whether ``vacuum()`` made them or the automatic vacuum
    /// (``StoreConfiguration/compactsAutomatically``) after a commit through this `Store` (which is
    /// reported, with a version before the vacuum's). So the versions reported may skip some.
    /// A vacuum by another `Store` or process is reported as its other commits are, without
    /// changes: the file does not tell its commits apart. When another `Store` or process
    /// commits between two commits of this one, the later of those is reported (also) without
    /// changes, as the other's may have been folded into it, so nothing committed goes unseen.
    public func observeCommits(_ handler: @escaping @Sendable (StoreCommit) -> Void) -> CommitObservation {
        CommitObservation(store: self, handler)
    }
}

/// A running observation of a store's commits (``Store/observeCommits(_:)``); it stops when
/// cancelled or released.
public final class CommitObservation: @unchecked Sendable {
    private let store: Store
    private let lock = Lock()
    private var token: UUID?
    private var fileObserver: CommitObserver?

    init(store: Store, _ handler: @escaping @Sendable (StoreCommit) -> Void) {
        self.store = store
        let ledger = CommitLedger(version: store.storage.latestTransactionID)
        token = store.addChangeObserver { commit in
            ledger.noteReported(commit.version)
            handler(commit)
        }
        fileObserver = store.storage.observeCommits { [store] version in
            // A commit through this Store is announced again, with its changes, right after;
            // the automatic vacuum commits inside the write that set it off. Neither the
            // automatic vacuum's commits nor `vacuum()`'s change an object. The ledger reports
            // one of them all the same when another's commit came between.
            let own = store.isWritingOnCurrentThread || store.isVacuumingOnCurrentThread
            guard ledger.shouldReport(version, own: own) else { return }
            handler(StoreCommit(version: version, changes: nil))
        }
    }

    /// Stops the observation. Idempotent.
    public func cancel() {
        lock.lock()
        let t = token, o = fileObserver
        token = nil
        fileObserver = nil
        lock.unlock()
        if let t { store.removeChangeObserver(t) }
        o?.cancel()
    }

    deinit { cancel() }
}
