import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// A group of strings is told apart across runs (`watch`) by its NFC form, as a store's group
/// keys compare, so that the spelling it shows (its first object's) is read once a group and
/// a group whose first object goes keeps its identity.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresGroupIdentityTests {
    @Test func aGroupOfStringsIsToldApartByItsNFCForm() throws {
        let schema = try Schema(jsonData: Array(#"""
            {"models": [{"name": "P", "properties": {"name": "string", "n": "int"}}]}
            """#.utf8), fileName: "identity")
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let store = try Store(configuration: .inMemory(schema: schema))
        let objects: [[String: Value]] = [["name": "e\u{301}", "n": 1], ["name": "\u{E9}", "n": 2], ["name": "f", "n": 3]]
        for object in objects { try postgres.insert("P", object) }
        try store.write { tx in for object in objects { _ = try tx.insert("P", object) } }
        let text = "P GROUP(name) SELECT(name, @count)"
        let sql = try postgres.sql(text).sql
        #expect(sql.components(separatedBy: #"= min(t0."@key")"#).count == 2, "\(sql)")
        guard case .rows(let before) = try postgres.run(text) else { Issue.record("not rows"); return }
        let storeBefore = try store.read { try $0.rows(text) }
        try postgres.delete("P", where: "n == 1")
        try store.write { tx in _ = try tx.delete("P", where: "n == 1") }
        guard case .rows(let after) = try postgres.run(text) else { Issue.record("not rows"); return }
        let storeAfter = try store.read { try $0.rows(text) }
        // The groups `f`, then `é` (UTF-8's order), spelled as its first object.
        func bytes(_ rows: [[Value]]) -> [UInt8]? {
            if case .string(let s)? = rows.last?.first { return Array(s.utf8) }
            return nil
        }
        #expect(bytes(before.rows) == Array("e\u{301}".utf8) && bytes(after.rows) == Array("\u{E9}".utf8))
        #expect(after.identities == before.identities)
        #expect(storeAfter.map(\.identity) == storeBefore.map(\.identity))
    }

    /// A group of -0.0 and 0.0 (one value to GROUP on both backends) keeps its identity when the
    /// row PostgreSQL read first goes, as a store's does.
    @Test(arguments: ["P GROUP(d) SELECT(d, @count)", "P GROUP(f, d)"])
    func aGroupOfZerosOfBothSignsKeepsItsIdentity(text: String) throws {
        let schema = try Schema(jsonData: Array(#"""
            {"models": [{"name": "P", "properties": {"d": "double", "f": "float", "n": "int"}}]}
            """#.utf8), fileName: "zeros")
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let store = try Store(configuration: .inMemory(schema: schema))
        let objects: [[String: Value]] = [["d": .double(-0.0), "f": .float(-0.0), "n": 1], ["d": .double(0.0), "f": .float(0.0), "n": 2],
                                          ["d": .double(1), "f": .float(1), "n": 3]]
        for object in objects { try postgres.insert("P", object) }
        try store.write { tx in for object in objects { _ = try tx.insert("P", object) } }
        guard case .rows(let before) = try postgres.run(text) else { Issue.record("not rows"); return }
        let storeBefore = try store.read { try $0.rows(text) }
        try postgres.delete("P", where: "n == 1")
        try store.write { tx in _ = try tx.delete("P", where: "n == 1") }
        guard case .rows(let after) = try postgres.run(text) else { Issue.record("not rows"); return }
        let storeAfter = try store.read { try $0.rows(text) }
        #expect(before.identities.count == 2 && after.identities == before.identities, "\(before.identities) then \(after.identities)")
        #expect(storeAfter.map(\.identity) == storeBefore.map(\.identity))
    }

    /// A group of -0.0 and 0.0 shows its first object's zero (in the order objects were saved),
    /// as a store does, whichever row PostgreSQL reads first: here the first object's row,
    /// updated, lies after the second's, and a sorted plan may meet either first.
    @Test func aGroupOfZerosShowsItsFirstObjectsZero() throws {
        let schema = try Schema(jsonData: Array(#"""
            {"models": [{"name": "P", "properties": {"d": "double", "f": "float", "n": "int"}}]}
            """#.utf8), fileName: "firstzero")
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let store = try Store(configuration: .inMemory(schema: schema))
        let objects: [[String: Value]] = [["d": .double(-0.0), "f": .float(0.0), "n": 1], ["d": .double(0.0), "f": .float(-0.0), "n": 2],
                                          ["d": .double(1), "f": .float(1), "n": 3], ["d": .double(0.0), "f": .float(0.0), "n": 4]]
        for object in objects { try postgres.insert("P", object) }
        try store.write { tx in for object in objects { _ = try tx.insert("P", object) } }
        _ = try postgres.update("P", where: "n == 1", set: ["n": 10])
        try store.write { tx in _ = try tx.update("P", where: "n == 1", set: ["n": 10]) }
        for hashing in ["on", "off"] {
            try postgres.connection.execute("SELECT pg_catalog.set_config('enable_hashagg', $1, false)", [hashing])
            for text in ["P GROUP(d) SELECT(d, @count)", "P GROUP(f) SELECT(f, @count)", "P GROUP(d, f)", "P where n > 1 GROUP(d) SELECT(d, @count)"] {
                guard case .rows(let rows) = try postgres.run(text) else { Issue.record("not rows"); continue }
                let expected = try store.read { try $0.rows(text) }.map(\.values)
                #expect("\(rows.rows)" == "\(expected)", "\(text), enable_hashagg \(hashing)")
            }
        }
    }

    /// `min` and `max` of zeros of both signs show the first matching object's zero (in the
    /// order objects were saved), as a store's do, in a statement and as a group aggregate,
    /// indexed or not, whichever row PostgreSQL reads first (the first object's row, updated,
    /// lies after the others).
    @Test(arguments: [false, true])
    func minAndMaxOfZerosShowTheFirstObjectsZero(indexed: Bool) throws {
        let schema = try Schema(jsonData: Array(#"""
            {"models": [{"name": "P", "properties": {"d": "double?", "f": "float", "n": "int", "g": "int"}}]}
            """#.utf8), fileName: "extremezero")
        let url = try PostgresTestServer.freshURL()
        let postgres = try PostgresStore(url: url, schema: schema)
        // A double cannot be indexed in a schema; an index of the server's own lets it answer.
        if indexed { _ = try PostgresConnection(url: url).execute(#"CREATE INDEX ON "P" ("d")"#) }
        let store = try Store(configuration: .inMemory(schema: schema))
        let objects: [[String: Value]] = [["d": .double(-0.0), "f": .float(0.0), "n": 1, "g": 1], ["d": .double(0.0), "f": .float(-0.0), "n": 2, "g": 1],
                                          ["d": .double(0.0), "f": .float(-0.0), "n": 3, "g": 2], ["d": .double(-0.0), "f": .float(0.0), "n": 4, "g": 2],
                                          ["d": .double(1), "f": .float(-1), "n": 5, "g": 3], ["d": .null, "f": .float(.nan), "n": 6, "g": 3]]
        for object in objects { try postgres.insert("P", object) }
        try store.write { tx in for object in objects { _ = try tx.insert("P", object) } }
        _ = try postgres.update("P", where: "n == 1", set: ["n": 10])
        try store.write { tx in _ = try tx.update("P", where: "n == 1", set: ["n": 10]) }
        for text in ["min P.d", "max P.d", "min P.f", "max P.f", "min P.d where n > 1", "max P.f where g == 2", "min P.d where g == 2", "min P.d where n == 6"] {
            let expected = try store.read { try $0.aggregate(text) }
            guard case .value(_, let got) = try postgres.run(text) else { Issue.record("\(text): not a value"); continue }
            #expect("\(got)" == "\(expected)", "\(text)")
        }
        let storeMinimum = try store.read { try $0.aggregate("min P.d") }
        #expect("\(storeMinimum)" == "\(Value.double(-0.0))", "the first object's zero")
        for grouped in ["P GROUP(g) SELECT(g, @min.d, @max.d, @min.f, @max.f)", "P where n > 1 GROUP(g) SELECT(@min.d, @max.f)"] {
            guard case .rows(let rows) = try postgres.run(grouped) else { Issue.record("not rows"); continue }
            let expected = try store.read { try $0.rows(grouped) }.map(\.values)
            #expect("\(rows.rows)" == "\(expected)", "\(grouped)")
        }
    }
}
