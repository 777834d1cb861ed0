#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Calls a handler after each commit to a store, whichever process or `Storage` made it.
///
/// Commits through the observed `Storage` are reported at once, on the committing thread.
/// Commits by other processes (or other `Storage` instances on the same file) are noticed
/// through inotify on the lock file, which the committer writes to after each commit: no
/// polling, typically within a millisecond. The handler gets the newest transaction id; several
/// commits in quick succession may be reported once. Stop with ``cancel()`` (or release it).
public final class CommitObserver: @unchecked Sendable {
    private let storage: Storage
    private let handler: @Sendable (UInt64) -> Void
    private let lock = Lock()
    private var lastSeen: UInt64
    private var cancelled = false
    private var inotifyFD: Int32 = -1
    private var wakePipe: (read: Int32, write: Int32) = (-1, -1)

    init(storage: Storage, handler: @escaping @Sendable (UInt64) -> Void) {
        self.storage = storage
        self.handler = handler
        lastSeen = storage.latestTransactionID
        storage.addCommitObserver(ObjectIdentifier(self)) { [weak self] txnid in self?.deliver(txnid) }
        if let path = storage.lockFile.flatMap({ $0.path == "(memory)" ? nil : $0.path }) { startWatching(path) }
    }

    deinit { cancel() }

    /// Stops observing. Idempotent.
    public func cancel() {
        lock.lock()
        if cancelled { lock.unlock(); return }
        cancelled = true
        let pipeWrite = wakePipe.write
        lock.unlock()
        storage.removeCommitObserver(ObjectIdentifier(self))
        if pipeWrite >= 0 {
            var b: UInt8 = 1
            _ = write(pipeWrite, &b, 1)
        }
    }

    private func deliver(_ txnid: UInt64) {
        lock.lock()
        guard !cancelled, txnid > lastSeen else { lock.unlock(); return }
        lastSeen = txnid
        lock.unlock()
        handler(txnid)
    }

    private func startWatching(_ path: String) {
        let fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0, inotify_add_watch(fd, path, UInt32(IN_MODIFY)) >= 0 else {
            if fd >= 0 { close(fd) }
            return
        }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { close(fd); return }
        inotifyFD = fd
        wakePipe = (fds[0], fds[1])
        // A queue of its own: the loop blocks in poll(2) until cancelled.
        DispatchQueue(label: "trove.commit-observer").async { [self] in self.watchLoop() }
    }

    private func watchLoop() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var polls = [pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0),
                         pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)]
            let n = poll(&polls, 2, -1)
            if n < 0 && errno == EINTR { continue }
            lock.lock()
            let stop = cancelled
            lock.unlock()
            if stop || polls[1].revents != 0 { break }
            if polls[0].revents != 0 {
                _ = buffer.withUnsafeMutableBytes { read(inotifyFD, $0.baseAddress!, $0.count) }
                deliver(storage.latestTransactionID)
            }
        }
        close(inotifyFD)
        close(wakePipe.read)
        close(wakePipe.write)
    }
}

extension Storage {
    /// Starts observing commits (see ``CommitObserver``); keep the returned observer alive.
    public func observeCommits(_ handler: @escaping @Sendable (_ transactionID: UInt64) -> Void) -> CommitObserver {
        CommitObserver(storage: self, handler: handler)
    }
}
