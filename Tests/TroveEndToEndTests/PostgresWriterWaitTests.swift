import Foundation
import TestWaits
import Testing
import TrovePostgres
#if canImport(Glibc)
import Glibc
#endif

/// `--timeout` and `.timeout` on PostgreSQL, as on a store: a write that meets another client's
/// lock fails after its timeout (the session's `lock_timeout`) naming the server process that
/// holds it, changing nothing; `wait` waits until that client is done. Every wait on a `trove`
/// has its own ``WaitBudget``, and one that runs out is a failure rather than a hang.
@Suite(PostgresServer.isGiven)
struct PostgresWriterWaitTests {
    let w: Workspace, url: String

    init() throws {
        (w, url) = try PostgresServer.workspace()
        let r = try w.run([url, "-s", Workspace.schema("People"), #"insert Person [{"id": 1, "name": "Ann", "age": 10}, {"id": 2, "name": "Bob", "age": 20}]"#])
        #expect(r.status == 0, "\(r.err)")
    }

    /// Another client, with an open transaction that holds `lock` (a statement that takes it).
    func holder(_ lock: String) throws -> (connection: PostgresConnection, pid: String) {
        let connection = try PostgresConnection(url: url)
        let pid = try connection.execute("SELECT pg_backend_pid()").rows[0][0]!
        try connection.execute("BEGIN")
        try connection.execute(lock)
        return (connection, pid)
    }

    func ages() throws -> String { try w.run([url, "-c", "get Person 1", "-c", "get Person 2"]).out }

    @Test func aWriteGivesUpAfterItsTimeoutNamingTheProcessThatHoldsTheLock() throws {
        let before = try ages()
        let (row, pid) = try holder(#"UPDATE "Person" SET age = 11 WHERE id = 1"#)
        let r = try w.run([url, "--timeout", "100", "update Person 1 set age = 12"], budget: WaitBudget.budget)
        #expect(!r.timedOut, "the write did not give up")
        #expect(r.status == 1)
        #expect(r.err.contains("database 'trove' is being written by PostgreSQL process \(pid): gave up waiting for its lock after 100 ms"), "\(r.err)")
        // `.timeout 0` fails at once, and the transaction the write was in changes nothing.
        let tx = try w.run([url, "-c", "begin", "-c", "update Person 2 set age = 21", "-c", ".timeout 0",
                            "-c", "update Person 1 set age = 12", "-c", "commit"], budget: WaitBudget.budget)
        #expect(!tx.timedOut, "the write did not give up")
        #expect(tx.status == 1)
        #expect(tx.err.contains("PostgreSQL process \(pid): gave up waiting for its lock after 1 ms"), "\(tx.err)")
        try row.execute("ROLLBACK")
        let after = try ages()
        #expect(after == before, "\(after)")
        #expect(try w.run([url, "-c", ".timeout 0", "-c", ".show"]).out.contains("timeout: 0 ms"))

        // A table lock names no row, so no process: the message says so.
        let (table, _) = try holder(#"LOCK TABLE "Person" IN EXCLUSIVE MODE"#)
        defer { _ = try? table.execute("ROLLBACK") }
        let locked = try w.run([url, "-c", ".timeout 50", "-c", "delete Person 2"], budget: WaitBudget.budget)
        #expect(!locked.timedOut, "the write did not give up")
        #expect(locked.status == 1)
        #expect(locked.err.contains("database 'trove' is being written by another client (PostgreSQL did not say which process holds the lock): gave up waiting for its lock after 50 ms"),
                "\(locked.err)")
    }

    @Test func aWriteWaitsUntilTheOtherClientIsDone() throws {
        // The holder locks the row without changing it: a change would fail the waiter's
        // serializable transaction once committed, rather than let it go on.
        let (row, pid) = try holder(#"SELECT age FROM "Person" WHERE id = 1 FOR UPDATE"#)
        let waiter = Process()
        waiter.executableURL = URL(fileURLWithPath: TroveBinary.path)
        waiter.arguments = [url, "--timeout", "wait", "update Person 1 set age = 12"]
        let errors = Pipe()
        waiter.standardError = errors
        waiter.standardOutput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        waiter.terminationHandler = { _ in exited.signal() }
        try waiter.run()
        // Committed only once the waiter's statement waits for the holder's lock. PostgreSQL
        // tells no one when a lock is waited for: the monitor looks every 10 ms, within the budget.
        let monitor = try PostgresConnection(url: url)
        let deadline = DispatchTime.now() + WaitBudget.budget
        while try monitor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted AND $1::int = ANY(pg_blocking_pids(pid))", [pid]).rows[0][0] == "0" {
            #expect(waiter.isRunning, "the waiter ended without waiting")
            guard waiter.isRunning else { break }
            guard DispatchTime.now() < deadline else {
                Issue.record("the waiter did not wait for the lock within the budget")
                break
            }
            usleep(10_000)
        }
        try row.execute("COMMIT")
        WaitBudget.waitForExit(waiter, exited, "the waiting writer")
        #expect(waiter.terminationStatus == 0, "\(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
        #expect(try w.run([url, "get Person 1"]).out.contains(#""age": 12"#))
    }
}
