import Foundation
import Testing
@testable import Trove

private let byRank: [SortKey] = ["rank", "id"]

/// Section keys with the ids of their items, for compact expectations.
private func layout(_ sections: [ResultsSection<DetachedObject>]) -> [String] {
    sections.map { s in "\(s.key): " + s.elements.map { "\($0["id"])" }.joined(separator: " ") }
}

private func seed(_ store: Store) throws {
    try commit(store) { tx in
        try tx.insert("Owner", ["id": 1, "name": "Ann"])
        try tx.insert("Owner", ["id": 2, "name": "Bob"])
        try tx.insert("Item", ["id": 1, "rank": 5, "label": "a", "owner": 2])
        try tx.insert("Item", ["id": 2, "rank": 3, "label": "b", "owner": 1])
        try tx.insert("Item", ["id": 3, "rank": 1, "label": "c", "owner": 2])
        try tx.insert("Item", ["id": 4, "rank": 4, "label": "d"])
    }
}

private func controller(_ store: Store, queue: DispatchQueue, filter: ResultsController<DetachedObject>.Filter? = nil)
    -> ResultsController<DetachedObject> {
    ResultsController(store: store, request: ResultsRequest("Item", sortedBy: byRank), sectionKeyPath: "owner.name",
                      queue: queue, filter: filter)
}

@Suite struct ResultsControllerTests {
    @Test func fetchGroupsObjectsBySectionKeyPathThroughALinkSortedByItFirst() throws {
        let store = try itemsStore()
        try seed(store)
        let c = controller(store, queue: DispatchQueue(label: "test"))
        try c.performFetch()
        #expect(layout(c.sections) == ["null: 4", "\"Ann\": 2", "\"Bob\": 3 1"])
        #expect(c.numberOfSections == 3)
        #expect(c.numberOfObjects(inSection: 2) == 2)
        #expect(c.object(at: ResultsIndexPath(item: 1, section: 2))["label"] == "a")
    }

    @Test func withoutSectionKeyPathThereIsOneSectionEvenWhenEmpty() throws {
        let store = try itemsStore()
        let c = ResultsController(store: store, request: ResultsRequest("Item", sortedBy: byRank), queue: DispatchQueue(label: "test"))
        try c.performFetch()
        #expect(c.numberOfSections == 1)
        #expect(c.numberOfObjects(inSection: 0) == 0)
    }

    @Test func delegateHearsWillChangeObjectsSectionsDidChangeInOrderOnItsQueueForAWriteOnAnotherThread() async throws {
        let store = try itemsStore()
        try seed(store)
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "controller")
        queue.setSpecific(key: key, value: "controller")
        let c = controller(store, queue: queue)
        let delegate = RecordingDelegate<DetachedObject>(queueKey: key)
        c.delegate = delegate
        try c.performFetch()

