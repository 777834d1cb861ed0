import Testing
import Trove
import TroveModels

/// List edits write the stored list alone: a stale owner value, or a linked value whose own
/// copy differs from the stored one, leaves everything but the list as stored.
@Suite struct TypedListEditTests {
    func stored(_ store: Store, _ id: Int) throws -> Person {
        try #require(try store.read { try $0.object(Person.self, primaryKey: id) })
    }

    @Test func appendInsertRemoveAndMoveEditAListOfValues() throws {
        let store = try peopleStore()
        let ann = try stored(store, 1)     // tags ["a", "b"]
        try store.write { tx in
            try tx.append("c", to: \.tags, of: ann)
            try tx.insert("z", at: 0, into: \.tags, of: ann)
        }
        #expect(try stored(store, 1).tags == ["z", "a", "b", "c"])
        try store.write { tx in
            try tx.move(from: 0, to: 3, in: \.tags, of: ann)
            try tx.remove(at: 1, from: \.tags, of: ann)
        }
        #expect(try stored(store, 1).tags == ["a", "c", "z"])
    }

    @Test func aListEditLeavesTheOwnersOtherPropertiesAsStored() throws {
        let store = try peopleStore()
        let stale = try stored(store, 1)
        try store.write { tx in _ = try tx.update("Person", primaryKey: 1, ["name": "Anne", "tags": .list(["q"])]) }
        try store.write { tx in try tx.append("r", to: \.tags, of: stale) }
        let ann = try stored(store, 1)
        #expect(ann.name == "Anne" && ann.tags == ["q", "r"])
    }

    @Test func aListOfLinksLinksObjectsWithoutWritingThem() throws {
        let store = try peopleStore()
        let bob = try stored(store, 2)     // dogs [Fido]
        var rex = try #require(try store.read { try $0.object(Dog.self, primaryKey: 1) })
        rex.age = 99                        // a local change the list edit does not write
        try store.write { tx in
            try tx.append(rex, to: \.dogs, of: bob)
            try tx.insert(Dog(id: 8, name: "New"), at: 0, into: \.dogs, of: bob)
        }
        #expect(try stored(store, 2).dogs.map(\.id) == [8, 2, 1])
        #expect(try store.read { try $0.object(Dog.self, primaryKey: 1)?.age } == 3)
        #expect(try store.read { try $0.object(Dog.self, primaryKey: 8)?.owners.map(\.id) } == [2])
        try store.write { tx in
            try tx.move(from: 2, to: 0, in: \.dogs, of: bob)
            try tx.remove(at: 1, from: \.dogs, of: bob)
        }
        #expect(try stored(store, 2).dogs.map(\.id) == [1, 2])
        #expect(try store.read { try $0.object(Dog.self, primaryKey: 8)?.owners.isEmpty } == true)
    }

    @Test func positionsOutsideTheListAreErrors() throws {
        let store = try peopleStore()
        let bob = try stored(store, 2)     // tags []
        #expect(throws: StoreError.self) { try store.write { tx in try tx.remove(at: 0, from: \.tags, of: bob) } }
        #expect(throws: StoreError.self) { try store.write { tx in try tx.insert("x", at: 1, into: \.tags, of: bob) } }
        #expect(throws: StoreError.self) { try store.write { tx in try tx.move(from: 0, to: 0, in: \.tags, of: bob) } }
        try store.write { tx in try tx.insert("x", at: 0, into: \.tags, of: bob) }
        #expect(try stored(store, 2).tags == ["x"])
        #expect { try store.write { tx in try tx.remove(at: 5, from: \.tags, of: bob) } } throws: {
            "\($0)".hasSuffix("position 5 is outside 'Person.tags', which has 1 element")
        }
        let gone = Person(id: 77, name: "Nobody")
        #expect(throws: StoreError.self) { try store.write { tx in try tx.append("x", to: \.tags, of: gone) } }
    }
}
