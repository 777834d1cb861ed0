import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// Trove's SQL means PostgreSQL's built-ins: an operator or function of the user's schema
/// (the one the tables live in) with a built-in's name and argument types changes no answer.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresBuiltinsTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "S", "primaryKey": "id", "properties": {"id": "int", "g": "int", "d": "double?", "f": "float?", "ds": "double[]"}},
                    {"name": "pg_type", "primaryKey": "id", "properties": {"id": "int", "s": "S?"}}]}
        """#.utf8), fileName: "builtins")

    /// An answer as rows (a value is one row of one).
    static func rows(_ text: String, _ store: Store) throws -> [[Value]] {
        switch try store.read({ try $0.answer(text) }) {
        case .rows(let rows): rows.map(\.values)
        case .value(let value): [[value]]
        case .objects: []
        }
    }

    static func rows(_ text: String, _ postgres: PostgresStore) throws -> [[Value]] {
        switch try postgres.run(text) {
        case .rows(let rows): rows.rows
        case .value(_, let value): [[value]]
        case .objects: []
        }
    }

    /// The tables' schema is the first schema of the search_path that holds them: a schema
    /// that comes before it in the path (made after the tables, as a schema named for the
    /// role in `"$user", public`) hides no data.
    @Test func theTablesAreFoundInALaterSchemaOfThePath() throws {
        let url = try PostgresTestServer.freshURL()
        let postgres = try PostgresStore(url: url, schema: Self.schema)
        try postgres.insert("S", ["id": 1, "g": 0])
        let before = String(try #require(try PostgresTestServer.freshURL().split(separator: "search_path%3D").last))
        let both = url.replacing("search_path%3D", with: "search_path%3D\(before)%2C")
        let reopened = try PostgresStore(url: both)
        #expect(try Self.rows("count S", reopened) == [[.int(1)]])
        #expect(reopened.schema.models.map(\.name).sorted() == ["S", "pg_type"])
    }

    @Test func operatorsAndFunctionsOfTheUsersSchemaChangeNoAnswer() throws {
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.schema)
        let store = try Store(configuration: .inMemory(schema: Self.schema))
        var objects: [[String: Value]] = []
        for i in 1...12 {
            let d = Double(i) * (i.isMultiple(of: 2) ? -1.5 : 2.25)
            objects.append(["id": .int(Int64(i)), "g": .int(Int64(i % 3)), "d": .double(d), "f": .float(Float(d)),
                            "ds": .list([.double(d), .double(-d / 4), .double(1)])])
        }
        for object in objects { try postgres.insert("S", object) }
        try postgres.insert("pg_type", ["id": 1, "s": 3])
        try store.write { tx in
            for object in objects { _ = try tx.insert("S", object) }
            _ = try tx.insert("pg_type", ["id": 1, "s": 3])
        }
        // What a user's schema may hold: a `>` of doubles and of floats that is never true, an
        // `abs` that is always 42 and a `sum` of doubles that starts at 1000, all named as
        // PostgreSQL's own with the same argument types.
        for sql in [
            "CREATE FUNCTION never(double precision, double precision) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT false'",
            "CREATE OPERATOR > (LEFTARG = double precision, RIGHTARG = double precision, FUNCTION = never)",
            "CREATE FUNCTION never(real, real) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT false'",
            "CREATE OPERATOR > (LEFTARG = real, RIGHTARG = real, FUNCTION = never)",
            "CREATE FUNCTION abs(double precision) RETURNS double precision LANGUAGE sql IMMUTABLE AS 'SELECT 42::float8'",
            "CREATE AGGREGATE sum(double precision) (SFUNC = pg_catalog.float8pl, STYPE = double precision, INITCOND = '1000')",
        ] {
            try postgres.connection.execute(sql)
        }
        let texts = [
            "S where d > 1 SORT(id) SELECT(id)", "S where f > 1 SORT(id) SELECT(id)", "S where ANY ds > 2 SORT(id) SELECT(id)",
            "sum S.d", "avg S.d", "sum S.f", "sum S.d where d > -3", "max S.d", "S where ds.@sum > 3 SORT(id) SELECT(id, d)",
            "S GROUP(g) SELECT(g, @sum.d, @avg.d, @sum.f, @max.d) SORT(g)",
            "S SORT(id) SELECT(id, ds.@sum, ds.@avg, ds.@max)", "S where d > 0 GROUP(g) SELECT(g, @count) SORT(g)",
            "pg_type where s.d > 1 SELECT(id, s.d)", "pg_type SELECT(id, s.d, s.ds.@sum)",
        ]
        for text in texts {
            let expected = try Self.rows(text, store)
            #expect(!expected.isEmpty, "\(text)")
            #expect(try Self.rows(text, postgres) == expected, "\(text)")
        }
    }
}