        let written = DispatchSemaphore(value: 0)
        store.write({ tx in try tx.insert("Owner", ["id": 3, "name": "Cid"]); try tx.insert("Item", ["id": 5, "rank": 0, "label": "e", "owner": 3]) },
                    queue: DispatchQueue(label: "writer")) { _ in written.signal() }
        let batch = try #require(await delegate.batches.next())
        #expect(delegate.recordedEvents == ["will", "object", "section", "did"])
        #expect(delegate.offQueueCalls == 0)
        #expect(batch.objectChanges.map(\.newIndexPath) == [ResultsIndexPath(item: 0, section: 3)])
        guard case .insert(let s, at: 3)? = batch.sectionChanges.first else { Issue.record("no section insert"); return }
        #expect(s.key == "Cid")
        #expect(layout(batch.sectionsAtEnd) == ["null: 4", "\"Ann\": 2", "\"Bob\": 3 1", "\"Cid\": 5"])
        _ = written.wait(timeout: .now() + 60)
    }

    @Test func renamingALinkedObjectMovesItsObjectsToAnotherSectionAsMoves() async throws {
        let store = try itemsStore()
        try seed(store)
        let c = controller(store, queue: DispatchQueue(label: "test"))
        let batches = Inbox(c.changes)
        try c.performFetch()
        try commit(store) { tx in try tx.update("Owner", primaryKey: 2, ["name": "Al"]) }
        let batch = try #require(await batches.next())
        #expect(layout(batch.sections) == ["null: 4", "\"Al\": 3 1", "\"Ann\": 2"])
        let kinds = batch.objectChanges.map { c -> String in
            switch c { case .move(let e, let f, let t): "move \(e["id"]) \(f)->\(t)"; default: "\(c)" }
        }
        #expect(kinds == ["move 3 [2, 0]->[1, 0]", "move 1 [2, 1]->[1, 1]"])
        #expect(batch.sectionChanges.count == 2)
    }

    @Test func changingAPropertyInPlaceIsAnUpdateAndChangingTheSortKeyIsAMove() async throws {
        let store = try itemsStore()
        try seed(store)
        let c = controller(store, queue: DispatchQueue(label: "test"))
        let batches = Inbox(c.changes)
        try c.performFetch()

        try commit(store) { tx in try tx.update("Item", primaryKey: 1, ["label": "A"]) }
        var batch = try #require(await batches.next())
        #expect(batch.objectChanges.count == 1)
        guard case .update(let e, let from, let to) = batch.objectChanges[0] else { Issue.record("\(batch.objectChanges)"); return }
        #expect(e["label"] == "A" && from == to && to == ResultsIndexPath(item: 1, section: 2))
        #expect(batch.sectionChanges.isEmpty)

        try commit(store) { tx in try tx.update("Item", primaryKey: 1, ["rank": 0]) }
        batch = try #require(await batches.next())
        #expect(batch.objectChanges.count == 1)
        guard case .move(let m, let f, let t) = batch.objectChanges[0] else { Issue.record("\(batch.objectChanges)"); return }
        #expect(m["id"] == 1 && f == ResultsIndexPath(item: 1, section: 2) && t == ResultsIndexPath(item: 0, section: 2))
    }

    @Test func deletingTheLastObjectOfASectionDeletesTheSection() async throws {
        let store = try itemsStore()
        try seed(store)
        let c = controller(store, queue: DispatchQueue(label: "test"))
        let batches = Inbox(c.changes)
        try c.performFetch()
        try commit(store) { tx in try tx.delete("Item", primaryKey: 2) }
        let batch = try #require(await batches.next())
        #expect(batch.objectChanges.map(\.oldIndexPath) == [ResultsIndexPath(item: 0, section: 1)])
        guard case .delete(let s, at: 1)? = batch.sectionChanges.first, batch.sectionChanges.count == 1 else {
            Issue.record("\(batch.sectionChanges)"); return
        }
        #expect(s.key == "Ann")
        #expect(layout(c.sections) == ["null: 4", "\"Bob\": 3 1"])
    }

    @Test func commitsToUnrelatedModelsOrInvisibleChangesDeliverNothing() async throws {
        let schema = try schemaFromJSON(String(itemsSchemaJSON.dropLast(2)) + """
        , {"name": "Log", "properties": {"text": "string"}}]}
        """)
        let store = try Store(configuration: .inMemory(schema: schema))
        try seed(store)
        let c = controller(store, queue: DispatchQueue(label: "test"))
        let batches = Inbox(c.changes)
        try c.performFetch()
        try commit(store) { tx in try tx.insert("Log", ["text": "x"]) }
        try commit(store) { tx in try tx.update("Owner", primaryKey: 1, ["name": "Ann"]) }
        try commit(store) { tx in try tx.insert("Item", ["id": 9, "rank": 9, "label": "z"]) }
        let batch = try #require(await batches.next())
        #expect(batch.objectChanges.map(\.newIndexPath) == [ResultsIndexPath(item: 1, section: 0)])
    }

    @Test func anObjectHoldingANaNIsNoUpdateWhenItsRecordStaysTheSame() async throws {
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON("""
        {"schemaVersion": 0, "models": [{"name": "M", "primaryKey": "id", "properties": {"id": "int", "d": "double", "s": "string"}}]}
        """)))
        try commit(store) { tx in try tx.insert("M", ["id": 1, "d": .double(.nan), "s": "a"]) }
        let c = ResultsController(store: store, request: ResultsRequest("M", where: "s != 'hidden'", sortedBy: ["id"]),
                                  queue: DispatchQueue(label: "test"))
        let batches = Inbox(c.changes)
        try c.performFetch()
        #expect(c.sections[0].elements[0] == c.sections[0].elements[0], "a copy holding a NaN equals itself")
        try commit(store) { tx in try tx.insert("M", ["id": 2, "d": 1.0, "s": "hidden"]) }
        try commit(store) { tx in try tx.insert("M", ["id": 3, "d": 2.0, "s": "b"]) }
        let batch = try #require(await batches.next())
        #expect(batch.objectChanges.map(\.newIndexPath) == [ResultsIndexPath(item: 1, section: 0)])
    }

    @Test func aRequestsPageIsOfWhatTheFilterShowsInTheSectionsOrder() async throws {
        let store = try itemsStore()
        try seed(store)
        let c = ResultsController(store: store, request: ResultsRequest("Item", sortedBy: byRank, offset: 1, limit: 2),
                                  sectionKeyPath: "owner.name", queue: DispatchQueue(label: "test"),
                                  filter: { try $0.int("rank")! >= 3 })
        let batches = Inbox(c.changes)
        try c.performFetch()
        let before = c.sections
        #expect(layout(before) == ["\"Ann\": 2", "\"Bob\": 1"])
        try commit(store) { tx in try tx.insert("Item", ["id": 5, "rank": 3, "label": "e"]) }
        let batch = try #require(await batches.next())
        #expect(layout(batch.sections) == ["null: 4", "\"Ann\": 2"])
        #expect(apply(batch.objectChanges, batch.sectionChanges, to: before) == batch.sections)
    }

    @Test func theFilterClosureNarrowsTheResultsAndUpdatingItReportsTheDifference() async throws {
        let store = try itemsStore()
        try seed(store)
        let c = controller(store, queue: DispatchQueue(label: "test"), filter: { try $0.int("rank")! >= 3 })
        let batches = Inbox(c.changes)
        try c.performFetch()
        let before = c.sections
        #expect(layout(before) == ["null: 4", "\"Ann\": 2", "\"Bob\": 1"])
        c.updateFilter { try $0.object("owner") != nil }
        let batch = try #require(await batches.next())
        #expect(layout(batch.sections) == ["\"Ann\": 2", "\"Bob\": 3 1"])
        #expect(apply(batch.objectChanges, batch.sectionChanges, to: before) == batch.sections)
    }

    @Test func aMapperHandsOutValueTypesBuiltFromLinkedObjects() async throws {
        struct Row: Sendable, Equatable { var id: Int64; var text: String }
        let store = try itemsStore()
        try seed(store)
        let c = ResultsController<Row>(store: store, request: ResultsRequest("Item", sortedBy: byRank), queue: DispatchQueue(label: "test")) {
            Row(id: try $0.int("id")!, text: "\(try $0.string("label")!) by \(try $0.object("owner")?.string("name") ?? "nobody")")
        }
        let batches = Inbox(c.changes)
        try c.performFetch()
        #expect(c.sections[0].elements.map(\.text) == ["c by Bob", "b by Ann", "d by nobody", "a by Bob"])
        // Only a linked object changed, but the mapped rows differ: updates in place.
        try commit(store) { tx in try tx.update("Owner", primaryKey: 2, ["name": "Robert"]) }
        let batch = try #require(await batches.next())
        #expect(batch.objectChanges == [
            .update(Row(id: 3, text: "c by Robert"), from: ResultsIndexPath(item: 0, section: 0), to: ResultsIndexPath(item: 0, section: 0)),
            .update(Row(id: 1, text: "a by Robert"), from: ResultsIndexPath(item: 3, section: 0), to: ResultsIndexPath(item: 3, section: 0)),
        ])
    }

    @Test func changesAreExactOverThousandsOfRandomCommits() async throws {
        let store = try itemsStore()
        var rng = StoreModelTests.SplitMix(seed: 0x7120_5eed)
        // The predicate, the filter closure, the sort and the section key path all decide.
        let c = ResultsController(store: store, request: ResultsRequest("Item", where: "rank < $0", [7], sortedBy: byRank),
                                  sectionKeyPath: "owner.name", queue: DispatchQueue(label: "test"),
                                  filter: { try $0.string("label") != "hidden" })
        let delegate = RecordingDelegate<DetachedObject>()
        c.delegate = delegate
        try c.performFetch()
        var previous = c.sections
        var nextID: Int64 = 1
        var seen: [String: Int] = [:]
        let names: [Value] = ["Ann", "Bob", "Cid", "Dee"]

        for _ in 0..<2_000 {
            try commit(store) { tx in
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    let items = try tx.objects("Item").map { try $0.int("id")! }
                    let owners = try tx.objects("Owner").map { try $0.int("id")! }
                    let owner: Value = owners.isEmpty || Bool.random(using: &rng) && Bool.random(using: &rng) ? .null : .int(owners.randomElement(using: &rng)!)
                    var op = Int.random(in: 0..<10, using: &rng)
                    if items.isEmpty || op == 1 && items.count < 40 { op = 0 }
                    if op == 7 && owners.count == 4 || op == 8 && owners.isEmpty { op = 9 }
                    switch op {
                    case 0:
                        try tx.insert("Item", ["id": .int(nextID), "rank": .int(.random(in: 0..<8, using: &rng)),
                                               "label": Bool.random(using: &rng) ? "x" : "y", "owner": owner])
                        nextID += 1
                    case 1, 2:
                        try tx.delete("Item", primaryKey: .int(items.randomElement(using: &rng)!))
                    case 3, 4:
                        try tx.update("Item", primaryKey: .int(items.randomElement(using: &rng)!), ["rank": .int(.random(in: 0..<8, using: &rng))])
                    case 5:
                        try tx.update("Item", primaryKey: .int(items.randomElement(using: &rng)!), ["owner": owner])
                    case 6:
                        try tx.update("Item", primaryKey: .int(items.randomElement(using: &rng)!),
                                      ["label": ["x", "y", "hidden"].randomElement(using: &rng)!])
                    case 7:
                        let id = (1...4).first { !owners.contains(Int64($0)) }!
                        try tx.insert("Owner", ["id": .int(Int64(id)), "name": names.randomElement(using: &rng)!])
                    case 8:
                        try tx.update("Owner", primaryKey: .int(owners.randomElement(using: &rng)!), ["name": names.randomElement(using: &rng)!])
                    default:
                        if let o = owners.randomElement(using: &rng) { try tx.delete("Owner", primaryKey: .int(o)) }
                    }
                }
            }
            let expected = try expectedSections(store)
            guard expected != previous else { continue }
            guard let batch = await delegate.batches.next() else { Issue.record("no batch for a visible change"); return }
            let applied = apply(batch.objectChanges, batch.sectionChanges, to: previous)
            #expect(applied == expected)
            #expect(batch.sectionsAtEnd == expected)
            // Survivors that kept their own values and relative place are not reported.
            let reported = Set(batch.objectChanges.map { $0.element.reference })
            #expect(reported.count == batch.objectChanges.count, "an object reported twice")
            if applied != expected { return }
            for change in batch.objectChanges { seen["\(change)".prefix { $0 != "(" }.description, default: 0] += 1 }
            for change in batch.sectionChanges { seen["section " + "\(change)".prefix { $0 != "(" }, default: 0] += 1 }
            previous = expected
        }
        // Every kind of change happened, many times.
        for kind in ["insert", "delete", "update", "move", "section insert", "section delete"] {
            #expect(seen[kind, default: 0] > 20, "\(kind): \(seen)")
        }
    }
}

