import Trove

/// A failure of the PostgreSQL backend: connecting, a statement the server refused, or a
/// schema or query it cannot carry out. The message never holds a password.
public struct PostgresError: DescribedError, Sendable, Equatable {
    public var message: String
    /// The server's SQLSTATE code, when the server reported the failure (`23505` for a
    /// unique violation, `28P01` for a wrong password).
    public var sqlState: String?

    /// For a failed `COPY ... FROM STDIN`, the line of its input the server refused (from 1).
    public var copyLine: Int?

    /// The server's context of the failure (`while updating tuple (0,1) in relation "Person"`).
    public var context: String?

    /// The server's detail of the failure (`Key (id)=(1) already exists.`).
    public var detail: String?

    /// The name of the constraint the statement broke (`Person_friend_fkey`), in any
    /// `lc_messages`: unlike `detail`, it is never translated.
    public var constraint: String?

    /// Whether the schema given to an open was refused because the database would need a
    /// migration this backend does not run (a change that is not additive, or a lower
    /// `schemaVersion`); opening without a schema reads the database as it is.
    public var refusedMigration: Bool

    public init(_ message: String, sqlState: String? = nil, copyLine: Int? = nil, context: String? = nil, refusedMigration: Bool = false) {
        self.message = message
        self.sqlState = sqlState
        self.copyLine = copyLine
        self.context = context
        self.refusedMigration = refusedMigration
    }

    public var description: String { message }

    /// The refusal of text holding a NUL character, which PostgreSQL text cannot hold, for
    /// the property `property` of `model` (or element `element`, from 1, of its list) of the
    /// object `record` (`with primary key 7`, `at position 2`) when the caller knows which.
    static func nulCharacter(model: String, property: String, element: Int? = nil, record: String? = nil) -> PostgresError {
        var place = "\(CoercionError.place(property: property, element: element)) of '\(model)'"
        if let record { place += " in the object \(record)" }
        return nulCharacter(in: place)
    }

    /// The refusal of a query's constant holding a NUL character: a string literal, or the
    /// argument `$argument` (the shell's `--arg` value of that name), element `element` (from
    /// 1) of a list argument.
    static func nulCharacter(argument: Int?, element: Int? = nil) -> PostgresError {
        guard let argument else { return nulCharacter(in: "this string literal") }
        return nulCharacter(in: element.map { "element \($0) of $\(argument)" } ?? "$\(argument)")
    }

    /// The refusal of the text of statement parameter `parameter` (from 1) holding a NUL
    /// character: what the connection says, which knows no model or property.
    static func nulCharacter(parameter: Int) -> PostgresError {
        nulCharacter(in: "parameter $\(parameter)")
    }

    /// The one wording of every refusal of text holding a NUL, `place` saying where it was to go.
    private static func nulCharacter(in place: String) -> PostgresError {
        PostgresError("the text for \(place) has a NUL character, which PostgreSQL text cannot hold")
    }

    /// Whether the connection to the server is gone (it shut down, crashed or ended this
    /// session): SQLSTATE class 08, or 57P01-57P03. Nothing uncommitted was written; a
    /// transaction lost during its commit may have been committed (`isOutcomeUnknown`).
    public var isConnectionLost: Bool {
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }

    /// Whether the connection was lost while a `COMMIT` ran, or a write outside a transaction
    /// (which commits by itself) (SQLSTATE 08007, "transaction resolution unknown"): the
    /// server may have committed the transaction before the
    /// connection went, or not, and libpq cannot tell which. Read the rows again (on a new
    /// connection) to learn it; `isConnectionLost` is true too.
    public var isOutcomeUnknown: Bool { sqlState == "08007" }

    /// Whether another client's commit conflicted with this transaction (SQLSTATE 40001, a
    /// serialization failure, or 40P01, a deadlock): the server rolled it back, and running it
    /// again may succeed.
    public var isSerializationFailure: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// Whether the server gave up waiting for a lock another client holds (SQLSTATE 55P03,
    /// after the session's `lock_timeout`): the statement was cancelled.
    public var isLockTimeout: Bool { sqlState == "55P03" }
}
