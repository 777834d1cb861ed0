#if canImport(Glibc)
import Glibc
#endif
import Trove

/// What a backend may use while running a statement, besides the statement itself.
public final class ExecutionContext {
    /// The `--arg` values, bound to `$0`, `$1`, ...: always as values, never as query text.
    public let arguments: [String]
    private let emitter: (JSONObject) -> Void
    private let progressBar: ProgressBar?
    private let standardInput: () -> [UInt8]

    public init(arguments: [String], emit: @escaping (JSONObject) -> Void = { _ in }, progress: ProgressBar? = nil,
                standardInput: (() -> [UInt8])? = nil) {
        self.arguments = arguments
        self.emitter = emit
        self.progressBar = progress
        self.standardInput = standardInput ?? { (try? FileInput.readAll(nil)) ?? [] }
    }

    /// True once the user pressed Ctrl-C; long statements poll it and stop early
    /// (throwing, so that a write rolls back).
    public var isCancelled: Bool { Interrupt.isRequested }

    /// Prints one object at once, as a JSON line, whatever the mode: `watch` events.
    public func emit(_ object: JSONObject) { emitter(object) }

    /// Reports progress of a long import or export: drawn on standard error only when it
    /// is a terminal. `total` may be nil when unknown.
    public func progress(completed: Int, total: Int?) {
        progressBar?.update(completed: completed, total: total)
    }

    /// Erases the progress bar; the shell also does this after the statement.
    public func finishProgress() { progressBar?.finish() }

    /// The contents of FILE for `import`; `-` reads standard input to its end.
    public func readFile(_ path: String) throws -> [UInt8] {
        if path == "-" { return standardInput() }
        do {
            return try FileInput.readAll(path)
        } catch {
            throw StatementError("cannot read '\(path)': \(error.message)")
        }
    }
}
