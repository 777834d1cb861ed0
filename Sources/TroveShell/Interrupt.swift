#if canImport(Glibc)
import Glibc
#endif
import Synchronization

private let interruptFlag = Atomic<Bool>(false)

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

    /// Sets the flag, as the signal handler does; for tests and for cancelling from code.
    public static func request() { interruptFlag.store(true, ordering: .relaxed) }

    /// Catches SIGINT for the rest of the process. Without SA_RESTART, so that a blocked
    /// read returns EINTR and the line editor gives control back.
    static func installHandler() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interruptFlag.store(true, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGINT, &action, nil)
    }
}
