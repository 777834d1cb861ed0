import Foundation
import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// Concurrent writers and a server that goes away: no update is lost, nothing is half-written,
/// and the error says which of the two happened.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresFailureTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "Counter", "primaryKey": "id", "properties": {"id": "int", "n": "int"}}]}
        """#.utf8), fileName: "counter")

    static func n(_ store: PostgresStore) throws -> Int64 {
        guard case .int(let n)? = try store.objects("Counter where id == 1").objects.first?[1] else { throw PostgresError("no counter") }
        return n
    }

    /// Two clients read the counter, then both write what they read plus one: the second
    /// writer's statement fails with a serialization failure instead of losing the first's
    /// update, its transaction is refused until rolled back, and run again it counts on.
    @Test func aConcurrentUpdateOfTheSameObjectFailsRatherThanLosingAnUpdate() throws {
        let url = try PostgresTestServer.freshURL()
        let first = try PostgresStore(url: url, schema: Self.schema)
        let second = try PostgresStore(url: url)
        try first.insert("Counter", ["id": 1, "n": 0])

        try first.begin()
        try second.begin()
        let seenByFirst = try Self.n(first)
        let seenBySecond = try Self.n(second)
        try first.update("Counter", where: "id == 1", set: ["n": .int(seenByFirst + 1)])
        try first.commit()
        let error = try #require(throws: PostgresError.self) {
            try second.update("Counter", where: "id == 1", set: ["n": .int(seenBySecond + 1)])
        }
        #expect(error.isSerializationFailure && !error.isConnectionLost, "\(error)")
        #expect(error.message.contains("run it again"), "\(error)")
        #expect(throws: PostgresError.self) { try Self.n(second) }
        let commit = try #require(throws: PostgresError.self) { try second.commit() }
        #expect(commit.message.contains("rolled back, not committed"), "\(commit)")
        #expect(try Self.n(first) == 1)

        // Run again, the transaction sees the first client's update and adds to it.
        try second.begin()
        try second.update("Counter", where: "id == 1", set: ["n": .int(try Self.n(second) + 1)])
        try second.commit()
        #expect(try Self.n(first) == 2)
    }

    /// A write conflict found only at commit (each client read what the other wrote) fails the
    /// commit, leaving the other client's commit whole.
    @Test func aConflictFoundAtCommitFailsTheCommit() throws {
        let url = try PostgresTestServer.freshURL()
        let first = try PostgresStore(url: url, schema: Self.schema)
        let second = try PostgresStore(url: url)
        try first.insert("Counter", ["id": 1, "n": 0])
        try first.insert("Counter", ["id": 2, "n": 0])
        try first.begin()
        try second.begin()
        // Write skew: each reads the sum of both and writes it into its own counter.
        let sumFirst = try first.run("sum Counter.n")
        let sumSecond = try second.run("sum Counter.n")
        try first.update("Counter", where: "id == 1", set: ["n": 10])
        try second.update("Counter", where: "id == 2", set: ["n": 20])
        #expect(sumFirst == sumSecond)
        try first.commit()
        let error = try #require(throws: PostgresError.self) { try second.commit() }
        #expect(error.isSerializationFailure, "\(error)")
        #expect(!second.isInTransaction)
        #expect(try first.run("sum Counter.n") == .value("sum", .int(10)))
    }

    /// Two clients replace one object's list at once: the one that waited for the other's
    /// rows finds their positions taken when the other commits, and fails as a conflict to
    /// run again (not as a duplicate primary key, which it is not), writing nothing.
    @Test func aListReplacedByAnotherClientMeanwhileFailsAsAConflict() throws {
        let schema = try Schema(jsonData: Array(#"""
            {"models": [{"name": "Note", "primaryKey": "id", "properties": {"id": "int", "tags": "string[]"}}]}
            """#.utf8), fileName: "notes")
        let url = try PostgresTestServer.freshURL()
        let first = try PostgresStore(url: url, schema: schema)
        try first.insert("Note", ["id": 1, "tags": ["a"]])
        let firstPID = try #require(try first.connection.execute("SELECT pg_backend_pid()").rows.first?.first ?? nil)
        let observer = try PostgresConnection(url: url)
        try first.begin()
        try first.update("Note", where: "id == 1", set: ["tags": ["b", "c"]])

        let second = Unchecked(try PostgresStore(url: url))
        let outcome = Outcome.running {
            try second.value.update("Note", where: "id == 1", set: ["tags": ["d"]])
        }
        _ = try ServerCondition.waitFor(on: observer, "SELECT pid FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))", [firstPID])
        try first.commit()
        let error = try #require(outcome.wait() as? PostgresError)
        #expect(error.message.contains("another client committed a change to the same objects first") && error.message.contains("run it again"), "\(error)")
        #expect(try first.objects("Note where id == 1").json.first?["tags"] == .array([.string("b"), .string("c")]))
        try second.value.update("Note", where: "id == 1", set: ["tags": ["d"]])
        #expect(try first.objects("Note where id == 1").json.first?["tags"] == .array([.string("d")]))
    }

    /// Inside an open transaction, a list's rows whose positions another client took
    /// meanwhile fail the transaction as a conflict does: its commit commits nothing of it,
    /// as the error says.
    @Test func aListConflictInATransactionFailsTheTransaction() throws {
        let schema = try Schema(jsonData: Array(#"""
            {"models": [{"name": "Note", "primaryKey": "id", "properties": {"id": "int", "tags": "string[]"}}]}
            """#.utf8), fileName: "notes")
        let url = try PostgresTestServer.freshURL()
        let first = try PostgresStore(url: url, schema: schema)
        try first.insert("Note", ["id": 1])
        let firstPID = try #require(try first.connection.execute("SELECT pg_backend_pid()").rows.first?.first ?? nil)
        let observer = try PostgresConnection(url: url)
        try first.begin()
        try first.update("Note", where: "id == 1", set: ["tags": ["b"]])

        let second = Unchecked(try PostgresStore(url: url))
        try second.value.begin()
        try second.value.insert("Note", ["id": 2])
        let outcome = Outcome.running {
            try second.value.update("Note", where: "id == 1", set: ["tags": ["d"]])
        }
        _ = try ServerCondition.waitFor(on: observer, "SELECT pid FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))", [firstPID])
        try first.commit()
        let error = try #require(outcome.wait() as? PostgresError)
        #expect(error.isSerializationFailure && error.message.hasSuffix("the transaction is rolled back, run it again"), "\(error)")
        #expect(throws: PostgresError.self) { try second.value.commit() }
        #expect(try first.count("Note") == 1)
        #expect(try first.objects("Note where id == 1").json.first?["tags"] == .array([.string("b")]))
    }

    /// An update giving a primary key checks it in the statement that writes: a row another
    /// client's commit gave another key while the update waited for it is not written as if
    /// it had the key given.
    @Test func aKeyChangedByAnotherClientWhileAnUpdateWaitsIsNotWrittenOver() throws {
        let url = try PostgresTestServer.freshURL()
        let store = try PostgresStore(url: url, schema: Self.schema)
        try store.insert("Counter", ["id": 1, "n": 5])
        let blocker = try PostgresConnection(url: url)
        let blockerPID = try #require(try blocker.execute("SELECT pg_backend_pid()").rows.first?.first ?? nil)
        try blocker.execute("BEGIN")
        try blocker.execute(#"UPDATE "Counter" SET id = 2 WHERE id = 1"#)

        let writer = Unchecked(store)
        let outcome = Outcome.running {
            try writer.value.update("Counter", where: "n == 5", set: ["id": 1, "n": 6])
        }
        let observer = try PostgresConnection(url: url)
        _ = try ServerCondition.waitFor(on: observer, "SELECT pid FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))", [blockerPID])
        try blocker.execute("COMMIT")
        _ = outcome.wait()
        #expect(try observer.execute(#"SELECT id::text, n::text FROM "Counter""#).rows == [["2", "5"]])
    }

    /// A store at `url` holding Counter 1, and a connection whose open transaction locks the
    /// Counter table, so that a write from another session waits on it; with that
    /// connection's backend pid.
    static func lockedCounter(_ url: String) throws -> (observer: PostgresStore, blocker: PostgresConnection, blockerPID: String) {
        let observer = try PostgresStore(url: url, schema: Self.schema)
        try observer.insert("Counter", ["id": 1, "n": 0])
        let blocker = try PostgresConnection(url: url)
        try blocker.execute("BEGIN")
        try blocker.execute(#"LOCK TABLE "Counter" IN ACCESS EXCLUSIVE MODE"#)
        let blockerPID = try #require(try blocker.execute("SELECT pg_backend_pid()").rows.first?.first ?? nil)
        return (observer, blocker, blockerPID)
    }

    /// The server ends the session while a write waits on a lock: the write throws an error
    /// whose `isConnectionLost` is true, and nothing of it is in the database.
    @Test func aSessionEndedMidStatementThrowsAConnectionLostErrorAndWritesNothing() throws {
        let url = try PostgresTestServer.freshURL()
        let (observer, blocker, blockerPID) = try Self.lockedCounter(url)

        let victim = Unchecked(try PostgresStore(url: url))
        let outcome = Outcome.running {
            let victim = victim.value
            try victim.begin()
            try victim.insert("Counter", ["id": 2, "n": 2])
            try victim.update("Counter", where: "id == 1", set: ["n": 5])
            try victim.commit()
        }
        // Wait for the victim's statement to block behind the lock, then end its session.
        let waiting = try ServerCondition.waitFor(on: observer.connection,
                                                  "SELECT pid FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))", [blockerPID])
        try observer.connection.execute("SELECT pg_terminate_backend($1::int)", [waiting])
        let error = try #require(outcome.wait() as? PostgresError)
        #expect(error.isConnectionLost && !error.isSerializationFailure, "\(error)")
        #expect(error.message.contains("lost the connection to PostgreSQL"), "\(error)")
        try blocker.execute("ROLLBACK")
        #expect(try observer.count("Counter") == 1)
        #expect(try Self.n(observer) == 0)
    }

    /// Many statements that fail in an open transaction leave no savepoint behind: each one's
    /// is released after it is rolled back to.
    @Test func failedStatementsInATransactionLeaveNoSavepoint() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.schema)
        try store.insert("Counter", ["id": 1, "n": 0])
        try store.begin()
        for _ in 0..<70 {
            #expect(throws: StoreError.self) { try store.insert("Counter", ["id": 1, "n": 1]) }
        }
        try store.insert("Counter", ["id": 2, "n": 2])
        let error = try #require(throws: PostgresError.self) { try store.connection.execute("RELEASE SAVEPOINT trove_statement") }
        #expect(error.sqlState == "3B001", "\(error)")
        try store.rollback()
    }

    /// A unit started in a transaction a statement failed is refused as a statement is, before
    /// it sends anything, and so is a unit started in one that serialization failed.
    @Test func aUnitInAFailedTransactionIsRefusedWithTheFailure() throws {
        let url = try PostgresTestServer.freshURL()
        let first = try PostgresStore(url: url, schema: Self.schema)
        try first.insert("Counter", ["id": 1, "n": 0])
        let inner = try #require(throws: PostgresError.self) {
            try first.atomically {
                _ = try? first.insert("Counter", ["id": 1, "n": 1])
                try first.atomically { try first.insert("Counter", ["id": 2, "n": 2]) }
            }
        }
        #expect(inner.message.hasPrefix("the transaction failed (") && inner.message.contains("refused until rollback"), "\(inner)")

        let second = try PostgresStore(url: url)
        try first.begin()
        try second.begin()
        _ = try Self.n(first)
        _ = try Self.n(second)
        try first.update("Counter", where: "id == 1", set: ["n": 1])
        try first.commit()
        var thrown: (any Error)?
        do {
            try second.atomically {
                #expect(throws: PostgresError.self) { try second.atomically { _ = try second.update("Counter", where: "id == 1", set: ["n": 2]) } }
                try second.atomically {}
            }
        } catch {
            thrown = error
        }
        let outer = try #require(thrown as? PostgresError)
        #expect(outer.isSerializationFailure && outer.message.hasPrefix("the transaction failed ("), "\(outer)")
        try second.rollback()
    }

    /// The server ends the session while a write outside a transaction (committed by itself)
    /// waits on a lock: the server may have committed it, so its outcome is unknown.
    @Test(arguments: ["delete", "update", "insert"])
    func aSessionEndedDuringAWriteOfItsOwnLeavesTheOutcomeUnknown(write: String) throws {
        let url = try PostgresTestServer.freshURL()
        let (observer, blocker, blockerPID) = try Self.lockedCounter(url)
        let victim = Unchecked(try PostgresStore(url: url))
        let outcome = Outcome.running {
            let victim = victim.value
            switch write {
            case "delete": _ = try victim.delete("Counter", where: "id == 1")
            case "update": _ = try victim.update("Counter", where: "id == 1", set: ["n": 5])
            default: try victim.insert("Counter", ["id": 2, "n": 2])
            }
        }
        let waiting = try ServerCondition.waitFor(on: observer.connection,
                                                  "SELECT pid FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))", [blockerPID])
        try observer.connection.execute("SELECT pg_terminate_backend($1::int)", [waiting])
        let error = try #require(outcome.wait() as? PostgresError)
        #expect(error.isOutcomeUnknown && error.isConnectionLost, "\(error)")
        try blocker.execute("ROLLBACK")
    }
}

/// A value handed to one other thread, which alone uses it from then on.
final class Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A result one thread hands to another, waited for on a condition.
final class Outcome: @unchecked Sendable {
    private let condition = NSCondition()
    private var done = false
    private var error: (any Error)?

    func finish(_ error: (any Error)?) {
        condition.lock()
        self.error = error
        done = true
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` on a thread of its own; ``wait()`` gives what it threw.
    static func running(_ body: @escaping @Sendable () throws -> Void) -> Outcome {
        let outcome = Outcome()
        Thread {
            do {
                try body()
                outcome.finish(nil)
            } catch {
                outcome.finish(error)
            }
        }.start()
        return outcome
    }

    /// The error the other thread finished with (nil when it succeeded).
    func wait() -> (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        while !done { condition.wait() }
        return error
    }
}

/// Waits for a condition only the server can see (a backend blocked on a lock), by asking it
/// until the answer comes: each question is a round trip, not a sleep.
enum ServerCondition {
    /// The first value of the first row `sql` returns, once it returns one.
    static func waitFor(on connection: PostgresConnection, _ sql: String, _ parameters: [String?], attempts: Int = 1_000_000) throws -> String {
        for _ in 0..<attempts {
            if let value = try connection.execute(sql, parameters).rows.first?.first ?? nil { return value }
        }
        throw PostgresError("the server never showed: \(sql)")
    }
}