/// The oracle: items (not hidden, rank below 7) grouped by owner name, nulls first, by rank then id.
private func expectedSections(_ store: Store) throws -> [ResultsSection<DetachedObject>] {
    try store.read { s in
        let items = try s.objects("Item").filter { try $0.string("label") != "hidden" && $0.int("rank")! < 7 }
        let keyed = try items.map { (key: try $0.object("owner")?.string("name"), rank: try $0.int("rank")!, id: try $0.int("id")!, object: try DetachedObject($0)) }
        let sorted = keyed.sorted { a, b in
            if a.key != b.key { return a.key == nil || (b.key != nil && a.key! < b.key!) }
            return (a.rank, a.id) < (b.rank, b.id)
        }
        var out: [ResultsSection<DetachedObject>] = []
        for k in sorted {
            let key: Value = k.key.map { .string($0) } ?? .null
            if out.last?.key == key { out[out.count - 1].elements.append(k.object) } else { out.append(ResultsSection(key: key, elements: [k.object])) }
        }
        return out
    }
}

@Suite struct ResultsControllerPredicateTests {
    @Test func aPredicateOnALinkedObjectIsReevaluatedWhenTheLinkedObjectChanges() async throws {
        let store = try itemsStore()
        try seed(store)
        let c = ResultsController(store: store, request: ResultsRequest("Item", where: "owner.name BEGINSWITH $0", ["B"], sortedBy: byRank),
                                  queue: DispatchQueue(label: "test"))
        let batches = Inbox(c.changes)
        try c.performFetch()
        #expect(layout(c.sections) == ["null: 3 1"])
        let before = c.sections
        try commit(store) { tx in
            try tx.update("Owner", primaryKey: 1, ["name": "Bea"])
            try tx.update("Owner", primaryKey: 2, ["name": "Al"])
        }
        let batch = try #require(await batches.next())
        #expect(layout(batch.sections) == ["null: 2"])
        #expect(apply(batch.objectChanges, batch.sectionChanges, to: before) == batch.sections)
        #expect(batch.objectChanges.map(\.newIndexPath) == [nil, nil, ResultsIndexPath(item: 0, section: 0)])
    }

