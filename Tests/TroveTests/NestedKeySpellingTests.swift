import Testing
@testable import Trove

/// A store finds an object by its key's bytes, so `é` and `e` + U+0301 key two objects, also
/// when one write gives both as nested objects.
@Suite struct NestedKeySpellingTests {
    static let schema = """
    {"models": [
      {"name": "Team", "primaryKey": "id", "properties": {"id": "string", "n": "int"}},
      {"name": "Person", "primaryKey": "id", "properties": {"id": "int", "team": "Team?"}}
    ]}
    """

    @Test func eachSpellingOfANestedKeyIsAnObjectOfItsOwn() throws {
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(Self.schema)))
        try store.write { tx in
            try tx.insert("Person", ["id": 1, "team": .object(["id": "\u{E9}", "n": 1])])
            try tx.insert("Person", ["id": 2, "team": .object(["id": "e\u{301}", "n": 1])])
        }
        try store.read { (s) throws in
            #expect(try s.count("Team") == 2)
            for (person, key) in [(1, "\u{E9}"), (2, "e\u{301}")] {
                let team = try #require(try s.object("Person", primaryKey: .int(Int64(person)))?.object("team"))
                #expect(Array(try #require(try team.string("id")).utf8) == Array(key.utf8))
            }
        }
    }
}
