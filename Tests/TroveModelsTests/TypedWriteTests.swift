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

    @Test func aNestedObjectWrittenAgainInOneTransactionHoldsTheLatestValues() throws {
        let store = try peopleStore()
        func rex() throws -> (name: String, age: Int)? {
            try store.read { (s: Snapshot) throws in try s.object(Dog.self, primaryKey: 1).map { ($0.name, $0.age) } }
        }
        try store.write { tx in
            try tx.insert(Person(id: 5, name: "Eve", bestFriend: Dog(id: 1, name: "Rex", age: 3)))
            try tx.insert(Person(id: 6, name: "Fay", bestFriend: Dog(id: 1, name: "Rex", age: 4)))
            #expect(try tx.object(Dog.self, primaryKey: 1)?.age == 4)
            // The values written first, again: written again, not taken as already there.
            try tx.insert(Person(id: 7, name: "Gus", bestFriend: Dog(id: 1, name: "Rex", age: 3)))
            #expect(try tx.object(Dog.self, primaryKey: 1)?.age == 3)
            // A write of the nested object's own model in between is not skipped over.
            _ = try tx.update("Dog", primaryKey: 1, ["name": "Rexy"])
            try tx.insert(Person(id: 8, name: "Hal", bestFriend: Dog(id: 1, name: "Rex", age: 3)))
            #expect(try tx.object(Dog.self, primaryKey: 1)?.name == "Rex")
            // Deleted, then linked again: created again.
            #expect(try tx.delete(Dog.self, primaryKey: 1))
            try tx.insert(Person(id: 9, name: "Ida", bestFriend: Dog(id: 1, name: "Rex", age: 3)))
            #expect(try tx.object(Person.self, primaryKey: 9)?.bestFriend?.name == "Rex")
            #expect(try tx.object(Person.self, primaryKey: 8)?.bestFriend == nil)
        }
        #expect(try rex()?.name == "Rex" && rex()?.age == 3)
        // The same nested values linked from many objects: the links all hold, one object.
        try store.write { tx in
            for id in 10..<20 { try tx.insert(Person(id: id, name: "P\(id)", bestFriend: Dog(id: 2, name: "Fido", age: 8))) }
        }
        try store.read { (s: Snapshot) throws in
            #expect(try s.objects("Person", where: "bestFriend.id == 2").count == 11)
            #expect(try s.object(Dog.self, primaryKey: 2)?.age == 8)
            #expect(try s.count("Dog") == 3)
        }
    }

    @Test func aWholeValueWriteSetsWhatTheSwiftTypeLacksToNull() throws {
        // The store's models have an optional property the Swift types do not declare.
        let derived = try Schema(Person.self)
        let schema = try Schema(schemaVersion: 0, models: derived.models.map { model in
            var model = model
            model.properties.append(PropertySchema(name: "note", type: .string, isOptional: true))
            return model
        })
        let store = try Store(configuration: .inMemory(schema: schema))
        try store.write { tx in
            _ = try tx.insert("Dog", ["id": 1, "name": "Rex", "note": "old"])
            _ = try tx.insert("Person", ["id": 1, "name": "Ann", "note": "old"])
        }
        try store.write { tx in
            try tx.upsert(Person(id: 1, name: "Ann", bestFriend: Dog(id: 1, name: "Rex")))
        }
        try store.read { (s: Snapshot) throws in
            #expect(try s.object("Person", primaryKey: 1)?.value("note") == .null)
            #expect(try s.object("Dog", primaryKey: 1)?.value("note") == .null)
            #expect(try s.object(Person.self, primaryKey: 1)?.bestFriend?.name == "Rex")
        }
    }

    @Test func aTypeThatLinksToItselfWritesItsNestedValuesWhole() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(ChainNode.self)))
        try store.write { tx in
            try tx.insert(ChainNode(id: 1, next: [ChainNode(id: 2, next: [ChainNode(id: 3)]), ChainNode(id: 4)]))
            try tx.upsert(ChainNode(id: 2, next: []))
        }
        try store.read { (s: Snapshot) throws in
            #expect(try s.count("ChainNode") == 4)
            #expect(try s.object(ChainNode.self, primaryKey: 1)?.next.map(\.id) == [2, 4])
            #expect(try s.object(ChainNode.self, primaryKey: 2)?.next.isEmpty == true)
        }
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
        #expect(try Person._changedProperties(from: ann, to: ann).isEmpty)
        var older = ann
        older.age += 1
        older.nickname = nil
        #expect(try Person._changedProperties(from: ann, to: older).map { Person.modelProperties[$0].name } == ["age", "nickname"])
    }

    @Test func aModelWithAPrimaryKeyGivesItsPartialUpdateReadFromEachProperty() throws {
        let ann = Person(id: 1, name: "Ann", age: 31, nickname: "annie", bestFriend: Dog(id: 1, name: "Rex"))
        var changed = ann
        changed.age = 32
        changed.nickname = nil
        changed.bestFriend?.name = "Rexy"
        changed.scratch = 5
        let update = try #require(try Person._partialUpdate(from: ann, to: changed))
        #expect(update.primaryKey == .int(1))
        #expect(update.properties == [
            "age": .int(32), "nickname": .null,
            "bestFriend": .object(["id": .int(1), "name": .string("Rexy"), "age": .int(0), "isGood": .bool(true)]),
        ])
        #expect(try Person._partialUpdate(from: ann, to: ann)?.properties.isEmpty == true)
        changed.id = 2
        #expect(throws: StoreError.invalidArgument("update cannot change the primary key 'id' of Person")) {
            try Person._partialUpdate(from: ann, to: changed)
        }
        // A model listed by hand has none: its updates go through its table.
        #expect(try Account._partialUpdate(from: Account(), to: Account()) == nil)
    }

    @Test func aModelListedByHandComparesEncodings() throws {
        let ann = Account()
        ann.username = "ann"
        let other = Account()
        other.username = "ann"
        other.logins = 3
        #expect(try Account._changedProperties(from: ann, to: other).map { Account.modelProperties[$0].name } == ["logins"])
        #expect(try Account._changedProperties(from: ann, to: ann).isEmpty)
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
