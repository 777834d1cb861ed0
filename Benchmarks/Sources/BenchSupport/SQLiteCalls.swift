import CSQLite

/// The SQLite calls both benchmarks' SQLite engines make, with errors naming the statement.
public enum SQLiteCalls {
    public static func check(_ db: OpaquePointer?, _ rc: Int32, _ what: String) throws {
        guard rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW else {
            throw BenchError("SQLite \(what): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    public static func execute(_ db: OpaquePointer?, _ sql: String) throws {
        try check(db, sqlite3_exec(db, sql, nil, nil, nil), sql)
    }

    /// Runs `body` between `begin` and COMMIT; rolls back on error.
    public static func transaction<R>(_ db: OpaquePointer?, _ begin: String, _ body: () throws -> R) throws -> R {
        try execute(db, begin)
        do {
            let r = try body()
            try execute(db, "COMMIT")
            return r
        } catch {
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }
}
