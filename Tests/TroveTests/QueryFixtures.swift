import Foundation
@testable import Trove
import TestRandom

/// A schema and data set for query tests: people with links, lists, inverse relationships and
/// every scalar type, many nulls and Unicode strings. The same data goes into a store whose
/// properties are indexed and one whose are not.
enum QueryFixtures {
    static func schema(indexed: Bool) throws -> Schema {
        let i = indexed ? "true" : "false"
        return try schemaFromJSON("""
        {"schemaVersion": 0, "models": [
          {"name": "Person", "primaryKey": "id", "properties": {
            "id": "int",
            "name": {"type": "string", "indexed": \(i)},
            "nick": {"type": "string?", "indexed": \(i)},
            "age": {"type": "int?", "indexed": \(i)},
            "level": {"type": "int8", "indexed": \(i)},
            "score": "double?",
            "weight": "float?",
            "born": {"type": "date?", "indexed": \(i)},
            "active": {"type": "bool", "indexed": \(i)},
            "balance": "decimal?",
            "token": {"type": "uuid?", "indexed": \(i)},
            "blob": "data?",
            "tags": "string[]",
            "scores": "int?[]",
            "bestFriend": "Person?",
            "dogs": "Dog[]",
            "fans": {"type": "linkingObjects", "objectType": "Person", "property": "bestFriend"}}},
          {"name": "Dog", "primaryKey": "id", "properties": {
            "id": "int",
            "name": {"type": "string", "indexed": \(i)},
            "age": "int",
            "weight": "double?",
            "vet": "Vet?",
            "owners": {"type": "linkingObjects", "objectType": "Person", "property": "dogs"}}},
          {"name": "Vet", "properties": {"name": "string?", "rating": "int?"}}
        ]}
        """)
    }

    static let strings: [String] = [
        "Ada", "ada", "ADA", "Åsa", "åsa", "Straße", "STRASSE", "strasse", "école", "e\u{301}cole", "Ecole",
        "Zoë", "Zoe", "zoë", "", "日本語", "ﬁne", "fine", "Ωmega", "σίσυφος", "ΣΊΣΥΦΟΣ", "a*b", "x?y", "Bob",
        "bobby", "Robert", "Mary Ann", "line\nbreak", "a\r\nb", "İstanbul", "istanbul", "😀 smile", "naïve", "naive",
        String(repeating: "L", count: 450) + "1", String(repeating: "L", count: 450) + "2",
    ]
    static let doubles: [Double] = [-2.5, 0, 0.1, 1, 1.5, 3, 7.25, 100, -0.0]
    static let floats: [Float] = [-1.5, 0, 0.1, 2, 3.75]
    /// The values of `double` and `float` with rules of their own (NaN orders with nothing and
    /// sorts after every number, -0 is 0, an infinity is a value in sums), held by some
    /// objects and met by some constants.
    static let specialDoubles: [Double] = [.nan, .infinity, -.infinity, -0.0]

    /// A double for the data: sometimes one of `specialDoubles`.
    static func double(_ rng: inout Random) -> Double {
        rng.chance(12) ? rng.pick(specialDoubles) : rng.pick(doubles)
    }

