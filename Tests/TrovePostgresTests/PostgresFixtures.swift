import Foundation
import Trove
import TrovePostgres

/// The schema and data the PostgreSQL tests share: links, lists, linkingObjects and nulls.
enum PostgresFixtures {
    /// The `id` of each object a store's query matched, in order: what the differential and
    /// parity tests compare with PostgreSQL's answer.
    static func ids(_ results: Results) throws -> [Int64] {
        try results.map { object in
            guard case .int(let id)? = try object.json()["id"] else { throw PostgresError("no id") }
            return id
        }
    }

    /// The `id` (first column) of each row PostgreSQL returned, in order; -1 for a row without one.
    static func ids(_ objects: PostgresObjects) -> [Int64] {
        objects.objects.map { if case .int(let id) = $0[0] { id } else { -1 } }
    }

    static let schemaText = """
    {
      "schemaVersion": 1,
      "models": [
        {
          "name": "Person",
          "primaryKey": "id",
          "properties": {
            "id": "int",
            "name": { "type": "string?", "indexed": true },
            "age": "int?",
            "score": "double?",
            "flag": "bool?",
            "born": "date?",
            "tags": "string[]",
            "nums": "int[]",
            "friend": "Person?",
            "dogs": "Dog[]"
          }
        },
        {
          "name": "Dog",
          "primaryKey": "id",
          "properties": {
            "id": "int",
            "name": "string?",
            "age": "int?",
            "owners": { "type": "linkingObjects", "objectType": "Person", "property": "dogs" }
          }
        }
      ]
    }
    """

    static var schema: Schema { try! Schema(jsonData: Array(schemaText.utf8), fileName: "fixture") }

    static let strings: [String] = ["", "a", "A", "ab", "Ab", "abc", "b", "B", "ba", "zz", "ü", "Ü", "über", "Ünïcode",
                                    "Unicode", "x*y", "it's", "$1", "'; DROP TABLE \"Person\"; --", "back\\slash", "100%", "a_b",
                                    "*b*", "a?", "?", "*%*", "A\\*", "Ü*", "üb*",
                                    // Canonically equivalent spellings (NFD beside the NFC ones above).
                                    "e\u{301}", "\u{E9}", "u\u{308}ber", "e\u{301}e\u{301}", "\u{E9}\u{E9}", "U\u{308}ni\u{308}code", "u\u{308}b*"]
    /// The strings lists hold: short ones, and both spellings of `é`.
    static let tagStrings = Array(strings.prefix(10)) + ["e\u{301}", "\u{E9}", "e\u{301}e\u{301}"]

    /// A small deterministic generator (SplitMix64).
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
        mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
    }

    /// Dogs then people, as values for `insert`.
    static func data(seed: UInt64) -> (dogs: [[String: Value]], people: [[String: Value]]) {
        var random = Random(state: seed)
        let dogs: [[String: Value]] = (1...12).map { id in
            ["id": .int(Int64(id)), "name": random.chance(20) ? .null : .string(random.pick(strings)),
             "age": random.chance(20) ? .null : .int(Int64(random.int(0...15)))]
        }
        let people: [[String: Value]] = (1...40).map { id in
            var p: [String: Value] = ["id": .int(Int64(id))]
            p["name"] = random.chance(15) ? .null : .string(random.pick(strings))
            p["age"] = random.chance(20) ? .null : .int(Int64(random.int(0...60)))
            // Sometimes NaN, an infinity or -0, each with rules of its own on both backends.
            p["score"] = random.chance(20) ? .null
                : random.chance(12) ? .double(random.pick([.nan, .infinity, -.infinity, -0.0]))
                : .double(Double(random.int(-20...20)) / 4)
            p["flag"] = random.chance(30) ? .null : .bool(random.chance(50))
            p["born"] = random.chance(25) ? .null : .date(Date(timeIntervalSince1970: Double(random.int(0...2_000_000)) * 1000))
            p["tags"] = .list((0..<random.int(0...3)).map { _ in .string(random.pick(tagStrings)) })
            p["nums"] = .list((0..<random.int(0...4)).map { _ in .int(Int64(random.int(0...9))) })
            p["friend"] = id > 1 && random.chance(60) ? .int(Int64(random.int(1...(id - 1)))) : .null
            p["dogs"] = .list((0..<random.int(0...3)).map { _ in .int(Int64(random.int(1...12))) })
            return p
        }
        return (dogs, people)
    }
}
