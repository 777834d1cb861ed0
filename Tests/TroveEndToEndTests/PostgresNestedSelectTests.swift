import Testing

/// A SELECT item or GROUP key that is a link to a model without a primary key (or a path
/// through a list to such links) prints the linked object nested, as `export` writes it: the
/// same bytes on a store and on PostgreSQL, in every output mode, in `export` and in `watch`.
@Suite(PostgresServer.isGiven)
struct PostgresNestedSelectTests {
    let w: Workspace, url: String
    init() throws { (w, url) = try PostgresServer.workspace() }

    @Test func aSelectedLinkPrintsItsObjectAsExportWritesItInEveryMode() throws {
        try NestedShelves.load(into: w, url: url)
        let questions = [
            "Shelf SORT(id) SELECT(id, top, boxes, next.top AS nextTop, boxes.inner AS inners, next.boxes)",
            "Shelf where top != nil SORT(id DESC) SELECT(top.label, top.inner, top)",
            "Shelf GROUP(top) SELECT(top, @count)",
            "Shelf GROUP(next.top) SORT(@count DESC)",
        ]
        try NestedShelves.expectSameOutputInEveryMode(in: w, url: url, questions)
        for target in ["a.trove", url] {
            let exported = try w.run([target, "export Shelf where id == 1"])
            #expect(exported.out.contains(#""top": \#(NestedShelves.firstTop)"#), "\(target): \(exported.out)")
            let selected = try w.run([target, "--jsonl", "Shelf where id == 1 SELECT(top)"])
            #expect(selected.out == #"{"top": \#(NestedShelves.firstTop)}"# + "\n", "\(target): \(selected.out)\(selected.err)")
            let listed = try w.run([target, "--jsonl", "Shelf where id == 3 SELECT(boxes, boxes.inner, top)"])
            #expect(listed.out == #"{"boxes": [{"label": "d", "made": null, "price": null, "inner": null, "parts": [], "shelf": null, "tags": []}, "#
                    + #"{"label": "e", "made": null, "price": null, "inner": {"label": "f", "made": null, "price": null, "inner": null, "parts": [], "shelf": null, "tags": []}, "parts": [], "shelf": null, "tags": []}], "#
                    + #""boxes.inner": [null, {"label": "f", "made": null, "price": null, "inner": null, "parts": [], "shelf": null, "tags": []}], "top": null}"# + "\n",
                    "\(target): \(listed.out)\(listed.err)")
            // Each object a group, null first, then in the order the objects were made.
            let grouped = try w.run([target, "--jsonl", "Shelf GROUP(top)"])
            #expect(grouped.out == #"{"top": null, "@count": 1}"# + "\n" + #"{"top": \#(NestedShelves.firstTop), "@count": 1}"# + "\n"
                    + #"{"top": {"label": "c", "made": null, "price": null, "inner": null, "parts": [], "shelf": 1, "tags": []}, "@count": 1}"# + "\n",
                    "\(target): \(grouped.out)\(grouped.err)")
        }
        for query in ["export Shelf SORT(id) SELECT(id, top, boxes)", "export Shelf GROUP(top) SELECT(top, @count)"] {
            let exported = try NestedShelves.expectSameOutput(in: w, url: url, [query])
            #expect(exported.contains(NestedShelves.firstTop), "\(query): \(exported)")
        }
    }

    /// A watched SELECT prints the linked object nested, and an event when it changes.
    @Test func aWatchedSelectPrintsTheLinkedObjectNested() throws {
        try NestedShelves.load(into: w, url: url)
        for target in ["a.trove", url] {
            try NestedShelves.watching(target, in: w, "watch Shelf where id == 2 SELECT(id, top)") { lines throws in
                let empty = #"{"label": "c", "made": null, "price": null, "inner": null, "parts": [], "shelf": 1, "tags": []}"#
                #expect(try #require(lines.next()) == #"{"id": 2, "top": \#(empty)}"#, "\(target)")
                #expect(try w.run([target, #"upsert Shelf {"id": 2, "top": {"label": "g"}}"#]).status == 0)
                let replaced = #"{"label": "g", "made": null, "price": null, "inner": null, "parts": [], "shelf": null, "tags": []}"#
                #expect(try #require(lines.next()) == #"{"op": "update", "index": 0, "object": {"id": 2, "top": \#(replaced)}}"#, "\(target)")
            }
        }
    }
}
