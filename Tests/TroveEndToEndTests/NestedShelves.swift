import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Shelves (with a primary key) holding boxes and parts (without one) in links, in lists and
/// in each other, on a store `a.trove` and on PostgreSQL: what the suites of nested links
/// (`PostgresNestedSelectTests`, `PostgresNestedObjectTests`) print and compare.
enum NestedShelves {
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

    /// Writes the schema into `w` and inserts the objects into a store `a.trove` and at `url`;
    /// `beforeLast`, when given, runs on each (`a.trove`, then `url`) before the last insert.
    static func load(into w: Workspace, url: String, beforeLast: ((_ target: String) throws -> Void)? = nil) throws {
        let schema = try w.write("shelves.json", Self.schema)
        for target in ["a.trove", url] {
            guard let beforeLast else {
                let made = try w.run([target, "-s", schema] + objects)
                #expect(made.status == 0, "\(target): \(made.err)")
                continue
            }
            let made = try w.run([target, "-s", schema] + objects.dropLast())
            #expect(made.status == 0, "\(target): \(made.err)")
            try beforeLast(target)
            let last = try w.run([target, objects[objects.count - 1]])
            #expect(last.status == 0, "\(target): \(last.err)")
        }
    }

    /// Runs `trove a.trove ARGUMENTS` in `w` and `trove URL ARGUMENTS`, expecting both to
    /// succeed and print the same bytes; returns what the store printed.
    @discardableResult
    static func expectSameOutput(in w: Workspace, url: String, _ arguments: [String]) throws -> String {
        let store = try w.run(["a.trove"] + arguments), server = try w.run([url] + arguments)
        #expect(store.status == 0 && server.status == 0, "\(arguments): \(store.err)\(server.err)")
        #expect(Array(server.out.utf8) == Array(store.out.utf8), "\(arguments):\n\(server.out)\nstore:\n\(store.out)")
        return store.out
    }

    /// `questions` asked in one run in each output mode, with the same bytes from the store and
    /// from PostgreSQL.
    static func expectSameOutputInEveryMode(in w: Workspace, url: String, _ questions: [String]) throws {
        for mode in ["json", "jsonl", "csv", "tsv", "table", "line", "markdown"] {
            try expectSameOutput(in: w, url: url, ["-c", ".mode \(mode)"] + questions.flatMap { ["-c", $0] })
        }
    }

    /// Runs `trove TARGET STATEMENT` (a `watch`; `target` a file of `w` or a URL), gives `body`
    /// the lines it prints, then interrupts it: it ends with status 0.
    static func watching(_ target: String, in w: Workspace, _ statement: String, _ body: (WatchTests.Lines) throws -> Void) throws {
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: TroveBinary.path)
        watcher.arguments = [target, statement]
        watcher.currentDirectoryURL = w.directory
        let output = Pipe()
        watcher.standardOutput = output
        watcher.standardError = FileHandle.nullDevice
        watcher.standardInput = FileHandle.nullDevice
        try watcher.run()
        // A body that stops early (a failed #require) leaves no watcher running.
        defer {
            if watcher.isRunning {
                kill(watcher.processIdentifier, SIGKILL)
                watcher.waitUntilExit()
            }
        }
        try body(WatchTests.Lines(output.fileHandleForReading))
        kill(watcher.processIdentifier, SIGINT)
        watcher.waitUntilExit()
        #expect(watcher.terminationReason == .exit && watcher.terminationStatus == 0, "\(target)")
    }
}
