import Testing
@testable import Trove

/// A transaction remembers the nested objects it wrote, so one given again with the same
/// values writes nothing; a write of its model in between makes it write again.
@Suite struct NestedWriteMemoTests {
    static let schema = """
    {"models": [
      {"name": "Team", "primaryKey": "id", "properties": {"id": "string", "n": "int"}},
      {"name": "Person", "primaryKey": "id", "properties": {"id": "int", "team": "Team?"}}
    ]}
    """

    @Test func aNestedObjectWrittenAgainWithTheSameValuesIsFoundInTheMemo() throws {
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(Self.schema)))
        try store.write { tx in
            #expect(!tx.wroteNested("Team", primaryKey: "a") { _ in ["id": "a", "n": 1] })
            try tx.insert("Person", ["id": 1, "team": .object(["id": "a", "n": 1])])
            #expect(tx.wroteNested("Team", primaryKey: "a") { _ in ["id": "a", "n": 1] })
            #expect(!tx.wroteNested("Team", primaryKey: "a") { _ in ["id": "a", "n": 2] })
            #expect(!tx.wroteNested("Team", primaryKey: "a") { _ in ["id": "a"] })
            #expect(!tx.wroteNested("Team", primaryKey: "b") { _ in ["id": "b", "n": 1] })
            try tx.insert("Person", ["id": 2, "team": .object(["id": "a", "n": 1])])
            #expect(tx.wroteNested("Team", primaryKey: "a") { _ in ["id": "a", "n": 1] })
        }
        try store.read { (s) throws in
            #expect(try s.count("Team") == 1)
            for person in 1...2 {
                #expect(try s.object("Person", primaryKey: .int(Int64(person)))?.object("team")?.int("n") == 1)
            }
        }
    }

    /// The values to compare, which a typed write shapes first, are asked for only where the
    /// memo holds the primary key.
    @Test func theValuesAreAskedForOnlyWhereTheMemoHoldsThePrimaryKey() throws {
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(Self.schema)))
        try store.write { tx in
            var asked = 0
            let team: [String: Value] = ["id": "a", "n": 1]
            #expect(!tx.wroteNested("Team", primaryKey: "a") { _ in asked += 1; return team })
            try tx.insert("Person", ["id": 1, "team": .object(team)])
            #expect(!tx.wroteNested("Team", primaryKey: "b") { _ in asked += 1; return ["id": "b", "n": 1] })
            #expect(asked == 0)
            #expect(tx.wroteNested("Team", primaryKey: "a") { _ in asked += 1; return team })
            #expect(asked == 1)
        }
    }

    @Test func aWriteOfTheNestedObjectsModelInBetweenMakesItWriteAgain() throws {
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(Self.schema)))
        try store.write { tx in
            try tx.insert("Person", ["id": 1, "team": .object(["id": "a", "n": 1])])
            _ = try tx.update("Team", primaryKey: "a", ["n": 5])
            #expect(!tx.wroteNested("Team", primaryKey: "a") { _ in ["id": "a", "n": 1] })
            try tx.insert("Person", ["id": 2, "team": .object(["id": "a", "n": 1])])
        }
        try store.read { (s) throws in
            #expect(try s.object("Team", primaryKey: "a")?.int("n") == 1)
        }
    }
}
