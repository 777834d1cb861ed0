import CLibPQ
#if canImport(Glibc)
import Glibc
#endif
import Trove

/// One connection to a PostgreSQL server through libpq, used from one thread at a time.
///
/// Statements run synchronously, as the shell does. Every value goes to the server as a
/// bound parameter in text format, never spliced into SQL.
public final class PostgresConnection {
    private let connection: OpaquePointer
    /// The forms of the password the URL carried, to be cut out of any message libpq writes.
    private let passwords: [String]
    /// How long a statement waits for a lock another client holds (`setLockTimeout(_:)`);
    /// nil: until it is released.
    public internal(set) var lockTimeout: Duration?

    /// Connects by a `postgres://` or `postgresql://` URL. What the URL leaves out comes from
    /// libpq's environment (`PGHOST`, `PGUSER`, `PGPASSWORD`, ...) and the password file
    /// (`~/.pgpass` or `PGPASSFILE`).
    public init(url: String) throws {
        guard Self.isURL(url) else {
            throw PostgresError("not a PostgreSQL URL: expected postgres://USER@HOST/DATABASE")
        }
        if let failure = trove_libpq_load() { throw PostgresError(String(cString: failure)) }
        let passwords = Self.passwords(in: url)
        guard let connection = PQconnectdb(url) else { throw PostgresError("cannot connect to PostgreSQL: out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.redact(String(cString: PQerrorMessage(connection)), passwords: passwords)
            PQfinish(connection)
            throw PostgresError("cannot connect to PostgreSQL: " + message)
        }
        self.connection = connection
        self.passwords = passwords
        // Notices ("relation already exists, skipping") are not the user's concern.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        _ = try execute("SET client_min_messages = warning")
        // Trove's SQL means PostgreSQL's built-ins whatever the user's schemas define (a `>` or
        // `abs` of theirs would otherwise be called instead): the search_path becomes the one
        // schema Trove's tables live in (`PostgresSearchPath`), which PostgreSQL searches after
        // pg_catalog when the path does not name it. Until then only qualified names are used.
        // The tables are named with that schema (`PostgresTables`), so that a model named like
        // a catalog table (`pg_type`) is still the model's (DEVELOPERS.md).
        schemaName = try PostgresSearchPath.tablesSchema(on: self)
        _ = try execute("SELECT pg_catalog.set_config('search_path', $1, false)", [namespace])
    }

    /// The PostgreSQL schema Trove's tables live in (`PostgresSearchPath`), and then the
    /// connection's whole search_path.
    package private(set) var schemaName = ""

    /// `schemaName` quoted, as SQL names it.
    package var namespace: String { PostgresTables.quoted(schemaName) }

    deinit { PQfinish(connection) }

    /// Whether `text` is a URL this backend opens (`postgres://` or `postgresql://`).
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// The database the connection reached.
    public var database: String { String(cString: PQdb(connection)) }

    /// How many statements `execute` has sent: what tests count to check that a reader's
    /// statements do not grow with the objects it reads.
    package private(set) var statementsSent = 0

    /// How many rows statements changed (inserted, updated, deleted, merged, copied), by their
    /// command tags and `noteRowsWritten`: by which a write that fails tells whether it left
    /// anything behind.
    private(set) var rowsWritten = 0

    /// Counts `count` rows a statement whose tag names none changed: a `SELECT` over a `WITH`
    /// that updates, whose tag counts the rows it returns.
    func noteRowsWritten(_ count: Int) {
        rowsWritten += count
    }

    /// The command tags whose count is of rows changed.
    private static let writingTags = ["INSERT ", "UPDATE ", "DELETE ", "MERGE ", "COPY "]

    /// Runs one statement with `parameters` bound to `$1`, `$2`, ... (nil is NULL).
    @discardableResult
    public func execute(_ sql: String, _ parameters: [String?] = []) throws -> PostgresRows {
        if let index = parameters.firstIndex(where: { $0?.utf8.contains(0) == true }) {
            throw PostgresError.nulCharacter(parameter: index + 1)
        }
        statementsSent += 1
        if isCopying { abandonCopy() }
        let cStrings: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { for pointer in cStrings { free(pointer) } }
        let name = try preparedName(sql, parameterCount: parameters.count)
        let result: OpaquePointer? = cStrings.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: max(buffer.count, 1)) { values in
                let values = parameters.isEmpty ? nil : values
                return name.map { PQexecPrepared(connection, $0, Int32(parameters.count), values, nil, nil, 0) }
                    ?? PQexecParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
            }
        }
        guard let result else { throw failure(String(cString: PQerrorMessage(connection)), sqlState: nil) }
        defer { PQclear(result) }
        do {
            try check(result)
        } catch let error as PostgresError where name != nil && error.sqlState == "0A000" {
            // Another client changed a table the cached plan reads ("cached plan must not change
            // result type"): prepared again at the next run.
            prepared[ExactText(sql)] = nil
            throw error
        }
        let columnCount = Int(PQnfields(result))
        let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        var rows: [[String?]] = []
        let rowCount = Int(PQntuples(result))
        rows.reserveCapacity(rowCount)
        for row in 0..<Int32(rowCount) {
            rows.append((0..<Int32(columnCount)).map { column in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            })
        }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        if affected > 0 {
            let tag = String(cString: PQcmdStatus(result))
            if Self.writingTags.contains(where: tag.hasPrefix) { rowsWritten += affected }
        }
        return PostgresRows(columns: columns, rows: rows, affected: affected)
    }

    /// Throws the error of a failed statement's `result`.
    private func check(_ result: OpaquePointer) throws {
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            var error = failure(primary ?? String(cString: PQresultErrorMessage(result)), sqlState: state)
            error.context = PQresultErrorField(result, Int32(UInt8(ascii: "W"))).map { String(cString: $0) }
            error.detail = PQresultErrorField(result, Int32(UInt8(ascii: "D"))).map { String(cString: $0) }
            error.constraint = PQresultErrorField(result, Int32(UInt8(ascii: "n"))).map { String(cString: $0) }
            // "COPY Person, line 3, column name: ..."
            if let context = error.context, context.hasPrefix("COPY "), let range = context.firstRange(of: ", line ") {
                error.copyLine = Int(context[range.upperBound...].prefix(while: \.isNumber))
            }
            throw error
        }
    }

    /// Runs `COPY ... FROM STDIN` (`sql`) with `data` as its input; returns how many rows it
    /// wrote. A row the server refuses fails the whole statement, with the error's `copyLine`.
    @discardableResult
    public func copy(_ sql: String, data: [UInt8]) throws -> Int {
        try beginCopy(sql)
        sendCopyData(data)
        return try endCopy()
    }

    /// Whether a COPY begun by `beginCopy` is open.
    private(set) var isCopying = false

    /// Starts `COPY ... FROM STDIN` (`sql`): until `endCopy()`, the connection takes only its
    /// data (`sendCopyData`), which the server reads as it arrives.
    func beginCopy(_ sql: String) throws {
        if isCopying { abandonCopy() }
        guard let start = PQexec(connection, sql) else { throw failure(String(cString: PQerrorMessage(connection)), sqlState: nil) }
        defer { PQclear(start) }
        guard PQresultStatus(start) == PGRES_COPY_IN else {
            try check(start)
            throw PostgresError("not a COPY FROM STDIN statement: \(sql)")
        }
        copyFailure = nil
        isCopying = true
    }

    /// Ends the open COPY as failed, so that the connection runs statements again: what it
    /// sent is not written (in a transaction, the transaction fails).
    private func abandonCopy() {
        isCopying = false
        copyFailure = nil
        guard PQputCopyEnd(connection, "abandoned: another statement ran before the COPY ended") == 1 else { return }
        while let result = PQgetResult(connection) { PQclear(result) }
    }

    /// Sends data of the open COPY. A failure to send is kept for `endCopy()`, which reports
    /// it (or the server's own account of it).
    func sendCopyData(_ data: [UInt8]) {
        guard copyFailure == nil, !data.isEmpty else { return }
        let sent = data.withUnsafeBytes { bytes in
            PQputCopyData(connection, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
        }
        if sent != 1 { copyFailure = failure(String(cString: PQerrorMessage(connection)), sqlState: nil) }
    }

    /// Ends the open COPY; returns how many rows it wrote.
    func endCopy() throws -> Int {
        guard isCopying else { throw PostgresError("no COPY is open: another statement ended it") }
        isCopying = false
        var error = copyFailure
        copyFailure = nil
        if error == nil, PQputCopyEnd(connection, nil) != 1 {
            error = failure(String(cString: PQerrorMessage(connection)), sqlState: nil)
        }
        var affected = 0
        while let result = PQgetResult(connection) {
            defer { PQclear(result) }
            do {
                try check(result)
                affected += Int(String(cString: PQcmdTuples(result))) ?? 0
                rowsWritten += Int(String(cString: PQcmdTuples(result))) ?? 0
            } catch let refused as PostgresError {
                // The server's own account of the failure is the better one.
                error = refused
            }
        }
        if let error { throw error }
        return affected
    }

    /// What failed in sending the open COPY's data.
    private var copyFailure: PostgresError?

    /// The name of the server-side prepared statement of `sql` (prepared at its first run), or
    /// nil for a statement that runs unprepared. Queries and writes repeat with other values:
    /// prepared once, the server parses and plans them once per connection, not at every run.
    private func preparedName(_ sql: String, parameterCount: Int) throws -> String? {
        if let name = prepared[ExactText(sql)] { return name }
        guard Self.preparedVerbs.contains(where: { sql.hasPrefix($0) }) else { return nil }
        if prepared.count >= Self.preparedLimit {
            try execute("DEALLOCATE ALL")
            prepared.removeAll()
        }
        preparedCount += 1
        let name = "trove_\(preparedCount)"
        guard let result = PQprepare(connection, name, sql, Int32(parameterCount), nil) else {
            throw failure(String(cString: PQerrorMessage(connection)), sqlState: nil)
        }
        defer { PQclear(result) }
        try check(result)
        prepared[ExactText(sql)] = name
        return name
    }

    /// The statements kept prepared: what the store runs again and again.
    private static let preparedVerbs = ["SELECT ", "INSERT ", "UPDATE ", "DELETE "]
    /// At most this many prepared statements per connection (each holds server memory).
    private static let preparedLimit = 500
    /// By the SQL's bytes: a text inlined in it is matched as written, so each spelling is a
    /// statement of its own.
    private var prepared: [ExactText: String] = [:]
    private var preparedCount = 0

    /// Forgets the prepared statements, after a schema change that can change what they read.
    public func deallocatePreparedStatements() throws {
        guard !prepared.isEmpty else { return }
        prepared.removeAll()
        try execute("DEALLOCATE ALL")
    }

    /// The error of a failed statement; when the server went away (shut down, crashed, or
    /// terminated this connection's backend) it says so, with SQLSTATE class 08 when the server
    /// sent none.
    private func failure(_ message: String, sqlState: String?) -> PostgresError {
        let message = Self.redact(message, passwords: passwords)
        guard PQstatus(connection) == CONNECTION_OK else {
            if isCommitting {
                return PostgresError("lost the connection to PostgreSQL during the commit: " + message
                                     + "; whether the transaction was committed is unknown", sqlState: "08007")
            }
            return PostgresError("lost the connection to PostgreSQL: " + message + "; the statement was not committed",
                                 sqlState: sqlState.flatMap { $0.hasPrefix("57P") || $0.hasPrefix("08") ? $0 : nil } ?? "08006")
        }
        return PostgresError(message, sqlState: sqlState)
    }

    /// The connection's socket, to wait on for notifications (see `takeNotifications`).
    public var socket: Int32 { PQsocket(connection) }

    /// Reads what the server sent and returns the payloads of the notifications received
    /// since the last call (after `LISTEN channel`); empty when none arrived.
    public func takeNotifications() throws -> [String] {
        guard PQconsumeInput(connection) == 1 else {
            throw PostgresError("lost the connection to PostgreSQL: " + Self.redact(String(cString: PQerrorMessage(connection)), passwords: passwords),
                                sqlState: "08006")
        }
        var payloads: [String] = []
        while let notification = PQnotifies(connection) {
            payloads.append(String(cString: notification.pointee.extra))
            PQfreemem(notification)
        }
        return payloads
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// A commit that loses the connection throws an error whose `isOutcomeUnknown` is true.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        let value: T
        do {
            value = try body()
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
        try commit()
        return value
    }

    /// Commits the open transaction. A connection lost once `COMMIT` was sent throws an error
    /// whose `isOutcomeUnknown` is true: the server may have committed before it went (as psql
    /// says, the connection was lost; libpq cannot tell which). One lost before `COMMIT` is
    /// sent is reported so too when libpq has not yet noticed it (the server rolls back a
    /// transaction whose session ends, but only the answer to `COMMIT` tells); when it has, as
    /// a plain lost connection.
    ///
    /// A transaction a failed statement left aborted is rolled back by the server at `COMMIT`,
    /// with no error: that throws, saying the transaction was rolled back, not committed.
    public func commit() throws {
        guard PQstatus(connection) == CONNECTION_OK else { throw failure(String(cString: PQerrorMessage(connection)), sqlState: nil) }
        if isCopying { abandonCopy() }
        isCommitting = true
        defer { isCommitting = false }
        guard let result = PQexec(connection, "COMMIT") else { throw failure(String(cString: PQerrorMessage(connection)), sqlState: nil) }
        defer { PQclear(result) }
        try check(result)
        let status = String(cString: PQcmdStatus(result))
        guard status == "COMMIT" else {
            throw PostgresError("the transaction was rolled back, not committed: a statement in it failed (the server answered COMMIT with \(status))",
                                sqlState: "25P02")
        }
    }

    /// Runs `body`, one statement committed by itself (outside a transaction), as a commit:
    /// a connection lost meanwhile throws an error whose `isOutcomeUnknown` is true, since the
    /// server may have committed the statement before it went.
    func committing<T>(_ body: () throws -> T) throws -> T {
        isCommitting = true
        defer { isCommitting = false }
        return try body()
    }

    /// Whether the open transaction is aborted by a failed statement: the server refuses
    /// every statement but a rollback (to a savepoint) until then.
    var isTransactionFailed: Bool { PQtransactionStatus(connection) == PQTRANS_INERROR }

    /// Whether a `COMMIT` is running, so that a connection lost says its outcome is unknown.
    private var isCommitting = false

    /// The forms of the password a URL names (`user:password@` or `password=`): libpq's
    /// reading, and the text as written and percent-decoded, found without libpq, since a URL
    /// it cannot parse still holds the password, and its error may quote it.
    static func passwords(in url: String) -> [String] {
        var found: [String] = []
        var error: UnsafeMutablePointer<CChar>?
        if trove_libpq_load() == nil, let options = PQconninfoParse(url, &error) {
            defer { PQconninfoFree(options) }
            var option = options
            while let keyword = option.pointee.keyword {
                if String(cString: keyword) == "password", let value = option.pointee.val { found.append(String(cString: value)) }
                option += 1
            }
        } else if let error {
            PQfreemem(error)
        }
        if let scheme = url.firstRange(of: "://") {
            // The userinfo ends at the authority's last `@`: a password may hold `@`, `/` or `?`
            // unencoded, and cutting too much out of an error is harmless.
            let rest = url[scheme.upperBound...]
            if let at = rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
                found.append(String(rest[rest.index(after: colon)..<at]))
            }
        }
        if let query = url.firstIndex(of: "?") {
            for parameter in url[url.index(after: query)...].split(separator: "&") where parameter.hasPrefix("password=") {
                found.append(String(parameter.dropFirst("password=".count)))
            }
        }
        found += found.compactMap(Self.percentDecoded)
        // Longest first, so that a password holding another is cut out whole.
        return Array(Set(found.filter { !$0.isEmpty })).sorted { $0.count > $1.count }
    }

    /// `text` with `%XX` escapes decoded; nil when it has none, or they are not UTF-8.
    private static func percentDecoded(_ text: String) -> String? {
        guard text.contains("%") else { return nil }
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// `text` with the password of every PostgreSQL URL in it replaced by `***`: what the
    /// shell keeps of a line (its history) that may name a database with its password.
    public static func redactingPasswords(in text: String) -> String {
        var passwords: [String] = []
        for scheme in ["postgres://", "postgresql://"] {
            var rest = text[...]
            while let start = rest.firstRange(of: scheme) {
                let url = rest[start.lowerBound...].prefix { !$0.isWhitespace && $0 != "'" && $0 != "\"" }
                passwords += Self.passwords(in: String(url))
                rest = rest[start.upperBound...]
            }
        }
        return redact(text, passwords: passwords.sorted { $0.count > $1.count }, trimming: false)
    }

    private static func redact(_ message: String, passwords: [String], trimming: Bool = true) -> String {
        var message = trimming ? trimmed(message) : message
        for password in passwords {
            message = message.split(separator: password, omittingEmptySubsequences: false).joined(separator: "***")
        }
        return message
    }

    private static func trimmed(_ message: String) -> String {
        var lines = message.split(separator: "\n").map { $0.trimmingSpaces() }
        lines.removeAll(where: \.isEmpty)
        return lines.joined(separator: "; ")
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
