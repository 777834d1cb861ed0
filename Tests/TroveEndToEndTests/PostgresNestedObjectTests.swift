import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// An object the shell prints (a query's objects, `get`, `watch`) holds each link to a model
/// without a primary key nested, as `export` writes it: the same bytes on a store and on
/// PostgreSQL, in every output mode, also after a rolled-back write used up an internal key
/// on PostgreSQL that a store gives out again.
@Suite(PostgresServer.isGiven)
struct PostgresNestedObjectTests {
    let w: Workspace, url: String
    init() throws { (w, url) = try PostgresServer.workspace() }

    /// `PostgresNestedSelectTests`' objects, with a failed insert of a nested object before the
    /// last: its rollback leaves PostgreSQL's next `"@key"` one further than a store's.
    func load() throws {
        let schema = try w.write("shelves.json", PostgresNestedSelectTests.schema)
        let objects = PostgresNestedSelectTests.objects
        for target in ["a.trove", url] {
            let made = try w.run([target, "-s", schema] + objects.dropLast())
            #expect(made.status == 0, "\(target): \(made.err)")
            let failed = try w.run([target, #"insert Shelf {"id": 1, "top": {"label": "dup"}}"#])
            #expect(failed.status != 0 && failed.err.contains("already has an object with primary key 1"), "\(target): \(failed.err)")
            let last = try w.run([target, objects[objects.count - 1]])
            #expect(last.status == 0, "\(target): \(last.err)")
        }
    }

    @Test func anObjectPrintsItsLinksNestedInEveryModeAfterARolledBackWrite() throws {
        try load()
        let questions = ["Shelf SORT(id)", "Shelf where id == 3", "get Shelf 2 1 9", "Box where label == \"e\"", "Part SORT(n)"]
        for mode in ["json", "jsonl", "csv", "tsv", "table", "line", "markdown"] {
            let arguments = ["-c", ".mode \(mode)"] + questions.flatMap { ["-c", $0] }
            let store = try w.run(["a.trove"] + arguments)
            let server = try w.run([url] + arguments)
            #expect(store.status == 0 && server.status == 0, "\(mode): \(store.err)\(server.err)")
            #expect(Array(server.out.utf8) == Array(store.out.utf8), "\(mode):\n\(server.out)\nstore:\n\(store.out)")
        }
        let d = #"{"label": "d", "made": null, "price": null, "inner": null, "parts": [], "shelf": null, "tags": []}"#
        let f = #"{"label": "f", "made": null, "price": null, "inner": null, "parts": [], "shelf": null, "tags": []}"#
        let e = #"{"label": "e", "made": null, "price": null, "inner": \#(f), "parts": [], "shelf": null, "tags": []}"#
        for target in ["a.trove", url] {
            let got = try w.run([target, "--jsonl", "get Shelf 1"])
            #expect(got.out == #"{"id": 1, "top": \#(PostgresNestedSelectTests.firstTop), "boxes": [], "next": null}"# + "\n", "\(target): \(got.out)\(got.err)")
            let third = try w.run([target, "--jsonl", "Shelf where id == 3"])
            #expect(third.out == #"{"id": 3, "top": null, "boxes": [\#(d), \#(e)], "next": 2}"# + "\n", "\(target): \(third.out)\(third.err)")
            let keyless = try w.run([target, "--jsonl", #"Box where label == "e""#])
            #expect(keyless.out == e + "\n", "\(target): \(keyless.out)\(keyless.err)")
            // In a transaction, from its own writes.
            let inTransaction = try w.run([target, "--jsonl", "-c", "begin", "-c", #"insert Shelf {"id": 4, "top": {"label": "h"}}"#,
                                           "-c", "Shelf where id == 4", "-c", "get Shelf 4", "-c", "rollback"])
            let h = #"{"id": 4, "top": {"label": "h", "made": null, "price": null, "inner": null, "parts": [], "shelf": null, "tags": []}, "boxes": [], "next": null}"#
            #expect(inTransaction.out.components(separatedBy: "\n").filter { $0 == h }.count == 2, "\(target): \(inTransaction.out)\(inTransaction.err)")
        }
        for query in ["export Shelf SORT(id)", "export Box where label == \"e\""] {
            let store = try w.run(["a.trove", query]), server = try w.run([url, query])
            #expect(store.status == 0 && server.status == 0, "\(query): \(store.err)\(server.err)")
            #expect(Array(server.out.utf8) == Array(store.out.utf8), "\(query):\n\(server.out)\nstore:\n\(store.out)")
        }
    }

    /// A watched query prints its objects' links nested, and an event when a linked object changes.
    @Test func aWatchedQueryPrintsItsObjectsLinksNested() throws {
        try load()
        for target in ["a.trove", url] {
            let watcher = Process()
            watcher.executableURL = URL(fileURLWithPath: TroveBinary.path)
            watcher.arguments = [target == url ? url : w.path(target), "watch Shelf where id == 2"]
            let output = Pipe()
            watcher.standardOutput = output
            watcher.standardError = FileHandle.nullDevice
            watcher.standardInput = FileHandle.nullDevice
            try watcher.run()
            let lines = WatchTests.Lines(output.fileHandleForReading)
            let first = #"{"label": "c", "made": null, "price": null, "inner": null, "parts": [], "shelf": 1, "tags": []}"#
            #expect(try #require(lines.next()) == #"{"id": 2, "top": \#(first), "boxes": [], "next": 1}"#, "\(target)")
            #expect(try w.run([target, #"update Box where label == "c" set label = "g""#]).status == 0)
            let changed = #"{"label": "g", "made": null, "price": null, "inner": null, "parts": [], "shelf": 1, "tags": []}"#
            #expect(try #require(lines.next()) == #"{"op": "update", "index": 0, "object": {"id": 2, "top": \#(changed), "boxes": [], "next": 1}}"#, "\(target)")
            kill(watcher.processIdentifier, SIGINT)
            watcher.waitUntilExit()
            #expect(watcher.terminationReason == .exit && watcher.terminationStatus == 0)
        }
    }
}
