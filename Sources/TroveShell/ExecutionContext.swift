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
    private let standardInputStream: (() -> (buffered: [UInt8], fd: Int32?, firstLine: Int))?

    public init(arguments: [String], emit: @escaping (JSONObject) -> Void = { _ in }, progress: ProgressBar? = nil,
                standardInput: (() -> [UInt8])? = nil) {
        self.arguments = arguments
        self.emitter = emit
        self.progressBar = progress
        self.standardInput = standardInput ?? { (try? FileInput.readAll(nil)) ?? [] }
        self.standardInputStream = standardInput == nil ? { ([], STDIN_FILENO, 1) } : nil
    }

    /// A context whose standard input streams (the shell's own).
    init(arguments: [String], emit: @escaping (JSONObject) -> Void, progress: ProgressBar?,
         standardInputStream: @escaping () -> (buffered: [UInt8], fd: Int32?, firstLine: Int)) {
        self.arguments = arguments
        self.emitter = emit
        self.progressBar = progress
        self.standardInput = {
            let (buffered, fd, _) = standardInputStream()
            guard fd != nil else { return buffered }
            return buffered + ((try? FileInput.readAll(nil)) ?? [])
        }
        self.standardInputStream = standardInputStream
    }

    /// True once the user pressed Ctrl-C; long statements poll it and stop early
    /// (throwing, so that a write rolls back).
    public var isCancelled: Bool { Interrupt.isRequested }

    /// Prints a result as the statement's own result would be, at once (the first results
    /// of `watch`, before its events).
    public func show(_ result: ShellResult) { printer(result) }

    /// Set by the shell: how `show` prints.
    var printer: (ShellResult) -> Void = { _ in }

    /// Prints one object at once, as a JSON line, whatever the mode: `watch` events.
    public func emit(_ object: JSONObject) { emitter(object) }

    /// Prints one JSON value at once, as a line, whatever the mode: a watched aggregate's new value.
    public func emit(value: Value) { valueEmitter(value) }

    /// Set by the shell: how `emit(value:)` prints.
    var valueEmitter: (Value) -> Void = { _ in }

    /// Reports progress of a long import or export: drawn on standard error only when it
    /// is a terminal. `total` may be nil when unknown.
    public func progress(completed: Int, total: Int?) {
        progressBar?.update(completed: completed, total: total)
    }

    /// Erases the progress bar; the shell also does this after the statement.
    public func finishProgress() { progressBar?.finish() }

    /// FILE for `import`, opened to be read in chunks; `-` is standard input. A file that
    /// cannot be read is an error at FILE's place in the statement.
    public func openInput(_ file: SourceFragment) throws -> StatementInput {
        guard file.text == "-" else {
            do { return try StatementInput.open(path: file.text) } catch { throw error.placed(at: file.offset) }
        }
        if let standardInputStream {
            let (buffered, fd, firstLine) = standardInputStream()
            return StatementInput(name: "-", prefix: buffered, fd: fd, ownsDescriptor: false, firstLine: firstLine)
        }
        return StatementInput(name: "-", prefix: standardInput(), fd: nil, ownsDescriptor: false)
    }

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
