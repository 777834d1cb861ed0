import Foundation
import Testing
@testable import Trove

@Suite struct ObjectObserverTests {
    @Test func eachCommitTouchingTheObjectReportsItsChangedPropertiesWithOldAndNewValues() async throws {
        let store = try itemsStore()
        try commit(store) { tx in
            try tx.insert("Owner", ["id": 1, "name": "Ann"])
            try tx.insert("Item", ["id": 1, "rank": 1, "label": "a"])
            try tx.insert("Item", ["id": 2, "rank": 2, "label": "b"])
        }
        let observer = try ObjectObserver(store: store, model: "Item", primaryKey: 1, queue: DispatchQueue(label: "test"))
        let changes = Inbox(observer.changes)
        try commit(store) { tx in try tx.update("Item", primaryKey: 2, ["rank": 9]) }     // another object
        try commit(store) { tx in try tx.update("Item", primaryKey: 1, ["label": "a"]) }   // same value
        try commit(store) { tx in try tx.update("Item", primaryKey: 1, ["rank": 5, "owner": 1, "tags": ["t"]]) }
        let change = await changes.next()
        #expect(change == .changed([
            PropertyChange(name: "rank", oldValue: 1, newValue: 5),
            PropertyChange(name: "owner", oldValue: .null, newValue: .reference(ObjectReference(model: "Owner", key: 1))),
            PropertyChange(name: "tags", oldValue: [], newValue: ["t"]),
        ]))
        // Deleting the linked object nulls the link: a change of the observed object.
        try commit(store) { tx in try tx.delete("Owner", primaryKey: 1) }
        #expect(await changes.next() == .changed([
            PropertyChange(name: "owner", oldValue: .reference(ObjectReference(model: "Owner", key: 1)), newValue: .null),
        ]))
        try commit(store) { tx in try tx.delete("Item", primaryKey: 1) }
        #expect(await changes.next() == .deleted)
        #expect(await changes.next() == nil)
    }

    @Test func aNaNThatStaysIsNoChangeAndAStringsOtherNormalizationIsOne() async throws {
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON("""
        {"schemaVersion": 0, "models": [{"name": "M", "primaryKey": "id", "properties": {"id": "int", "d": "double", "s": "string"}}]}
        """)))
        try commit(store) { tx in try tx.insert("M", ["id": 1, "d": .double(.nan), "s": "a"]) }
        let observer = try ObjectObserver(store: store, model: "M", primaryKey: 1, queue: DispatchQueue(label: "test"))
        let changes = Inbox(observer.changes)
        try commit(store) { tx in try tx.update("M", primaryKey: 1, ["s": "e\u{301}"]) }
        #expect(await changes.next() == .changed([PropertyChange(name: "s", oldValue: "a", newValue: "e\u{301}")]))
        // The same text in NFC: other bytes, which the update writes.
        try commit(store) { tx in try tx.update("M", primaryKey: 1, ["s": "\u{e9}"]) }
        #expect(await changes.next() == .changed([PropertyChange(name: "s", oldValue: "e\u{301}", newValue: "\u{e9}")]))
    }

    @Test func theHandlerRunsOnTheGivenQueueForAWriteFromAnotherThread() async throws {
        let store = try itemsStore()
        try commit(store) { tx in try tx.insert("Item", ["id": 1, "rank": 1, "label": "a"]) }
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "observer")
        queue.setSpecific(key: key, value: 7)
        let (stream, continuation) = AsyncStream<(ObjectChange, Int?)>.makeStream()
        let observer = try ObjectObserver(store: store, model: "Item", primaryKey: 1, queue: queue) { change in
            continuation.yield((change, DispatchQueue.getSpecific(key: key)))
        }
        try await store.write { tx in try tx.update("Item", primaryKey: 1, ["label": "b"]) }
        let got = try #require(await Inbox(stream).next())
        #expect(got.0 == .changed([PropertyChange(name: "label", oldValue: "a", newValue: "b")]))
        #expect(got.1 == 7)
        observer.cancel()
    }

    @Test func observingAMissingObjectThrows() throws {
        let store = try itemsStore()
        #expect(throws: StoreError.objectNotFound(model: "Item", primaryKey: "42")) {
            try ObjectObserver(store: store, model: "Item", primaryKey: 42)
        }
    }

    @Test func aCommitByAnotherStoreOnTheFileIsReported() async throws {
        let dir = StoreTempDir()
        defer { dir.cleanup() }
        let schema = try schemaFromJSON(itemsSchemaJSON)
        let store = try Store(path: dir.file("o.trove"), schema: schema)
        try commit(store) { tx in try tx.insert("Item", ["id": 1, "rank": 1, "label": "a"]) }
        let observer = try ObjectObserver(store: store, model: "Item", primaryKey: 1, queue: DispatchQueue(label: "test"))
        let changes = Inbox(observer.changes)
        let other = try Store(path: dir.file("o.trove"), schema: schema)
        try commit(other) { tx in try tx.update("Item", primaryKey: 1, ["rank": 2]) }
        #expect(await changes.next() == .changed([PropertyChange(name: "rank", oldValue: 1, newValue: 2)]))
    }
}

