import Foundation
import Testing
@testable import Trove

/// `Snapshot.withObject` reads an object in place: the same values a `DynamicObject` holds,
/// whatever the property's type, and safe in a write transaction that writes while reading.
@Suite struct ObjectViewTests {
    static let properties = ["id", "name", "nick", "age", "level", "score", "weight", "born", "active", "balance",
                             "token", "blob", "tags", "scores", "bestFriend", "dogs", "fans"]

    @Test func aViewReadsWhatTheObjectHoldsForEveryProperty() throws {
        let store = try QueryFixtures.store(indexed: true, seed: 5, people: 60, dogs: 30)
        let s = try store.beginRead()
        defer { s.end() }
        do {
            var compared = 0
            for id in 0..<60 {
                guard let object = try s.object("Person", primaryKey: .int(Int64(id))) else { continue }
                for name in Self.properties {
                    let viewed = try s.withObject("Person", primaryKey: .int(Int64(id))) { try $0.value(name) }
                    let held = try object.value(name)
                    // The data hold NaN, unequal to itself.
                    #expect(viewed == held || (viewed.map(ReferenceStore.isNaN) == true && ReferenceStore.isNaN(held)), "Person \(id).\(name)")
                    compared += 1
                }
                let typed = try s.withObject("Person", primaryKey: .int(Int64(id))) { view in
                    (try view.string("name"), try view.int("age"), try view.double("score"), try view.bool("active"), view.modelName)
                }
                #expect(typed?.0 == (try object.string("name")))
                #expect(typed?.1 == (try object.int("age")))
                let score = try object.double("score")
                #expect(typed?.2 == score || (typed?.2?.isNaN == true && score?.isNaN == true))
                #expect(typed?.3 == (try object.bool("active")))
                #expect(typed?.4 == "Person")
            }
            #expect(compared > 0)
        }
    }

    @Test func aMissingObjectGivesNilAndBadNamesThrow() throws {
        let store = try QueryFixtures.smallStore()
        let s = try store.beginRead()
        do {
            #expect(try s.withObject("Person", primaryKey: 999) { _ in true } == nil)
            #expect(try s.withObject("Person", primaryKey: 1) { $0.reference } == (try s.object("Person", primaryKey: 1))?.reference)
            #expect(throws: StoreError.self) { try s.withObject("Person", primaryKey: 1) { try $0.value("nope") } }
            #expect(throws: StoreError.self) { try s.withObject("Person", primaryKey: 1) { try $0.int("name") } }
            #expect(throws: StoreError.self) { try s.withObject("Nobody", primaryKey: 1) { _ in true } }
        }
        s.end()
        #expect(throws: (any Error).self) { try s.withObject("Person", primaryKey: 1) { _ in true } }
    }

    @Test func aWriteTransactionSeesItsWritesAndMayWriteWhileReading() throws {
        let store = try QueryFixtures.smallStore()
        try store.write { tx in
            try tx.insert("Person", ["id": 50, "name": "New", "level": 1, "active": true])
            #expect(try tx.withObject("Person", primaryKey: 50) { try $0.string("name") } == "New")
            // Writes made inside the closure move pages; the view keeps reading its own copy.
            let read = try tx.withObject("Person", primaryKey: 1) { view -> (String?, String?) in
                let before = try view.string("name")
                for i in 100..<400 { try tx.insert("Person", ["id": .int(Int64(i)), "name": .string("filler \(i)"), "level": 0, "active": false]) }
                try tx.update("Person", primaryKey: 1, ["name": "Changed"])
                return (before, try view.string("name"))
            }
            #expect(read?.0 == "Ada")
            #expect(read?.1 == "Ada")
            #expect(try tx.withObject("Person", primaryKey: 1) { try $0.string("name") } == "Changed")
        }
    }
}
