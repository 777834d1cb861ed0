/// The session's `lock_timeout`, and the words of a statement it cancelled: the same shape as a
/// store's `writerBusy`, naming the server process that held the lock when it can be found.
extension PostgresConnection {
    /// Makes statements wait at most `timeout` for a lock another client holds (nil: until it is
    /// released), by the session's `lock_timeout`. Zero, which `lock_timeout` reads as "no limit",
    /// becomes its smallest limit, 1 ms: the wait ends at once. Set in an open transaction, it
    /// lasts only if the transaction commits, as `SET` does.
    public func setLockTimeout(_ timeout: Duration?) throws {
        try execute("SELECT set_config('lock_timeout', $1, false)", [Self.lockTimeoutSetting(timeout)])
        lockTimeout = timeout
    }

    /// The `lock_timeout` setting for `timeout`: "0" (no limit) for nil, else whole milliseconds,
    /// at least 1.
    static func lockTimeoutSetting(_ timeout: Duration?) -> String {
        guard let timeout else { return "0" }
        return "\(max(1, timeout.milliseconds))ms"
    }

    /// A lock timeout's `error` as a store says `writerBusy`: the database, the server process
    /// that holds the lock (or that it could not be found), and how long the statement waited.
    /// Call it once the statement's transaction or savepoint has rolled back, so that the
    /// connection runs statements again.
    public func lockTimeoutFailure(_ error: PostgresError) -> PostgresError {
        let waited = max(1, (lockTimeout ?? .zero).milliseconds)
        let who = lockHolder(error).map { "PostgreSQL process \($0)" }
            ?? "another client (PostgreSQL did not say which process holds the lock)"
        return PostgresError("database '\(database)' is being written by \(who): gave up waiting for its lock after \(waited) ms",
                             sqlState: error.sqlState, context: error.context)
    }

    /// The server process whose transaction holds the row lock `error` waited for: the one whose
    /// transaction id is in the row's `xmax` (the row named by the error's context, `while
    /// updating tuple (0,1) in relation "Person"`). Nil for a table lock, a row several
    /// transactions share, or a holder that has finished meanwhile: once the server cancels the
    /// wait, `pg_blocking_pids` no longer knows it.
    private func lockHolder(_ error: PostgresError) -> Int32? {
        guard let context = error.context, let tupleStart = context.firstRange(of: " tuple (")?.upperBound,
              let tupleEnd = context[tupleStart...].firstIndex(of: ")"),
              let relationStart = context.firstRange(of: " in relation \"")?.upperBound,
              let relationEnd = context[relationStart...].lastIndex(of: "\"") else { return nil }
        let tuple = "(" + context[tupleStart..<tupleEnd] + ")"
        let relation = PostgresTables.quoted(String(context[relationStart..<relationEnd]))
        let sql = """
            SELECT l.pid FROM pg_catalog.pg_locks AS l WHERE l.locktype = 'transactionid' AND l.granted AND l.pid <> pg_backend_pid()
              AND l.transactionid::pg_catalog.text = (SELECT xmax::pg_catalog.text FROM \(relation) WHERE ctid = $1::pg_catalog.tid)
            """
        guard let rows = try? execute(sql, [tuple]).rows, rows.count == 1, let pid = rows[0].first ?? nil else { return nil }
        return Int32(pid)
    }
}

extension Duration {
    /// The duration in whole milliseconds.
    fileprivate var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
