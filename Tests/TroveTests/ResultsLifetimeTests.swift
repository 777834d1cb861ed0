import Foundation
import Testing
@testable import Trove

/// What `Results` hand out once their objects cannot be read: objects whose reads throw.
@Suite struct ResultsLifetimeTests {
    @Test func objectsOfResultsWhoseSnapshotEndedThrowInvalidated() throws {
        let store = try itemsStore()
        try store.write { tx in try tx.insert("Item", ["id": 1, "rank": 1, "label": "a"]) }
        let results = try store.read { try $0.objects("Item") }
        #expect(results.count == 1)
        let item = results[0]
        #expect(item.modelName == "Item")
        #expect(throws: StoreError.invalidated) { try item.int("id") }
        #expect(throws: StoreError.invalidated) { try item.json() }
        #expect(throws: StoreError.invalidated) { try results.sorted(by: "rank") }
    }

    @Test func aTransactionUsedAfterItsWriteEndedSaysTheWriteEnded() throws {
        let store = try itemsStore()
        var leaked: Transaction?
        try store.write { tx in leaked = tx }
        do {
            try leaked?.insert("Item", ["id": 1, "rank": 1, "label": "a"])
            Issue.record("an ended transaction inserted")
        } catch {
            #expect(error as? StoreError == .invalidated)
            #expect("\(error)" == "the read or write this belongs to has ended: use its transaction, results and objects inside it, and fetch an object again by primary key")
        }
        #expect(try store.read { try $0.count("Item") } == 0)
    }

    @Test func anObjectDeletedByTheTransactionThatFetchedItThrowsObjectDeleted() throws {
        let store = try itemsStore()
        try store.write { tx in
            try tx.insert("Item", ["id": 1, "rank": 1, "label": "a"])
            try tx.insert("Item", ["id": 2, "rank": 2, "label": "b"])
        }
        try store.write { tx in
            let items = try tx.objects("Item")
            #expect(try tx.delete("Item", primaryKey: 1))
            #expect(throws: StoreError.objectDeleted(model: "Item")) { try items[0].value("label") }
            #expect(try items[1].string("label") == "b")
        }
    }

    @Test func objectsReadBeforeTheSnapshotEndedKeepTheirValues() throws {
        let store = try itemsStore()
        try store.write { tx in try tx.insert("Item", ["id": 1, "rank": 1, "label": "a"]) }
        let item = try store.read { try $0.objects("Item")[0] }
        #expect(try item.string("label") == "a")
    }
}