@Suite struct LiveResultsTests {
    @Test func liveResultsReflectEveryCommitWhenNextRead() throws {
        let store = try itemsStore()
        let live = try LiveResults(store: store, request: ResultsRequest("Item", sortedBy: ["rank"]))
        #expect(live.count == 0)
        try commit(store) { tx in
            try tx.insert("Item", ["id": 1, "rank": 2, "label": "a"])
            try tx.insert("Item", ["id": 2, "rank": 1, "label": "b"])
        }
        #expect(live.count == 2)
        #expect(live.map { try! $0.string("label")! } == ["b", "a"])
        let before = live.version
        try commit(store) { tx in try tx.update("Item", primaryKey: 1, ["rank": 0]) }
        #expect(try live.results.map { try $0.int("id")! } == [1, 2])
        #expect(live.version > before)
        #expect(try live.refresh() == false)
    }

    @Test func aRequestsPageIsTakenAgainAtEachEvaluation() throws {
        let store = try itemsStore()
        try commit(store) { tx in for i in 1...5 { try tx.insert("Item", ["id": .int(Int64(i)), "rank": .int(Int64(i)), "label": "a"]) } }
        let live = try LiveResults(store: store, request: ResultsRequest("Item", sortedBy: [.descending("rank")], offset: 1, limit: 2))
        #expect(live.map { try! $0.int("id")! } == [4, 3])
        try commit(store) { tx in try tx.insert("Item", ["id": 6, "rank": 9, "label": "a"]) }
        #expect(live.map { try! $0.int("id")! } == [5, 4])
    }

    @Test func theSubscriptReadsTheLastEvaluationUntilCountOrIterationRefreshes() throws {
        let store = try itemsStore()
        try commit(store) { tx in try tx.insert("Item", ["id": 1, "rank": 1, "label": "a"]) }
        let live = try LiveResults(store: store, request: ResultsRequest("Item"))
        let n = live.count
        try commit(store) { tx in try tx.delete("Item", primaryKey: 1) }
        for i in 0..<n { #expect(try live[i].string("label") == "a") }
        #expect(live.count == 0)
    }

    @Test func liveResultsFollowAnotherStoreOnTheFile() async throws {
        let dir = StoreTempDir()
        defer { dir.cleanup() }
        let schema = try schemaFromJSON(itemsSchemaJSON)
        let store = try Store(path: dir.file("l.trove"), schema: schema)
        let live = try LiveResults(store: store, request: ResultsRequest("Item"))
        let other = try Store(path: dir.file("l.trove"), schema: schema)
        // Wait for the signal the live results wait for, then read them.
        let (stream, continuation) = AsyncStream<UInt64>.makeStream()
        let observation = store.observeCommits { continuation.yield($0.version) }
        try commit(other) { tx in try tx.insert("Item", ["id": 1, "rank": 1, "label": "a"]) }
        _ = await Inbox(stream).next()
        observation.cancel()
        #expect(live.count == 1)
    }
}
