import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A SELECT item or GROUP key that is a link to a model without a primary key (or a path
/// through a list to such links) prints the linked object nested, as `export` writes it: the
/// same bytes on a store and on PostgreSQL, in every output mode, in `export` and in `watch`.
@Suite(PostgresServer.isGiven)
struct PostgresNestedSelectTests {
    let w: Workspace, url: String
    init() throws { (w, url) = try PostgresServer.workspace() }

    /// `Box`'s properties are not in alphabetical order: a nested object keeps schema order.
    static let schema = #"""
        {"models": [{"name": "Shelf", "primaryKey": "id", "properties": {"id": "int", "top": "Box?", "boxes": "Box[]", "next": "Shelf?"}},
                    {"name": "Box", "properties": {"label": "string", "made": "date?", "price": "decimal?", "inner": "Box?", "parts": "Part[]", "shelf": "Shelf?", "tags": "string[]"}},
                    {"name": "Part", "properties": {"n": "int"}}]}
        """#

    static let objects = [
        #"insert Shelf {"id": 1, "top": {"label": "a", "made": "2024-05-01T12:00:00Z", "price": "1.25", "inner": {"label": "b", "parts": [{"n": 1}, {"n": 2}]}, "tags": ["x", "y"]}}"#,
        #"insert Shelf {"id": 2, "next": 1, "top": {"label": "c", "shelf": 1}}"#,
        #"insert Shelf {"id": 3, "next": 2, "boxes": [{"label": "d"}, {"label": "e", "inner": {"label": "f"}}]}"#,
    ]

    /// The `top` of Shelf 1 as `export` writes it, and as a SELECT of it prints.
    static let firstTop = #"{"label": "a", "made": "2024-05-01T12:00:00Z", "price": "1.25", "inner": {"label": "b", "made": null, "price": null, "inner": null, "parts": [{"n": 1}, {"n": 2}], "shelf": null, "tags": []}, "parts": [], "shelf": null, "tags": ["x", "y"]}"#

    func load() throws -> String {
        let schema = try w.write("shelves.json", Self.schema)
        for target in ["a.trove", url] {
            let made = try w.run([target, "-s", schema] + Self.objects)
            #expect(made.status == 0, "\(target): \(made.err)")
        }
        return schema
    }

    @Test func aSelectedLinkPrintsItsObjectAsExportWritesItInEveryMode() throws {
        _ = try load()
        let questions = [
            "Shelf SORT(id) SELECT(id, top, boxes, next.top AS nextTop, boxes.inner AS inners, next.boxes)",
            "Shelf where top != nil SORT(id DESC) SELECT(top.label, top.inner, top)",
            "Shelf GROUP(top) SELECT(top, @count)",
            "Shelf GROUP(next.top) SORT(@count DESC)",
        ]
        for mode in ["json", "jsonl", "csv", "tsv", "table", "line", "markdown"] {
            let arguments = ["-c", ".mode \(mode)"] + questions.flatMap { ["-c", $0] }
            let store = try w.run(["a.trove"] + arguments)
            let server = try w.run([url] + arguments)
            #expect(store.status == 0 && server.status == 0, "\(mode): \(store.err)\(server.err)")
            #expect(Array(server.out.utf8) == Array(store.out.utf8), "\(mode):\n\(server.out)\nstore:\n\(store.out)")
        }
        for target in ["a.trove", url] {
            let exported = try w.run([target, "export Shelf where id == 1"])
            #expect(exported.out.contains(#""top": \#(Self.firstTop)"#), "\(target): \(exported.out)")
            let selected = try w.run([target, "--jsonl", "Shelf where id == 1 SELECT(top)"])
            #expect(selected.out == #"{"top": \#(Self.firstTop)}"# + "\n", "\(target): \(selected.out)\(selected.err)")
            let listed = try w.run([target, "--jsonl", "Shelf where id == 3 SELECT(boxes, boxes.inner, top)"])
            #expect(listed.out == #"{"boxes": [{"label": "d", "made": null, "price": null, "inner": null, "parts": [], "shelf": null, "tags": []}, "#
                    + #"{"label": "e", "made": null, "price": null, "inner": {"label": "f", "made": null, "price": null, "inner": null, "parts": [], "shelf": null, "tags": []}, "parts": [], "shelf": null, "tags": []}], "#
                    + #""boxes.inner": [null, {"label": "f", "made": null, "price": null, "inner": null, "parts": [], "shelf": null, "tags": []}], "top": null}"# + "\n",
                    "\(target): \(listed.out)\(listed.err)")
            // Each object a group, null first, then in the order the objects were made.
            let grouped = try w.run([target, "--jsonl", "Shelf GROUP(top)"])
            #expect(grouped.out == #"{"top": null, "@count": 1}"# + "\n" + #"{"top": \#(Self.firstTop), "@count": 1}"# + "\n"
                    + #"{"top": {"label": "c", "made": null, "price": null, "inner": null, "parts": [], "shelf": 1, "tags": []}, "@count": 1}"# + "\n",
                    "\(target): \(grouped.out)\(grouped.err)")
        }
        for query in ["export Shelf SORT(id) SELECT(id, top, boxes)", "export Shelf GROUP(top) SELECT(top, @count)"] {
            let store = try w.run(["a.trove", query]), server = try w.run([url, query])
            #expect(store.status == 0 && server.status == 0, "\(query): \(store.err)\(server.err)")
            #expect(Array(server.out.utf8) == Array(store.out.utf8), "\(query):\n\(server.out)\nstore:\n\(store.out)")
            #expect(store.out.contains(Self.firstTop), "\(query): \(store.out)")
        }
    }

    /// A watched SELECT prints the linked object nested, and an event when it changes.
    @Test func aWatchedSelectPrintsTheLinkedObjectNested() throws {
        _ = try load()
        for target in ["a.trove", url] {
            let watcher = Process()
            watcher.executableURL = URL(fileURLWithPath: TroveBinary.path)
            watcher.arguments = [target == url ? url : w.path(target), "watch Shelf where id == 2 SELECT(id, top)"]
            let output = Pipe()
            watcher.standardOutput = output
            watcher.standardError = FileHandle.nullDevice
            watcher.standardInput = FileHandle.nullDevice
            try watcher.run()
            let lines = WatchTests.Lines(output.fileHandleForReading)
            let empty = #"{"label": "c", "made": null, "price": null, "inner": null, "parts": [], "shelf": 1, "tags": []}"#
            #expect(try #require(lines.next()) == #"{"id": 2, "top": \#(empty)}"#, "\(target)")
            #expect(try w.run([target, #"upsert Shelf {"id": 2, "top": {"label": "g"}}"#]).status == 0)
            let replaced = #"{"label": "g", "made": null, "price": null, "inner": null, "parts": [], "shelf": null, "tags": []}"#
            #expect(try #require(lines.next()) == #"{"op": "update", "index": 0, "object": {"id": 2, "top": \#(replaced)}}"#, "\(target)")
            kill(watcher.processIdentifier, SIGINT)
            watcher.waitUntilExit()
            #expect(watcher.terminationReason == .exit && watcher.terminationStatus == 0)
        }
    }
}
