/// What the command line asked for: `trove [OPTIONS] [DATABASE] [COMMAND ...]`.
public struct CommandLineOptions: Sendable, Equatable {
    /// Something to run before exiting, in command-line order.
    public enum Script: Sendable, Equatable {
        /// A `-c COMMAND` or a trailing COMMAND argument.
        case command(String)
        /// `-f FILE`; `-` is standard input.
        case file(String)
    }

    /// The store's file, `:memory:`, or nil for a transient in-memory store.
    public var database: String?
    /// `-c`, `-f` and trailing commands in order; empty means standard input or the REPL.
    public var scripts: [Script] = []
    public var schemaFile: String?
    public var readOnly = false
    public var resetOnMigration = false
    /// `--timeout MS|wait`, as given: how long a write waits for another writer.
    public var busyTimeout: String?
    /// `--key-file`: the file holding the store's encryption key.
    public var keyFile: String?
    /// nil: `table` when standard output is a terminal, `jsonl` otherwise.
    public var outputMode: OutputMode?
    /// `--headers` / `--no-headers`; nil: headers on.
    public var showHeaders: Bool?
    /// `--nullvalue TEXT`: what null prints as in the text modes.
    public var nullText: String?
    /// `--init FILE`: read instead of the default init file, in every mode.
    public var initFile: String?
    /// `--no-init`: read no init file.
    public var skipInit = false
    public var bail = false
    /// `--arg` values, bound to `$0`, `$1`, ...
    public var arguments: [String] = []
    public var showHelp = false
    public var showVersion = false

    public init() {}

    /// True when the database is a transient in-memory store.
    public var isInMemory: Bool { database == nil || database == ":memory:" }
}
