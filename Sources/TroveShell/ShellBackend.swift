/// What the shell needs from a store, and all it knows of one.
///
/// The shell parses the command line, splits and recognizes statements, prints results and
/// runs the REPL; a backend interprets recognized statements against a store. Errors a
/// backend throws are printed as `error: ...`: throw `StatementError` with an offset
/// (UTF-8, from the statement's start) to have the line and column named.
public protocol ShellBackend: AnyObject {
    /// The store's models in schema order, for `.models`, `.schema` and tab completion.
    func models() throws -> [ModelDescription]

    /// Runs one statement other than `begin`/`commit`/`rollback` (which have their own
    /// methods) and `export` (which arrives as its `.query`; the shell writes the file).
    /// A write outside an explicit transaction must be atomic and committed before this
    /// returns.
    func execute(_ statement: ShellStatement, context: ExecutionContext) throws -> ShellResult

    /// Starts an explicit transaction around the following statements.
    func begin() throws
    func commit() throws
    func rollback() throws
    /// Whether an explicit transaction is open (write summaries wait for its commit).
    var isInTransaction: Bool { get }
}
