import Foundation
import Testing
@testable import Trove
import TestRandom

/// Random inserts, upserts, partial updates and deletes (with links and lists) mirrored into
/// plain Swift dictionaries; the store must agree after every commit and after reopening.
@Suite struct StoreModelTests {
    struct Person: Equatable { var name: String; var age: Int64?; var friend: Int64?; var dogs: [Int64] }
    struct Dog: Equatable { var name: String }

    static let schema = """
    {"schemaVersion": 1, "models": [
      {"name": "Person", "primaryKey": "id", "properties": {"id": "int", "name": {"type": "string", "indexed": true},
        "age": {"type": "int?", "indexed": true}, "friend": "Person?", "dogs": "Dog[]",
        "fans": {"type": "linkingObjects", "objectType": "Person", "property": "friend"}}},
      {"name": "Dog", "primaryKey": "id", "properties": {"id": "int", "name": "string",
        "owners": {"type": "linkingObjects", "objectType": "Person", "property": "dogs"}}}]}
    """

    typealias SplitMix = SplitMix64

    static func check(_ store: Store, people: [Int64: Person], dogs: [Int64: Dog]) throws {
        try store.read { s in
            #expect(try s.count("Person") == people.count)
            #expect(try s.count("Dog") == dogs.count)
            for (id, p) in people {
                guard let o = try s.object("Person", primaryKey: .int(id)) else { Issue.record("person \(id) missing"); continue }
                let friend = try o.object("friend")?.int("id")
                let got = Person(name: try o.string("name")!, age: try o.int("age"), friend: friend,
                                 dogs: try o.list("dogs").map { try $0.int("id")! })
                #expect(got == p, "person \(id)")
                let fans = Set(try o.list("fans").map { try $0.int("id")! })
                #expect(fans == Set(people.filter { $0.value.friend == id }.map(\.key)), "fans of \(id)")
            }
            for (id, d) in dogs {
                guard let o = try s.object("Dog", primaryKey: .int(id)) else { Issue.record("dog \(id) missing"); continue }
                #expect(try o.string("name") == d.name)
                let owners = Set(try o.list("owners").map { try $0.int("id")! })
                #expect(owners == Set(people.filter { $0.value.dogs.contains(id) }.map(\.key)), "owners of \(id)")
            }
        }
    }

    @Test(arguments: [1, 2, 3, 4])
    func randomWritesAgreeWithAPlainModel(seed: Int) throws {
        let dir = StoreTempDir(); defer { dir.cleanup() }
        let path = dir.file("model.trove")
        let schema = try schemaFromJSON(Self.schema)
        var store = try Store(path: path, schema: schema)
        var rng = SplitMix(seed: UInt64(seed))
        var people: [Int64: Person] = [:], dogs: [Int64: Dog] = [:]
        for round in 0..<60 {
            var p2 = people, d2 = dogs
            let fail = rng.next() % 6 == 0
            do {
                try store.write { tx in
                    for _ in 0..<(1 + Int(rng.next() % 12)) {
                        let id = Int64(rng.next() % 40)
                        switch rng.next() % 7 {
                        case 0:
                            let d = Dog(name: "dog\(rng.next() % 100)")
                            try tx.upsert("Dog", ["id": .int(id), "name": .string(d.name)])
                            d2[id] = d
                        case 1, 2:
                            let age: Int64? = rng.next() % 3 == 0 ? nil : Int64(rng.next() % 90)
                            let friend: Int64? = rng.next() % 2 == 0 ? nil : p2.keys.randomElement(using: &rng)
                            let myDogs = d2.isEmpty ? [] : (0..<Int(rng.next() % 3)).map { _ in d2.keys.randomElement(using: &rng)! }
                            let name = "p\(rng.next() % 50)"
                            try tx.upsert("Person", ["id": .int(id), "name": .string(name), "age": age.map { .int($0) } ?? .null,
                                                     "friend": friend.map { .int($0) } ?? .null, "dogs": .list(myDogs.map { .int($0) })])
                            p2[id] = Person(name: name, age: age, friend: friend, dogs: myDogs)
                        case 3:
                            if p2[id] != nil {
                                let age = Int64(rng.next() % 90)
                                try tx.update("Person", primaryKey: .int(id), ["age": .int(age)])
                                p2[id]!.age = age
                            }
                        case 4:
                            if try tx.delete("Person", primaryKey: .int(id)) {
                                p2[id] = nil
                                for k in p2.keys where p2[k]!.friend == id { p2[k]!.friend = nil }
                            }
                        case 5:
                            if try tx.delete("Dog", primaryKey: .int(id)) {
                                d2[id] = nil
                                for k in p2.keys { p2[k]!.dogs.removeAll { $0 == id } }
                            }
                        default:
                            _ = try tx.getOrCreate("Dog", primaryKey: .int(id))
                            if d2[id] == nil { d2[id] = Dog(name: "") }
                        }
                    }
                    if fail { throw CancellationError() }
                }
                people = p2; dogs = d2
            } catch is CancellationError {}
            try Self.check(store, people: people, dogs: dogs)
            if round % 20 == 19 {
                store = try Store(path: path)
                try Self.check(store, people: people, dogs: dogs)
            }
        }
        #expect(try store.verify().isEmpty)
    }
}
