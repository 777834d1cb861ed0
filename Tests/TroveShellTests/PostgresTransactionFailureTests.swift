import Testing
import Trove
import TrovePostgres
import PostgresTestSupport
@testable import TroveShell

/// A failed transaction on PostgreSQL is the shell's (`TransactionFailure`), in its words,
/// whichever statement failed it.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresTransactionFailureTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int", "n": "int"}},
                    {"name": "Other", "properties": {"n": "int"}}]}
        """#.utf8), fileName: "items")

    /// Lines read one at a time; before the line at an index, what `before` holds for it runs.
    final class ScriptedLines: LineSource {
        private let lines: [String]
        private let before: [Int: () throws -> Void]
        private var index = 0
        private(set) var failures: [any Error] = []

        init(_ lines: [String], before: [Int: () throws -> Void]) {
            self.lines = lines
            self.before = before
        }

        func readLine() -> String? {
            guard index < lines.count else { return nil }
            defer { index += 1 }
            do { try before[index]?() } catch { failures.append(error) }
            return lines[index]
        }

        func takeRemainingInput() -> (buffered: [UInt8], fd: Int32?, firstLine: Int) { ([], nil, index + 1) }
    }

    /// A query that PostgreSQL cancels with a serialization failure (it reads an old version
    /// of a row another client's transaction wrote, which itself read around a third's write
    /// committed first) fails the transaction as a failed write does: later statements and the
    /// commit are refused in the shell's words.
    @Test func aSerializationFailureOnAQueryFailsTheTransactionInTheShellsWords() throws {
        let url = try PostgresTestServer.freshURL()
        let store = try PostgresStore(url: url, schema: Self.schema)
        try store.insert("Item", ["id": 1, "n": 0])
        try store.insert("Item", ["id": 2, "n": 0])
        try store.insert("Other", ["n": 0])
        let writer = try PostgresConnection(url: url), pivot = try PostgresConnection(url: url)
        let lines = ScriptedLines(["begin;", "count Other;", "Item where id == 1;", "count Item;", "commit;"], before: [2: {
            try writer.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
            try writer.execute(#"UPDATE "Item" SET n = 1 WHERE id = 2"#)
            try pivot.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
            try pivot.execute(#"SELECT n FROM "Item" WHERE id = 2"#)
            try pivot.execute(#"UPDATE "Item" SET n = 1 WHERE id = 1"#)
            try writer.execute("COMMIT")
            try pivot.execute("COMMIT")
        }])
        let out = StringOutput(), err = StringOutput()
        let status = Shell.run(arguments: [url], stdout: out, stderr: err, terminal: ShellRunTests.pipes,
                               standardInput: lines, openBackend: { try PostgresBackend.open($0) })
        #expect(lines.failures.isEmpty, "\(lines.failures)")
        #expect(status == 1)
        let errors = err.text.split(separator: "\n").map(String.init)
        try #require(errors.count == 3, "\(err.text)")
        #expect(errors[0].contains("could not serialize access") && errors[0].hasSuffix("run it again"), "\(errors[0])")
        #expect(errors[1].contains("the transaction failed (could not serialize access")
                && errors[1].hasSuffix("); statements are refused until 'rollback'"), "\(errors[1])")
        #expect(errors[2].contains("the transaction was rolled back, not committed: a statement in it failed (could not serialize access"),
                "\(errors[2])")
        #expect(try store.objects("Item SORT(id)").objects == [[1, 1], [2, 1]])
    }
}
