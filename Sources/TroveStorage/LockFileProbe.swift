/// What openers did with the lock files a test watches, which the test cannot see from outside:
/// how often an opener tried to take the init lock, how often a writer tried the writer lock
/// again while it waited, and how often a descriptor was let go. Paths nobody watches are not counted, so the cost outside tests is a lookup in an empty
/// dictionary, on paths that are rare already (a retry, a close).
final class LockFileProbe: @unchecked Sendable {
    static let shared = LockFileProbe()

    struct Counts: Equatable {
        /// Tries at the init lock, the first included.
        var initLockTries = 0
        /// Descriptors of the lock file closed.
        var releases = 0
        /// Tries at the writer lock after the first, which a writer makes only while it waits.
        var writerLockRetries = 0
    }

    private let lock = Lock()
    private var counts: [String: Counts] = [:]

    /// Starts counting for `path`, from zero.
    func watch(_ path: String) {
        lock.lock(); defer { lock.unlock() }
        counts[path] = Counts()
    }

    func stopWatching(_ path: String) {
        lock.lock(); defer { lock.unlock() }
        counts[path] = nil
    }

    func counts(of path: String) -> Counts {
        lock.lock(); defer { lock.unlock() }
        return counts[path] ?? Counts()
    }

    func record(_ path: String, _ change: (inout Counts) -> Void) {
        lock.lock(); defer { lock.unlock() }
        if var c = counts[path] {
            change(&c)
            counts[path] = c
        }
    }
}
