#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import Trove
import TroveModels

// The reference documents' examples (ReferenceExampleTests) with class models, as a user
// coming from Realm's `Object` subclasses writes them first.

@Model("Publisher") final class PublisherObject {
    @Attribute(.primaryKey) var identifier: Int
    var name: String

    init(identifier: Int, name: String) {
        self.identifier = identifier
        self.name = name
    }
}

@Model("Character") final class CharacterObject {
    @Attribute(.primaryKey) var identifier: Int
    @Attribute(.indexed) var name: String
    var realName: String
    var publisher: PublisherObject?

    init(identifier: Int, name: String, realName: String, publisher: PublisherObject? = nil) {
        self.identifier = identifier
        self.name = name
        self.realName = realName
        self.publisher = publisher
    }
}

@Model("User") final class UserObject {
    @Attribute(.primaryKey) var name: String = ""
    var visits: Int = 0
}

@Suite struct ReferenceExampleClassTests {
    func comics() throws -> Store {
        try Store(configuration: .inMemory(schema: Schema(CharacterObject.self)))
    }

    @Test func theClassModelsDeriveTheStructModelsSchema() throws {
        #expect(try Schema(CharacterObject.self) == Schema(Character.self))
        #expect(try Schema(UserObject.self) == Schema(User.self))
    }

    @Test func valueTypesCreation() throws {
        let store = try comics()
        let character = CharacterObject(identifier: 1455, name: "Iron Man", realName: "Tony Stark",
                                        publisher: PublisherObject(identifier: 1, name: "Marvel"))
        try store.write { tx in try tx.insert(character) }
        #expect(try store.read { try $0.object(PublisherObject.self, primaryKey: 1)?.name } == "Marvel")
    }

    @Test func valueTypesPartialUpdate() throws {
        let store = try comics()
        try store.write { tx in
            try tx.insert(CharacterObject(identifier: 1455, name: "Iron Man", realName: "Tony Stark", publisher: PublisherObject(identifier: 1, name: "Marvel")))
        }
        let ironMan = try #require(try store.read { try $0.object(CharacterObject.self, primaryKey: 1455) })
        let updated = try store.write { tx in try tx.update(ironMan) { $0.realName = "Anthony Edward Stark" } }
        #expect(updated.realName == "Anthony Edward Stark" && ironMan.realName == "Tony Stark")
        let stored = try #require(try store.read { try $0.object(CharacterObject.self, primaryKey: 1455) })
        #expect(stored.realName == "Anthony Edward Stark" && stored.name == "Iron Man" && stored.publisher?.name == "Marvel")
    }

    @Test func valueTypesQuerying() throws {
        let store = try comics()
        let marvel = PublisherObject(identifier: 1, name: "Marvel")
        let dc = PublisherObject(identifier: 2, name: "DC")
        try store.write { tx in
            try tx.insert(CharacterObject(identifier: 1, name: "Iron Man", realName: "Tony Stark", publisher: marvel))
            try tx.insert(CharacterObject(identifier: 2, name: "Batman", realName: "Bruce Wayne", publisher: dc))
            try tx.insert(CharacterObject(identifier: 3, name: "Captain America", realName: "Steve Rogers", publisher: marvel))
        }
        let publisherName = "Marvel"
        let names = try store.read { s in
            try s.objects(CharacterObject.self, where: #Predicate { $0.publisher?.name == publisherName }, sortBy: [.init(\.name)]).map(\.name)
        }
        #expect(names == ["Captain America", "Iron Man"])
        let realmStyle = try store.read { s in
            try s.objects(CharacterObject.self, where: { $0.publisher.name == publisherName }, sortBy: [.init(\.publisher?.name), .init(\.name)]).map(\.name)
        }
        #expect(realmStyle == names)
    }

    @Test func storeHelperGetOrCreate() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(UserObject.self)))
        try store.write { tx in
            var user = try tx.getOrCreate(UserObject.self, primaryKey: "A")
            user = try tx.getOrCreate(UserObject.self, primaryKey: "B")
            user = try tx.getOrCreate(UserObject.self, primaryKey: "A")
            #expect(user.name == "A")
        }
        #expect(try store.read { try $0.fetchCount(FetchDescriptor<UserObject>()) } == 2)
    }

    /// A class instance is not `Sendable`: the background write hands primary keys back, and
    /// the caller reads its own instances with them.
    @Test func storeHelperBackgroundAddHandsPrimaryKeysBack() async throws {
        let store = try Store(configuration: .inMemory(schema: Schema(UserObject.self)))
        let keys = try await store.write { tx in
            let added = try ["A", "B", "C", "D"].map { try tx.getOrCreate(UserObject.self, primaryKey: $0) }
            return try UserObject.primaryKeys(of: added, as: String.self)
        }
        #expect(try names(in: store, forPrimaryKeys: keys) == ["A", "B", "C", "D"])
    }

    /// A synchronous read, which may hand back instances.
    func names(in store: Store, forPrimaryKeys keys: [String]) throws -> [String] {
        try store.read { try $0.objects(UserObject.self, forPrimaryKeys: keys) }.map(\.name)
    }
}
