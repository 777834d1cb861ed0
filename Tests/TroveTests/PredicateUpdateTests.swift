import Foundation
import Testing
@testable import Trove

/// `update(_:where:set:)` and `delete(_:where:)`: they write every match, see the state
/// before their own writes, and leave nothing half done.
@Suite struct PredicateUpdateTests {
    static func levels(_ store: Store) throws -> [Int64] {
        try store.read { try $0.query("Person SORT(id)").map { try $0.int("level")! } }
    }

    @Test func updateSetsValuesOnEveryMatch() throws {
        let store = try QueryFixtures.smallStore()
        let count = try store.write { try $0.update("Person", where: "age == 36", set: ["level": 9, "nick": "x"]) }
        #expect(count == 2)
        #expect(try Self.levels(store) == [9, -1, 0, 9])
        #expect(try store.read { try $0.objects("Person", where: "nick == 'x'").ids } == [1, 4])
    }

    @Test func updateTakesArgumentsAndCountsNoMatchAsZero() throws {
        let store = try QueryFixtures.smallStore()
        #expect(try store.write { try $0.update("Person", where: "name == $0", arguments: ["Bob"], set: ["age": 50]) } == 1)
        #expect(try store.write { try $0.update("Person", where: "name == $0", arguments: ["Nobody"], set: ["age": 50]) } == 0)
        #expect(try store.read { try $0.objects("Person", where: "age == 50").ids } == [2])
    }

    @Test func updateSeesTheMatchesBeforeItsOwnWrites() throws {
        let store = try QueryFixtures.smallStore()
        // Raising levels must not make an object match twice, or stop matching midway.
        #expect(try store.write { try $0.update("Person", where: "level < 3", set: ["level": 3]) } == 2)
        #expect(try Self.levels(store) == [3, 3, 3, 5])
    }

    @Test func updateCanSetLinks() throws {
        let store = try QueryFixtures.smallStore()
        try store.write { _ = try $0.update("Person", where: "bestFriend == nil", set: ["bestFriend": 4]) }
        #expect(try store.read { try $0.objects("Person", where: "bestFriend.id == 4").ids } == [1])
        #expect(try store.read { try $0.objects("Person", where: "fans.@count == 1").ids } == [1, 2, 3, 4])
    }

    @Test func deleteRemovesEveryMatchAndClearsLinksToThem() throws {
        let store = try QueryFixtures.smallStore()
        #expect(try store.write { try $0.delete("Person", where: "active == false") } == 2)
        try store.read { (s: Snapshot) throws in
            #expect(try s.query("Person").ids == [1, 3])
            #expect(try s.objects("Person", where: "bestFriend == nil").ids == [1, 3])
        }
        #expect(try store.write { try $0.delete("Dog", where: "age > $0", arguments: [2]) } == 2)
        try store.read { (s: Snapshot) throws in
            #expect(try s.objects("Person", where: "dogs.@count == 0").ids == [1])
            #expect(try s.objects("Dog").count == 1)
        }
    }

    @Test func aFailingUpdateWritesNothing() throws {
        let store = try QueryFixtures.smallStore()
        // A bad value, a primary-key change and a bad predicate each fail before any write,
        // even when the caller goes on with the transaction.
        try store.write { tx in
            #expect(throws: StoreError.self) { try tx.update("Person", where: "age == 36", set: ["level": "high"]) }
            #expect(throws: StoreError.self) { try tx.update("Person", where: "age == 36", set: ["level": 1, "id": 7]) }
            #expect(throws: QueryError.self) { try tx.update("Person", where: "age == 'x'", set: ["level": 1]) }
            #expect(throws: QueryError.self) { try tx.delete("Person", where: "nmae == 'x'") }
        }
        #expect(try Self.levels(store) == [3, -1, 0, 5])
        #expect(try store.read { try $0.count("Person") } == 4)
    }

    @Test func anErrorLaterInTheTransactionRollsTheUpdateBack() throws {
        let store = try QueryFixtures.smallStore()
        #expect(throws: StoreError.self) {
            try store.write { tx in
                try tx.update("Person", where: "TRUEPREDICATE", set: ["level": 1])
                try tx.delete("Dog", where: "TRUEPREDICATE")
                try tx.update("Person", where: "id == 1", set: ["level": 1000])
            }
        }
        #expect(try Self.levels(store) == [3, -1, 0, 5])
        #expect(try store.read { try $0.count("Dog") } == 3)
    }
}
