/// The backend of the `trove` binary until the object store exists: the shell's own
/// features work (options, dot-commands, modes, parsing), and every statement that needs
/// the store fails with a clear message and exit status 1.
public final class UnavailableBackend: ShellBackend {
    public init() {}

    public func models() throws -> [ModelDescription] { [] }

    public func execute(_ statement: ShellStatement, context: ExecutionContext) throws -> ShellResult {
        throw Self.unavailable(statement.keyword)
    }

    public func begin() throws { throw Self.unavailable("begin") }
    public func commit() throws { throw Self.unavailable("commit") }
    public func rollback() throws { throw Self.unavailable("rollback") }
    public var isInTransaction: Bool { false }

    private static func unavailable(_ keyword: String) -> StatementError {
        StatementError("cannot run '\(keyword)': this build of trove has no object store yet")
    }
}
