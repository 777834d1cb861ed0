/// A failure of the PostgreSQL backend: connecting, a statement the server refused, or a
/// schema or query it cannot carry out. The message never holds a password.
public struct PostgresError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// The server's SQLSTATE code, when the server reported the failure (`23505` for a
    /// unique violation, `28P01` for a wrong password).
    public var sqlState: String?

    public init(_ message: String, sqlState: String? = nil) {
        self.message = message
        self.sqlState = sqlState
    }

    public var description: String { message }
}
