import Testing

/// An object the shell prints (a query's objects, `get`, `watch`) holds each link to a model
/// without a primary key nested, as `export` writes it: the same bytes on a store and on
/// PostgreSQL, in every output mode, also after a rolled-back write used up an internal key
/// on PostgreSQL that a store gives out again.
@Suite(PostgresServer.isGiven)
struct PostgresNestedObjectTests {
    let w: Workspace, url: String
    init() throws { (w, url) = try PostgresServer.workspace() }

    /// `NestedShelves`, with a failed insert of a nested object before the last: its rollback
    /// leaves PostgreSQL's next `"@key"` one further than a store's.
    func load() throws {
        try NestedShelves.load(into: w, url: url) { target in
            let failed = try w.run([target, #"insert Shelf {"id": 1, "top": {"label": "dup"}}"#])
            #expect(failed.status != 0 && failed.err.contains("already has an object with primary key 1"), "\(target): \(failed.err)")
        }
    }

    @Test func anObjectPrintsItsLinksNestedInEveryModeAfterARolledBackWrite() throws {
        try load()
        let questions = ["Shelf SORT(id)", "Shelf where id == 3", "get Shelf 2 1 9", "Box where label == \"e\"", "Part SORT(n)"]
        try NestedShelves.expectSameOutputInEveryMode(in: w, url: url, questions)
        let d = #"{"label": "d", "made": null, "price": null, "inner": null, "parts": [], "shelf": null, "tags": []}"#
        let f = #"{"label": "f", "made": null, "price": null, "inner": null, "parts": [], "shelf": null, "tags": []}"#
        let e = #"{"label": "e", "made": null, "price": null, "inner": \#(f), "parts": [], "shelf": null, "tags": []}"#
        for target in ["a.trove", url] {
            let got = try w.run([target, "--jsonl", "get Shelf 1"])
            #expect(got.out == #"{"id": 1, "top": \#(NestedShelves.firstTop), "boxes": [], "next": null}"# + "\n", "\(target): \(got.out)\(got.err)")
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
            try NestedShelves.expectSameOutput(in: w, url: url, [query])
        }
    }

    /// A watched query prints its objects' links nested, and an event when a linked object changes.
    @Test func aWatchedQueryPrintsItsObjectsLinksNested() throws {
        try load()
        for target in ["a.trove", url] {
            try NestedShelves.watching(target, in: w, "watch Shelf where id == 2") { lines throws in
                let first = #"{"label": "c", "made": null, "price": null, "inner": null, "parts": [], "shelf": 1, "tags": []}"#
                #expect(try #require(lines.next()) == #"{"id": 2, "top": \#(first), "boxes": [], "next": 1}"#, "\(target)")
                #expect(try w.run([target, #"update Box where label == "c" set label = "g""#]).status == 0)
                let changed = #"{"label": "g", "made": null, "price": null, "inner": null, "parts": [], "shelf": 1, "tags": []}"#
                #expect(try #require(lines.next()) == #"{"op": "update", "index": 0, "object": {"id": 2, "top": \#(changed), "boxes": [], "next": 1}}"#, "\(target)")
            }
        }
    }
}
