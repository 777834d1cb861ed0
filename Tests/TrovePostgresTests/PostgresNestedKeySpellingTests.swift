import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// A nested object's string key is kept as written on PostgreSQL as on a store: `é` and
/// `e` + U+0301 key two objects, also when one write gives both.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresNestedKeySpellingTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [
          {"name": "Team", "primaryKey": "id", "properties": {"id": "string", "n": "int"}},
          {"name": "Person", "primaryKey": "id", "properties": {"id": "int", "team": "Team?", "teams": "Team[]"}}
        ]}
        """#.utf8), fileName: "spelling")

    static let composed = "\u{E9}", decomposed = "e\u{301}"

    /// The writes: two in one transaction, each naming one spelling, and one whose list names both.
    static let people: [[String: Value]] = [
        ["id": 1, "team": .object(["id": .string(composed), "n": 1])],
        ["id": 2, "team": .object(["id": .string(decomposed), "n": 1])],
        ["id": 3, "teams": [.object(["id": .string(composed), "n": 1]), .object(["id": .string(decomposed), "n": 1])]],
    ]

    /// The UTF-8 bytes of each string in `value` (a key, or a list of keys).
    static func bytes(_ value: Value) -> [[UInt8]] {
        switch value {
        case .string(let s): [Array(s.utf8)]
        case .list(let elements): elements.flatMap(bytes)
        default: []
        }
    }

    @Test func eachSpellingOfANestedKeyIsAnObjectOfItsOwn() throws {
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.schema)
        let store = try Store(configuration: .inMemory(schema: Self.schema))
        try postgres.atomically { for person in Self.people { try postgres.insert("Person", person) } }
        try store.write { tx in for person in Self.people { _ = try tx.insert("Person", person) } }
        let spellings = [Array(Self.composed.utf8), Array(Self.decomposed.utf8)]
        let teams = try postgres.objects("Team").objects
        #expect(teams.map { Self.bytes($0[0]) }.flatMap { $0 }.sorted { $0.lexicographicallyPrecedes($1) } == spellings.sorted { $0.lexicographicallyPrecedes($1) })
        try store.read { (s) throws in #expect(try s.count("Team") == teams.count) }
        let columns = try postgres.objects("Person").columns
        let team = try #require(columns.firstIndex(of: "team")), list = try #require(columns.firstIndex(of: "teams"))
        let people = try postgres.objects("Person SORT(id)").objects
        #expect(people.map { Self.bytes($0[team]) } == [[spellings[0]], [spellings[1]], []])
        #expect(Self.bytes(people[2][list]) == spellings)
        try store.read { (s) throws in
            for (person, key) in [(1, Self.composed), (2, Self.decomposed)] {
                let linked = try #require(try s.object("Person", primaryKey: .int(Int64(person)))?.object("team"))
                #expect(Array(try #require(try linked.string("id")).utf8) == Array(key.utf8))
            }
        }
    }
}
