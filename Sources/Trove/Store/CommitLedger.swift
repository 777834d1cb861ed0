import TroveStorage

/// The newest version one commit observation has accounted for, reported or left out, so that
/// leaving out a commit of its own `Store` never hides another's.
///
/// Versions go up by one a commit. A commit of this `Store` (a write, announced again with its
/// changes, or a vacuum's, which changes no object) is left out only when it follows the
/// version accounted for: when it skips some, another `Store` or process committed in between,
/// and the storage layer, which reports only the newest version, has folded that commit into
/// this one. Such a commit is reported without changes, so observers re-read.
final class CommitLedger: @unchecked Sendable {
    private let lock = Lock()
    private var accounted: UInt64

    init(version: UInt64) {
        accounted = version
    }

    /// Records that `version` reached the observation; whether to report it, where `own` says
    /// that this `Store` made it and reports it another way, or not at all.
    func shouldReport(_ version: UInt64, own: Bool) -> Bool {
        lock.lock(); defer { lock.unlock() }
        let follows = version == accounted &+ 1
        accounted = max(accounted, version)
        return !(own && follows)
    }

    /// Records a version reported with its changes.
    func noteReported(_ version: UInt64) {
        lock.lock(); defer { lock.unlock() }
        accounted = max(accounted, version)
    }
}
