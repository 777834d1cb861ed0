import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// How long a test waits for one thing another process or thread does, counted from when that
/// wait begins; a wait that runs out of it is an issue, so a test fails rather than hangs when
/// what it waits for never comes.
///
/// Suites that wait on others set no `.timeLimit`: Swift Testing starts that clock when a test
/// starts, and in a full run on a loaded machine a test may wait its turn for a thread longer
/// than any limit that would still catch a hang. Nor do they bound from above how long a wait
/// took: that is the machine's business.
public enum WaitBudget {
    /// The longest one wait may take: what it waits for is at most the start of a debug
    /// process, its open of a store and a notice after one second; a 2-core machine at a load
    /// of 10 does that in seconds.
    public static let budget: DispatchTimeInterval = .seconds(120)

    /// Waits for `semaphore` within the budget; false, and an issue naming `what`, if it ran out.
    @discardableResult
    public static func wait(for semaphore: DispatchSemaphore, _ what: String,
                            sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard semaphore.wait(timeout: .now() + budget) == .timedOut else { return true }
        Issue.record("\(what) did not come within the budget", sourceLocation: sourceLocation)
        return false
    }

    /// What `handle` yields until it has said `marker`, ended, or the budget ran out (an issue).
    public static func readUntil(_ handle: FileHandle, _ marker: String,
                                 sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let deadline = DispatchTime.now() + budget
        var data = Data()
        while !String(decoding: data, as: UTF8.self).contains(marker) {
            let now = DispatchTime.now()
            guard now < deadline else {
                Issue.record("no \(marker.debugDescription) within the budget; got \(String(decoding: data, as: UTF8.self).debugDescription)",
                             sourceLocation: sourceLocation)
                break
            }
            var ready = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let left = (deadline.uptimeNanoseconds - now.uptimeNanoseconds) / 1_000_000 + 1
            let n = poll(&ready, 1, Int32(min(left, UInt64(Int32.max))))
            if n < 0 && errno != EINTR { break }
            guard n > 0 else { continue }
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Waits for `process` to exit (`exited` is signalled by its termination handler); an
    /// issue, and the process killed, if it is still running when the budget runs out.
    public static func waitForExit(_ process: Process, _ exited: DispatchSemaphore, _ what: String,
                                   sourceLocation: SourceLocation = #_sourceLocation) {
        if !wait(for: exited, "the exit of \(what)", sourceLocation: sourceLocation) {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }

    /// Work on a thread of its own, for a test that waits on it within the budget: a call that
    /// should give up waiting, or that the test lets go on once it has seen it wait.
    public final class Thread: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var outcome: Result<Void, any Error>?

        /// Starts `work`.
        public init(_ work: @escaping @Sendable () throws -> Void) {
            Foundation.Thread.detachNewThread { [self] in
                let result = Result { try work() }
                lock.lock(); outcome = result; lock.unlock()
                done.signal()
            }
        }

        /// How the work ended; nil, and an issue naming `what`, if it had not ended when the
        /// budget ran out. The thread is then left waiting, for whatever the test does next
        /// (a commit, the end of the holder) to let it go.
        public func result(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) -> Result<Void, any Error>? {
            guard WaitBudget.wait(for: done, "the end of \(what)", sourceLocation: sourceLocation) else { return nil }
            lock.lock(); defer { lock.unlock() }
            return outcome
        }
    }
}
