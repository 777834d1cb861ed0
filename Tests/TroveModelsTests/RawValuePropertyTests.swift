#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import Trove
import TroveModels

/// Queryable in a `where:` closure too, as it declares.
enum Mood: String, Codable, Sendable, QueryableValue {
    case happy, grumpy
}

enum Size: Int, Codable, Sendable, StorableProperty {
    case small = 1, large = 3
}

@Model struct Pet {
    @Attribute(.primaryKey) var id: Int
    var mood: Mood
    var size: Size?
    var moods: [Mood] = []
}

@Suite struct RawValuePropertyTests {
    @Test func aRawValueEnumIsStoredReadQueriedAndUpdatedAsItsRawValue() throws {
        let schema = try Schema(Pet.self)
        let types = Dictionary(uniqueKeysWithValues: schema.models[0].properties.map { ($0.name, $0.type) })
        #expect(types["mood"] == .string)
        #expect(types["size"] == .int)
        #expect(types["moods"] == .list(.string))
        let store = try Store(configuration: .inMemory(schema: schema))
        try store.write { tx in
            try tx.insert(Pet(id: 1, mood: .happy, size: .large, moods: [.grumpy, .happy]))
            try tx.insert(Pet(id: 2, mood: .grumpy))
            _ = try tx.update(try tx.getOrCreate(Pet.self, primaryKey: 1)) { $0.size = .small }
        }
        try store.read { s in
            let one = try #require(try s.object(Pet.self, primaryKey: 1))
            #expect(one.mood == .happy && one.size == .small && one.moods == [.grumpy, .happy])
            #expect(try s.object("Pet", primaryKey: 1)?.value("size") == .int(1))
            let grumpy = Mood.grumpy
            #expect(try s.objects(Pet.self, where: #Predicate { $0.mood == grumpy }).map(\.id) == [2])
            #expect(try s.objects(Pet.self, where: #Predicate { $0.size == nil }).map(\.id) == [2])
        }
    }

    @Test func anEnumThatIsAQueryableValueIsComparedInAWhereClosure() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Pet.self)))
        try store.write { tx in
            try tx.insert(Pet(id: 1, mood: .happy))
            try tx.insert(Pet(id: 2, mood: .grumpy))
        }
        let grumpy = try store.read { try $0.objects(Pet.self, where: { $0.mood == .grumpy }).map(\.id) }
        let notGrumpy = try store.read { try $0.objects(Pet.self, where: { $0.mood != .grumpy }).map(\.id) }
        let either = try store.read { try $0.objects(Pet.self, where: { $0.mood.in([.happy, .grumpy]) }).count }
        #expect(grumpy == [2] && notGrumpy == [1] && either == 2)
    }

    @Test func aRawValueNamingNoCaseIsADecodingErrorNamingTheProperty() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Pet.self)))
        try store.write { tx in _ = try tx.insert("Pet", ["id": 1, "mood": "sleepy"]) }
        #expect {
            try store.read { try $0.object(Pet.self, primaryKey: 1) }
        } throws: { error in
            (error as? ModelDecodingError)?.property == "mood"
        }
    }
}
