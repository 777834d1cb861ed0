#if canImport(Glibc)
import Glibc
#endif
import Synchronization

private let interruptFlag = Atomic<Bool>(false)
/// The write end of the self-pipe the handler wakes readers through (-1 before install).
private let wakeUpWriteEnd = Atomic<Int32>(-1)
/// The signal the handler last caught, which `deferringExit` raises again once its statement stopped.
private let receivedSignal = Atomic<Int32>(0)

/// Ctrl-C in the interactive shell: it cancels the input line or the running statement
/// instead of ending the process.
///
/// The SIGINT handler only sets a flag (all a signal handler may safely do); the line
/// editor sees its read interrupted, and a running statement polls `isRequested` through
/// `ExecutionContext.isCancelled`.
public enum Interrupt {
    /// Whether Ctrl-C was pressed since the last `clear()`.
    public static var isRequested: Bool { interruptFlag.load(ordering: .relaxed) }

    /// Forgets an earlier Ctrl-C (before reading a line or running a statement).
    public static func clear() { interruptFlag.store(false, ordering: .relaxed) }

    /// Readable once Ctrl-C was pressed (a self-pipe): a reader polls it along with its
    /// input, so a signal arriving just before a blocking read is not missed. -1 before
    /// the handler is installed.
    nonisolated(unsafe) static private(set) var wakeUpReadEnd: Int32 = -1

    /// Empties the self-pipe after an interrupt was handled.
    static func drainWakeUps() {
        guard wakeUpReadEnd >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ read(wakeUpReadEnd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Blocks until `fd` is ready (input, or its other end gone) or Ctrl-C wakes the wait:
    /// true when `fd` is ready. Either way the caller checks whether it was cancelled, as the
    /// wake-up may have come from code (`context.cancel`) rather than a signal.
    static func waitForInput(on fd: Int32) throws -> Bool {
        var polled = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                      pollfd(fd: wakeUpReadEnd, events: Int16(POLLIN), revents: 0)]
        if poll(&polled, wakeUpReadEnd >= 0 ? 2 : 1, -1) < 0 {
            if errno == EINTR { return false }
            throw StatementError("watch: poll failed: \(SystemError(errno: errno).message)")
        }
        if polled[1].revents & Int16(POLLIN) != 0 { drainWakeUps() }
        return polled[0].revents != 0
    }

    /// Sets the flag, as the signal handler does; for tests and for cancelling from code.
    public static func request() { interruptFlag.store(true, ordering: .relaxed) }

    /// Runs `body` with Ctrl-C caught (so that it can stop a `watch` cleanly, and the
    /// statements after it still run), then puts back how SIGINT was handled before.
    static func catching<R>(_ body: () throws -> R) rethrows -> R {
        var previous = sigaction()
        sigaction(SIGINT, nil, &previous)
        installHandler()
        defer { sigaction(SIGINT, &previous, nil) }
        return try body()
    }

    /// Runs `body`, a statement that must clean up when stopped, with Ctrl-C, SIGTERM and
    /// SIGHUP caught where they would end the process (SIGINT in a script or `-c`; SIGTERM
    /// and SIGHUP everywhere); once `body` has stopped and cleaned up, the process ends by
    /// the signal that came, as it would have. A signal already caught (Ctrl-C in the REPL)
    /// or ignored is left as it is.
    static func deferringExit<R>(_ body: () throws -> R) rethrows -> R {
        var deferred: [(signal: Int32, previous: sigaction)] = []
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            var previous = sigaction()
            sigaction(signal, nil, &previous)
            if previous.__sigaction_handler.sa_handler == nil { deferred.append((signal, previous)) }
        }
        guard !deferred.isEmpty else { return try body() }
        receivedSignal.store(0, ordering: .relaxed)
        for (signal, _) in deferred { installHandler(for: signal) }
        defer {
            for entry in deferred {
                var previous = entry.previous
                sigaction(entry.signal, &previous, nil)
            }
            let signal = receivedSignal.load(ordering: .relaxed)
            if deferred.contains(where: { $0.signal == signal }) { raise(signal) }
        }
        return try body()
    }

    /// Catches SIGINT for the rest of the process. Without SA_RESTART, so that a blocked
    /// read returns EINTR and the line editor gives control back.
    static func installHandler() { installHandler(for: SIGINT) }

    /// Catches `signal` as Ctrl-C: it sets the flag that stops the running statement.
    private static func installHandler(for signal: Int32) {
        if wakeUpWriteEnd.load(ordering: .relaxed) < 0 {
            var fds: [Int32] = [-1, -1]
            if pipe(&fds) == 0 {
                for fd in fds {
                    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                }
                wakeUpReadEnd = fds[0]
                wakeUpWriteEnd.store(fds[1], ordering: .relaxed)
            }
        }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            receivedSignal.store(signal, ordering: .relaxed)
            interruptFlag.store(true, ordering: .relaxed)
            let fd = wakeUpWriteEnd.load(ordering: .relaxed)
            if fd >= 0 {
                var byte: UInt8 = 1
                _ = write(fd, &byte, 1)
            }
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(signal, &action, nil)
        // A launcher may have left SIGINT blocked (exec keeps the mask); the REPL needs it.
        guard signal == SIGINT else { return }
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, signal)
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
    }
}
