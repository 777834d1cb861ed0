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
    // The write end of the pipe that wakes the watch loop; the loop owns the read end.
    private var wakeWrite: Int32 = -1

    init(storage: Storage, handler: @escaping @Sendable (UInt64) -> Void) {
        self.storage = storage
        self.handler = handler
        lastSeen = storage.latestTransactionID
        storage.addCommitObserver(ObjectIdentifier(self)) { [weak self] txnid in self?.deliver(txnid) }
        if let path = storage.lockFile.flatMap({ $0.path == "(memory)" ? nil : $0.path }) { startWatching(path) }
    }

    deinit {
        cancel()
        // Closed here, not by the loop: `cancel()` may still write to it after the loop is gone.
        if wakeWrite >= 0 { close(wakeWrite) }
    }

    /// Stops observing. Idempotent.
    public func cancel() {
        lock.lock()
        if cancelled { lock.unlock(); return }
        cancelled = true
        let pipeWrite = wakeWrite
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
        let wakeRead = fds[0]
        wakeWrite = fds[1]
        // A queue of its own, as the loop blocks in poll(2). It holds the observer weakly, so
        // that releasing the observer cancels it (`deinit`), which wakes the loop to end.
        DispatchQueue(label: "trove.commit-observer").async { [weak self] in
            Self.watch(inotifyFD: fd, wakeRead: wakeRead) { self }
        }
    }

    private static func watch(inotifyFD: Int32, wakeRead: Int32, observer: () -> CommitObserver?) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var polls = [pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0),
                         pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let n = poll(&polls, 2, -1)
            if n < 0 && errno == EINTR { continue }
            // `cancel()` writes to the pipe; `deliver` drops anything after it meanwhile.
            guard polls[1].revents == 0, let observer = observer() else { break }
            if polls[0].revents != 0 {
                _ = buffer.withUnsafeMutableBytes { read(inotifyFD, $0.baseAddress!, $0.count) }
                observer.deliver(observer.storage.latestTransactionID)
            }
        }
        close(inotifyFD)
        close(wakeRead)
    }
}

extension Storage {
    /// Starts observing commits (see ``CommitObserver``); keep the returned observer alive.
    public func observeCommits(_ handler: @escaping @Sendable (_ transactionID: UInt64) -> Void) -> CommitObserver {
        CommitObserver(storage: self, handler: handler)
    }
}
