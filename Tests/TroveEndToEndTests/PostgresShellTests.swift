import Foundation
import Testing
import TrovePostgres
#if canImport(Glibc)
import Glibc
#endif

/// The `trove` binary on a PostgreSQL database: the server `make test` starts (see
/// Tests/TrovePostgresTests/PostgresTestServer.swift); skipped without `TROVE_TEST_POSTGRES_URL`.
@Suite(.enabled(if: PostgresServer.url != nil, "TROVE_TEST_POSTGRES_URL is not set: run `make test`"))
struct PostgresShellTests {

    let w: Workspace
    /// The server's URL, in a PostgreSQL schema of this test's own.
    let url: String

    init() throws {
        w = try Workspace()
        let name = "e2e_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresConnection(url: PostgresServer.url!).execute("CREATE SCHEMA \(name)")
        url = PostgresServer.url! + "&options=-csearch_path%3D\(name)"
    }

    @Test func runsTheShellsStatementsOnTheServer() throws {
        let sample = URL(fileURLWithPath: Workspace.schema("People")).deletingLastPathComponent().appendingPathComponent("People-sample.jsonl").path
        let load = try w.run([url, "--schema", Workspace.schema("People"), "import Person \(sample)"])
        #expect(load.status == 0, "\(load.err)")
        #expect(load.out == #"{"inserted": 10}"# + "\n")
        let r = try w.run([url, "-c", "Person where age > 30 SORT(age DESC) LIMIT(2)", "-c", "count Dog", "-c", ".models",
                           "-c", "update Person 1 set age = 99", "-c", "get Person 1", "-c", "delete Person where age < 30",
                           "-c", "count Person"])
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 9, "\(r.out)")
        #expect(lines.first?.contains(#""id": 6"#) == true, "\(r.out)")
        #expect(lines.contains("Person") && lines.contains("Dog"))
        #expect(lines.contains { $0.hasPrefix(#"{"id": 1, "name": "Ann Lee""#) && $0.contains(#""age": 99"#) }, "\(r.out)")
        let explain = try w.run([url, "explain Person where name == 'x; DROP TABLE \"Person\"'"])
        #expect(explain.status == 0, "\(explain.err)")
        // The statement holds a placeholder; the plan shows the bound value as a constant.
        let plan = try JSONSerialization.jsonObject(with: Data(explain.out.utf8)) as? [String: Any]
        let sql = plan?["sql"] as? String ?? ""
        #expect(sql.contains("$1") && !sql.contains("DROP"), "\(explain.out)")
    }

    @Test func hostileStringsAreStoredAndMatchedExactly() throws {
        try w.write("s.json", #"{"models": [{"name": "order", "primaryKey": "select", "properties": {"select": "string", "from": "string?"}}]}"#)
        let hostile = [#"it's"#, #"back\\slash"#, "$1", #"'; DROP TABLE \"order\"; --"#, #"\"quoted\""#]
        for (i, value) in hostile.enumerated() {
            let r = try w.run([url, "--schema", "s.json", #"insert order {"select": "k\#(i)", "from": "\#(value)"}"#])
            #expect(r.status == 0, "\(r.err)")
        }
        for (i, value) in hostile.enumerated() {
            let r = try w.run([url, "--arg", try JSONSerialization.jsonObject(with: Data("\"\(value)\"".utf8), options: .fragmentsAllowed) as! String,
                               "count order where from == $0", "order where from == $0"])
            #expect(r.status == 0, "\(r.err)")
            #expect(r.out.hasPrefix("1\n") && r.out.contains(#""select": "k\#(i)""#), "\(value): \(r.out)")
        }
    }

    @Test func aFailedWriteChangesNothing() throws {
        try w.write("s.json", #"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int"}}]}"#)
        #expect(try w.run([url, "--schema", "s.json", #"insert Item {"id": 1}"#]).status == 0)
        let failed = try w.run([url, #"insert Item [{"id": 2}, {"id": 1}]"#])
        #expect(failed.status == 1 && failed.err.contains("already has an object with this primary key"), "\(failed.err)")
        let tx = try w.run([url, "-c", "begin", "-c", #"insert Item {"id": 3}"#, "-c", "rollback", "-c", "count Item"])
        #expect(tx.status == 0 && tx.out.hasSuffix("1\n"), "\(tx.out)\(tx.err)")
    }

    @Test func watchSeesCommitsOfAnotherProcess() throws {
        let setup = try w.run([url, "-s", Workspace.schema("People"), #"insert Person [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}]"#])
        #expect(setup.status == 0, "\(setup.err)")
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: TroveBinary.path)
        watcher.arguments = [url, "watch Person SORT(id)"]
        let output = Pipe(), errors = Pipe()
        watcher.standardOutput = output
        watcher.standardError = errors
        watcher.standardInput = FileHandle.nullDevice
        try watcher.run()
        let lines = WatchTests.Lines(output.fileHandleForReading)
        #expect(try #require(lines.next()).hasPrefix(#"{"id": 1, "name": "Ann""#))
        #expect(try #require(lines.next()).hasPrefix(#"{"id": 2, "name": "Bob""#))
        #expect(try w.run([url, #"insert Person {"id": 3, "name": "Cy"}"#]).status == 0)
        #expect(try #require(lines.next()) == #"{"op": "insert", "index": 2, "object": {"id": 3, "name": "Cy", "birthdate": null, "age": null, "dogs": [], "nicknames": [], "bestFriend": null}}"#)
        #expect(try w.run([url, "update Person 1 set age = 30"]).status == 0)
        #expect(try #require(lines.next()).hasPrefix(#"{"op": "update", "index": 0, "object": {"id": 1, "name": "Ann", "birthdate": null, "age": 30"#))
        #expect(try w.run([url, "delete Person 2"]).status == 0)
        #expect(try #require(lines.next()).hasPrefix(#"{"op": "delete", "index": 1, "object": {"id": 2"#))
        kill(watcher.processIdentifier, SIGINT)
        watcher.waitUntilExit()
        #expect(watcher.terminationReason == .exit && watcher.terminationStatus == 0)
        #expect(errors.fileHandleForReading.readDataToEndOfFile().isEmpty)
    }

    @Test func aWrongPasswordOrAnUnreachableServerIsAClearErrorWithStatus2() throws {
        let wrong = try w.run([PostgresServer.url! + "&password=hunter2-wrong", "count Item"])
        #expect(wrong.status == 2)
        #expect(wrong.err.contains("password authentication failed") && !wrong.err.contains("hunter2"), "\(wrong.err)")
        let unreachable = try w.run(["postgresql://trove:s3cret@127.0.0.1:1/trove?connect_timeout=2", "count Item"])
        #expect(unreachable.status == 2)
        #expect(unreachable.err.contains("cannot connect to PostgreSQL") && !unreachable.err.contains("s3cret"), "\(unreachable.err)")
    }
}

enum PostgresServer {
    static let url = ProcessInfo.processInfo.environment["TROVE_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
}
