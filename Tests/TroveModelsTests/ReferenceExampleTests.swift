#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import Trove
import TroveModels

// The examples of the reference documents (shared/reference), in the typed API.

// "Using Realm with Value Types": the models, with no managed-object twins or mapping code.
@Model struct Publisher {
    @Attribute(.primaryKey) var identifier: Int
    var name: String
}

@Model struct Character {
    @Attribute(.primaryKey) var identifier: Int
    @Attribute(.indexed) var name: String
    var realName: String
    var publisher: Publisher?
}

// The RealmStore helper's user, found or created by its primary key.
@Model struct User {
    @Attribute(.primaryKey) var name: String
    var visits: Int = 0
}

@Suite struct ReferenceExampleTests {
    func comics() throws -> Store {
        try Store(configuration: .inMemory(schema: Schema(Character.self)))
    }

    @Test func valueTypesCreation() throws {
        let store = try comics()
        let character = Character(identifier: 1455, name: "Iron Man", realName: "Tony Stark",
                                  publisher: Publisher(identifier: 1, name: "Marvel"))
        try store.write { tx in try tx.insert(character) }
        let publisher = try store.read { try $0.object(Publisher.self, primaryKey: 1) }
        #expect(publisher?.name == "Marvel")
    }

    @Test func valueTypesPartialUpdate() throws {
        let store = try comics()
        try store.write { tx in
            try tx.insert(Character(identifier: 1455, name: "Iron Man", realName: "Tony Stark", publisher: Publisher(identifier: 1, name: "Marvel")))
        }
        // Realm: realm.create(CharacterObject.self, value: ["identifier": 1455, "realName": "..."], update: true)
        try store.write { tx in
            let ironMan = try #require(try tx.object(Character.self, primaryKey: 1455))
            try tx.update(ironMan) { $0.realName = "Anthony Edward Stark" }
        }
        let stored = try #require(try store.read { try $0.object(Character.self, primaryKey: 1455) })
        #expect(stored.realName == "Anthony Edward Stark" && stored.name == "Iron Man" && stored.publisher?.name == "Marvel")
    }

    @Test func valueTypesQuerying() throws {
        let store = try comics()
        let marvel = Publisher(identifier: 1, name: "Marvel")
        let dc = Publisher(identifier: 2, name: "DC")
        try store.write { tx in
            try tx.insert(Character(identifier: 1, name: "Iron Man", realName: "Tony Stark", publisher: marvel))
            try tx.insert(Character(identifier: 2, name: "Batman", realName: "Bruce Wayne", publisher: dc))
            try tx.insert(Character(identifier: 3, name: "Captain America", realName: "Steve Rogers", publisher: marvel))
        }
        // "All the Marvel characters sorted by name": realm.objects(...).filter("publisher.name == Marvel").sorted(byProperty: "name")
        let publisherName = "Marvel"
        let names = try store.read { s in
            try s.objects(Character.self, where: #Predicate { $0.publisher?.name == publisherName }, sortBy: [.init(\.name)]).map(\.name)
        }
        #expect(names == ["Captain America", "Iron Man"])
    }

    @Test func storeHelperGetOrCreate() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(User.self)))
        try store.write { tx in
            var user = try tx.getOrCreate(User.self, primaryKey: "A")
            user = try tx.getOrCreate(User.self, primaryKey: "B")
            user = try tx.getOrCreate(User.self, primaryKey: "A")
            #expect(user.name == "A")
        }
        #expect(try store.read { try $0.fetchCount(FetchDescriptor<User>()) } == 2)
    }

    @Test func storeHelperBackgroundAddHandsPrimaryKeysBack() async throws {
        let store = try Store(configuration: .inMemory(schema: Schema(User.self)))
        let keys = try await store.write { tx in
            let added = try ["A", "B", "C", "D"].map { try tx.getOrCreate(User.self, primaryKey: $0) }
            return try User.primaryKeys(of: added, as: String.self)
        }
        let users = try await store.read { try $0.objects(User.self, forPrimaryKeys: keys) }
        #expect(users.map(\.name) == ["A", "B", "C", "D"])
    }

    @Test func readmeExampleRuns() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Person.self)))
        try store.write { tx in
            try tx.insert(Person(id: 1, name: "Ann", age: 31, dogs: [Dog(id: 1, name: "Rex")]))
            let ann = try tx.getOrCreate(Person.self, primaryKey: 1)
            try tx.update(ann) { $0.age += 1 }
        }
        let minimum = 30
        let people = try store.read { s in
            try s.objects(Person.self, where: #Predicate { $0.age > minimum && $0.dogs.contains { $0.name.starts(with: "R") } },
                          sortBy: [.init(\.name)], limit: 10).values
        }
        #expect(people.map(\.age) == [32])
        let realmStyle = try store.read { s in
            try s.objects(Person.self, where: { $0.age > minimum && $0.dogs.name.starts(with: "R") },
                          sortBy: [.init(\.name)], limit: 10).values
        }
        #expect(realmStyle.map(\.age) == [32])
        let condition: (ModelQuery<Person, Person>) -> ModelCondition<Person> = { $0.age > minimum && $0.dogs.name.starts(with: "R") }
        #expect(try condition(ModelQuery()).queryText().text == "Person where age > $0 AND ANY dogs.name BEGINSWITH $1")
        let text = try FetchDescriptor<Person>(predicate: #Predicate { $0.age > minimum && $0.dogs.contains { $0.name.starts(with: "R") } }).queryText().text
        #expect(text == "Person where age > $0 AND SUBQUERY(dogs, $x0, $x0.name BEGINSWITH $1).@count > 0")
    }
}
