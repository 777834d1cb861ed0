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

/// Ordered by its cases, the reverse of its raw values' order.
enum Rank: String, Codable, Sendable, StorableProperty, Comparable {
    case low = "z", high = "a"

    static func < (a: Rank, b: Rank) -> Bool { a == .low && b == .high }
}

@Model struct RankedPet {
    @Attribute(.primaryKey) var id: Int
    var mood: Mood
    var size: Size?
    var rank: Rank = .low
}

@Suite struct RawValuePropertyTests {
    /// Sorting by an enum compiles whether or not the enum is `Comparable`, and sorts by the
    /// stored raw values, as the query text's SORT does.
    @Test func anEnumSortsAsItsStoredRawValues() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(RankedPet.self)))
        try store.write { tx in
            try tx.insert(RankedPet(id: 1, mood: .happy, size: .large, rank: .low))
            try tx.insert(RankedPet(id: 2, mood: .grumpy, size: nil, rank: .high))
            try tx.insert(RankedPet(id: 3, mood: .happy, size: .small, rank: .high))
        }
        try store.read { s in
            func written(_ sort: String) throws -> [Int] {
                try s.query("RankedPet SORT(\(sort), id ASC)").map { Int(try $0.int("id") ?? -1) }
            }
            let byMood = try s.objects(RankedPet.self, sortBy: [.init(\.mood), .init(\.id)]).map(\.id)
            #expect(try byMood == [2, 1, 3] && byMood == written("mood ASC"))
            let bySize = try s.fetch(FetchDescriptor<RankedPet>(sortBy: [.init(\.size, order: .reverse), .init(\.id)])).map(\.id)
            #expect(try bySize == [1, 3, 2] && bySize == written("size DESC"))
            let byRank = try s.objects(RankedPet.self, sortBy: [.init(\.rank), .init(\.id)]).map(\.id)
            #expect(try byRank == [2, 3, 1] && byRank == written("rank ASC"))
            // The enum's own `<` puts `.low` first; the query compares the raw values "z" and "a".
            #expect(try s.objects(RankedPet.self, where: { $0.rank > .high }).map(\.id) == [1])
        }
    }

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