    @Test func aSortDescendingOnTheSectionKeyPathOrdersTheSections() throws {
        let store = try itemsStore()
        try seed(store)
        let c = ResultsController(store: store, request: ResultsRequest("Item", sortedBy: [
            .descending("owner.name"), "rank",
        ]), sectionKeyPath: "owner.name", queue: DispatchQueue(label: "test"))
        try c.performFetch()
        #expect(layout(c.sections) == ["\"Bob\": 3 1", "\"Ann\": 2", "null: 4"])
    }

    @Test func aBadPredicateFailsTheFetchWithTheQueryError() throws {
        let store = try itemsStore()
        let c = ResultsController(store: store, request: ResultsRequest("Item", where: "rank >"), queue: DispatchQueue(label: "test"))
        #expect(throws: QueryError.self) { try c.performFetch() }
    }
}

@Suite struct ResultsControllerOtherWriterTests {
    @Test func aCommitByAnotherStoreOnTheSameFileIsDeliveredAsExactChanges() async throws {
        let dir = StoreTempDir()
        defer { dir.cleanup() }
        let schema = try schemaFromJSON(itemsSchemaJSON)
        let store = try Store(path: dir.file("live.trove"), schema: schema)
        try seed(store)
        let other = try Store(path: dir.file("live.trove"), schema: schema)
        let c = controller(store, queue: DispatchQueue(label: "test"))
        let batches = Inbox(c.changes)
        try c.performFetch()
        let before = c.sections
        try commit(other) { tx in
            try tx.update("Owner", primaryKey: 1, ["name": "Zed"])
            try tx.update("Item", primaryKey: 4, ["label": "D"])
            try tx.delete("Item", primaryKey: 3)
        }
        let batch = try #require(await batches.next())
        #expect(layout(batch.sections) == ["null: 4", "\"Bob\": 1", "\"Zed\": 2"])
        #expect(apply(batch.objectChanges, batch.sectionChanges, to: before) == batch.sections)
        #expect(batch.objectChanges.contains { if case .update(let e, _, _) = $0 { e["label"] == "D" } else { false } })
    }
}