    static func float(_ rng: inout Random) -> Float {
        rng.chance(12) ? Float(rng.pick(specialDoubles)) : rng.pick(floats)
    }
    static let dates: [Date] = [
        Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 86_400.5), Date(timeIntervalSince1970: 1_700_000_000),
        Date(timeIntervalSince1970: 1_700_000_000.123456), Date(timeIntervalSince1970: -1_000_000),
    ]
    static let decimals: [Decimal] = ["1.5", "2", "-3.25", "0", "100.01"].map { Decimal(string: $0)! }
    static let uuids: [UUID] = [
        UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, UUID(uuidString: "00000000-0000-0000-0000-000000000001")!,
        UUID(uuidString: "FFFFFFFF-0000-0000-0000-000000000000")!,
    ]
    static let blobs: [Data] = [Data(), Data([0]), Data([1, 2, 3]), Data([0xFF, 0])]

    typealias Random = SplitMix64

    /// Fills a store with `people` people, dogs and vets, the same for the same seed.
    static func populate(_ store: Store, seed: UInt64, people: Int = 120, dogs: Int = 60) throws {
        var rng = Random(seed: seed)
        try store.write { tx in
            var vets: [Value] = []
            for v in 0..<8 {
                let vet = try tx.insert("Vet", ["name": rng.chance(20) ? .null : .string("vet\(v)"),
                                                "rating": rng.chance(30) ? .null : .int(Int64(rng.int(5)))])
                vets.append(.reference(vet.reference))
            }
            for d in 1...dogs {
                try tx.insert("Dog", ["id": .int(Int64(d)), "name": .string(rng.pick(strings)), "age": .int(Int64(rng.int(15))),
                                      "weight": rng.chance(30) ? .null : .double(double(&rng)),
                                      "vet": rng.chance(40) ? .null : rng.pick(vets)])
            }
            for p in 1...people {
                func maybe(_ value: Value) -> Value { rng.chance(30) ? .null : value }
                let dogIDs = (0..<rng.int(4)).map { _ in Value.int(Int64(1 + rng.int(dogs))) }
                try tx.insert("Person", [
                    "id": .int(Int64(p)),
                    "name": .string(rng.pick(strings)),
                    "nick": maybe(.string(rng.pick(strings))),
                    "age": maybe(.int(Int64(rng.int(60)))),
                    "level": .int(Int64(rng.int(11) - 5)),
                    "score": maybe(.double(double(&rng))),
                    "weight": maybe(.float(float(&rng))),
                    "born": maybe(.date(rng.pick(dates))),
                    "active": .bool(rng.chance(50)),
                    "balance": maybe(.decimal(rng.pick(decimals))),
                    "token": maybe(.uuid(rng.pick(uuids))),
                    "blob": maybe(.data(rng.pick(blobs))),
                    "tags": .list((0..<rng.int(4)).map { _ in .string(rng.pick(strings)) }),
                    "scores": .list((0..<rng.int(5)).map { _ in rng.chance(20) ? .null : .int(Int64(rng.int(20))) }),
                    "dogs": .list(dogIDs),
                ])
            }
            for p in 1...people where rng.chance(70) {
                try tx.update("Person", primaryKey: .int(Int64(p)), ["bestFriend": .int(Int64(1 + rng.int(people)))])
            }
        }
    }

    static func store(indexed: Bool, seed: UInt64 = 1, people: Int = 120, dogs: Int = 60) throws -> Store {
        let store = try Store(configuration: .inMemory(schema: try schema(indexed: indexed)))
        try populate(store, seed: seed, people: people, dogs: dogs)
        return store
    }

    /// A small hand-made data set for the behaviour tests.
    static func smallStore(indexed: Bool = true) throws -> Store {
        let store = try Store(configuration: .inMemory(schema: try schema(indexed: indexed)))
        try store.write { tx in
            let vet = try tx.insert("Vet", ["name": "Dr. Who", "rating": 5])
            try tx.insert("Dog", ["id": 1, "name": "Rex", "age": 3, "weight": 10.5, "vet": .reference(vet.reference)])
            try tx.insert("Dog", ["id": 2, "name": "Fido", "age": 7, "weight": nil])
            try tx.insert("Dog", ["id": 3, "name": "Élan", "age": 1, "weight": 4])
            try tx.insert("Person", ["id": 1, "name": "Ada", "nick": "ada", "age": 36, "level": 3, "score": 1.5, "weight": 0.1,
                                     "born": "1815-12-10T00:00:00Z", "active": true, "balance": .decimal(Decimal(string: "10.25")!),
                                     "token": .uuid(uuids[0]), "blob": .data(Data([1, 2, 3])),
                                     "tags": ["math", "poetry"], "scores": [1, 2, 3], "dogs": [1, 2]])
            try tx.insert("Person", ["id": 2, "name": "Bob", "age": nil, "level": -1, "active": false,
                                     "tags": [], "scores": [nil, 10], "dogs": [], "bestFriend": 1])
            try tx.insert("Person", ["id": 3, "name": "Zoë", "nick": "zoe", "age": 20, "level": 0, "score": 3, "active": true,
                                     "born": "2001-01-01T00:00:00.5Z", "tags": ["Math"], "scores": [], "dogs": [3, 1], "bestFriend": 2])
            try tx.insert("Person", ["id": 4, "name": "straße", "age": 36, "level": 5, "score": nil, "active": false,
                                     "bestFriend": 3])
        }
        return store
    }
}

extension Results {
    /// The primary keys of the objects, in order, as integers (test models use int keys).
    var ids: [Int64] {
        map { ((try? $0.int("id")) ?? nil) ?? -1 }
    }
}
