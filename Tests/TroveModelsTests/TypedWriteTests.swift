import Testing
import Trove
import TroveModels

@Suite struct TypedWriteTests {
    @Test func insertUpsertAndDeleteRoundTripValues() throws {
        let store = try peopleStore()
        try store.write { tx in
            var eve = Person(id: 5, name: "Eve", age: 22, tags: ["x"])
            try tx.insert(eve)
            #expect(throws: (any Error).self) { try tx.insert(eve) }
            eve.age = 23
            try tx.upsert(eve)
            #expect(try tx.object(Person.self, primaryKey: 5) == eve)
            #expect(try tx.delete(eve))
            #expect(try tx.object(Person.self, primaryKey: 5) == nil)
            #expect(try tx.delete(Person.self, primaryKey: 4))
            #expect(try !tx.delete(Person.self, primaryKey: 4))
        }
        #expect(try store.read { try $0.count("Person") } == 3)
    }

    @Test func aPartialUpdateWritesOnlyWhatTheClosureChanged() throws {
        let store = try peopleStore()
        let stale = try #require(try store.read { try $0.object(Person.self, primaryKey: 1) })
        // Another writer changes the name after `stale` was read; the update keeps it.
        try store.write { tx in _ = try tx.update("Person", primaryKey: 1, ["name": "Anne"]) }
        let updated = try store.write { tx in try tx.update(stale) { $0.age += 1 } }
        #expect(updated.age == 32)
        let stored = try #require(try store.read { try $0.object(Person.self, primaryKey: 1) })
        #expect(stored.age == 32 && stored.name == "Anne")
        #expect(throws: (any Error).self) { try store.write { tx in try tx.update(stored) { $0.id = 99 } } }
    }

    @Test func aPartialUpdateChangesLinksAndLists() throws {
        let store = try peopleStore()
        let bob = try #require(try store.read { try $0.object(Person.self, primaryKey: 2) })
        try store.write { tx in
            try tx.update(bob) {
                $0.tags.append("new")
                $0.bestFriend = Dog(id: 9, name: "Zed")
                $0.dogs.removeAll()
            }
        }
        let stored = try #require(try store.read { try $0.object(Person.self, primaryKey: 2) })
        #expect(stored.tags == ["new"] && stored.bestFriend?.name == "Zed" && stored.dogs.isEmpty)
        #expect(try store.read { try $0.object(Dog.self, primaryKey: 9)?.owners.isEmpty } == true)
        #expect(try store.read { try $0.object(Dog.self, primaryKey: 2)?.owners.map(\.id) } == [1])
    }

    @Test func aPartialUpdateComparesPropertyByPropertyThroughLinks() throws {
        let store = try peopleStore()
        let ann = try #require(try store.read { try $0.object(Person.self, primaryKey: 1) })
        // Another writer changes the age; an update that changes nothing, and one that changes
        // only the linked dog, leave it.
        try store.write { tx in _ = try tx.update("Person", primaryKey: 1, ["age": 50]) }
        try store.write { tx in
            try tx.update(ann) { $0.scratch = 7 }
            try tx.update(ann) { $0.bestFriend?.name = "Rexy" }
        }
        let stored = try #require(try store.read { try $0.object(Person.self, primaryKey: 1) })
        #expect(stored.age == 50 && stored.bestFriend?.name == "Rexy" && stored.dogs.map(\.name) == ["Rexy", "Fido"])
        #expect(try Person.changedProperties(from: ann, to: ann).isEmpty)
        var older = ann
        older.age += 1
        older.nickname = nil
        #expect(try Person.changedProperties(from: ann, to: older).map { Person.modelProperties[$0].name } == ["age", "nickname"])
    }

    @Test func aModelListedByHandComparesEncodings() throws {
        let ann = Account()
        ann.username = "ann"
        let other = Account()
        other.username = "ann"
        other.logins = 3
        #expect(try Account.changedProperties(from: ann, to: other).map { Account.modelProperties[$0].name } == ["logins"])
        #expect(try Account.changedProperties(from: ann, to: ann).isEmpty)
    }

    @Test func aPartialUpdateOfAClassWritesWhatTheClosureChanged() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Account.self)))
        let ann = Account()
        ann.username = "ann"
        try store.write { tx in try tx.insert(ann) }
        try store.write { tx in try tx.update(ann) { $0.logins = 4 } }
        #expect(try store.read { try $0.object(Account.self, primaryKey: "ann")?.logins } == 4)
        #expect(throws: (any Error).self) { try store.write { tx in try tx.update(ann) { $0.username = "bob" } } }
        #expect(try store.read { try $0.object(Account.self, primaryKey: "ann")?.logins } == 4)
    }

    @Test func getOrCreateFindsOrInsertsByPrimaryKey() throws {
        let store = try peopleStore()
        try store.write { tx in
            #expect(try tx.getOrCreate(Person.self, primaryKey: 1).name == "Ann")
            let created = try tx.getOrCreate(Dog.self, primaryKey: 42)
            #expect(created.id == 42 && created.age == 0 && created.isGood)
            let kept = try tx.getOrCreate(Person(id: 2, name: "Other"))
            #expect(kept.name == "Bob")
            let inserted = try tx.getOrCreate(Person(id: 7, name: "New"))
            #expect(try tx.object(Person.self, primaryKey: 7) == inserted)
        }
    }

    @Test func transientPropertiesAreNotStored() throws {
        let store = try peopleStore()
        try store.write { tx in
            var p = Person(id: 8, name: "T")
            p.scratch = 5
            try tx.insert(p)
            #expect(try tx.object(Person.self, primaryKey: 8)?.scratch == 0)
        }
        #expect(try Schema(Person.self)["Person"]?[property: "scratch"] == nil)
    }
}
