import Foundation
import Testing
import Trove
@testable import TrovePostgres
import PostgresTestSupport

/// Canonically equivalent spellings (`é` as U+00E9, or `e` + U+0301) on PostgreSQL as on a
/// store: values are kept as written; comparisons, orders, DISTINCT and GROUP go by NFC forms;
/// a primary key names one spelling.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresCanonicalEquivalenceTests {
    static let schema = try! Schema(jsonData: Array("""
        {"models": [{"name": "Item", "primaryKey": "id", "properties": {
          "id": "string", "name": {"type": "string?", "indexed": true}, "note": "string?", "n": "int",
          "tags": "string[]", "friend": "Item?", "other": "Item?", "pals": "Item[]"}}]}
        """.utf8), fileName: "nfc")

    static let eNFC = "\u{E9}", eNFD = "e\u{301}"
    /// Spellings of a few letters: precomposed, decomposed (with one mark, or two), mixed in
    /// one string, and plain ASCII around them. (Left out: spellings a store's own answers
    /// disagree on, see DEVELOPERS.md: a mark that composes with nothing, where a store's
    /// matches keep to `Character` boundaries; a singleton such as U+212B; a decomposed string
    /// against its NFC form followed by ASCII, which Swift's `<` orders neither way.)
    static let names: [String?] = [eNFD, eNFC, eNFD + eNFC, eNFC + eNFD, "e", "ea", "f", "A\u{308}", "\u{C4}", "\u{C4}rger", "A\u{308}rger",
                                   "\u{C5}", "A\u{30A}", "\u{1EC7}", "e\u{323}\u{302}", nil, "Z", eNFC + "t" + eNFC, eNFD + "t" + eNFD, eNFC + eNFC]
    static let constants = [eNFC, eNFD, "A\u{308}", "\u{C5}", "A\u{30A}", "e\u{323}\u{302}", "\u{1EC7}", "e", "A", "\u{C4}rg", eNFD + "t"]

    /// The same objects in a store and in PostgreSQL, saved in the same order.
    static func load() throws -> (Store, PostgresStore) {
        let store = try Store(configuration: .inMemory(schema: schema))
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let count = names.count
        let objects: [[String: Value]] = names.enumerated().map { i, name in
            ["id": .string("id" + (name ?? "none")), "name": name.map(Value.string) ?? .null,
             "note": names[(i + 1) % count].map(Value.string) ?? .null, "n": .int(Int64(i)),
             "tags": .list([names[(i + 3) % count], names[(i + 5) % count]].compactMap { $0.map(Value.string) })]
        }
        try store.write { tx in for object in objects { _ = try tx.insert("Item", object) } }
        try postgres.atomically { for object in objects { try postgres.insert("Item", object) } }
        // Friends by key as written: each names one spelling.
        for (i, object) in objects.enumerated() where i % 3 != 2 {
            let friend = objects[(i + 2) % count]["id"]!
            try store.write { tx in _ = try tx.update("Item", primaryKey: object["id"]!, ["friend": friend]) }
            #expect(try postgres.update("Item", primaryKey: object["id"]!, set: ["friend": friend]))
        }
        // Links whose targets' keys are canonically equivalent to the friend's, yet other objects.
        for (i, object) in objects.enumerated() {
            let links: [String: Value] = ["other": objects[(i + 1) % count]["id"]!,
                                          "pals": .list([objects[(i + 1) % count]["id"]!, objects[(i + 3) % count]["id"]!])]
            try store.write { tx in _ = try tx.update("Item", primaryKey: object["id"]!, links) }
            #expect(try postgres.update("Item", primaryKey: object["id"]!, set: links))
        }
        return (store, postgres)
    }

    /// The UTF-8 bytes of each object's id, in order: spellings told apart.
    static func ids(_ results: Results) throws -> [[UInt8]] {
        try results.map { object in
            guard case .string(let id)? = try object.json()["id"] else { throw PostgresError("no id") }
            return Array(id.utf8)
        }
    }

    static func ids(_ objects: PostgresObjects) -> [[UInt8]] { objects.keys.map { Array($0.utf8) } }

    static func literal(_ s: String) -> String { "'" + s + "'" }

    /// Every operator a store compares strings by, with each modifier, on an indexed and an
    /// unindexed property, the primary key, a path through a link and a list.
    static var predicates: [(String, [Value])] {
        var predicates: [(String, [Value])] = []
        for c in constants {
            let v = literal(c)
            for modifier in ["", "[c]", "[d]", "[cd]"] {
                for op in ["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS"] {
                    for path in ["name", "note", "id", "friend.name", "ANY tags", "ALL tags", "NONE tags"] {
                        predicates.append(("\(path) \(op)\(modifier) \(v)", []))
                    }
                    predicates.append(("\(v) \(op == "==" || op == "!=" ? "==" : op)\(modifier) name", []))
                }
                predicates.append(("name LIKE\(modifier) \(literal(c + "*"))", []))
                predicates.append(("note LIKE\(modifier) \(literal("*" + c))", []))
                predicates.append(("name LIKE\(modifier) \(literal(c + "?"))", []))
                predicates.append(("\(v) IN\(modifier) tags", []))
                predicates.append(("name IN\(modifier) {\(v), 'f'}", []))
                predicates.append(("name ==\(modifier) $0", [.string(c)]))
                predicates.append(("name BEGINSWITH\(modifier) $0", [.string(c)]))
                predicates.append(("name LIKE\(modifier) $0", [.string(c + "*")]))
                predicates.append(("name IN\(modifier) $0", [.list([.string(c), .string("Z")])]))
            }
            for op in ["<", "<=", ">", ">="] {
                for path in ["name", "note", "id", "friend.name", "ANY tags", "ALL tags"] { predicates.append(("\(path) \(op) \(v)", [])) }
                predicates.append(("name \(op) $0", [.string(c)]))
            }
            predicates.append(("name BETWEEN {\(v), 'f'}", []))
            predicates.append(("note BETWEEN {'A', \(v)}", []))
        }
        // MATCHES meets the text as stored: each spelling of a pattern matches its own.
        for c in [eNFD, eNFC, "A\u{30A}", "\u{C5}", "e\u{323}\u{302}", "\u{1EC7}", "A\u{308}", "\u{C4}rg", "A\u{308}rg"] {
            predicates.append(("name MATCHES \(literal(c + ".*"))", []))
            predicates.append(("name MATCHES[d] \(literal(c + ".*"))", []))
        }
        for modifier in ["", "[c]", "[d]", "[cd]"] {
            for op in ["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"] {
                predicates.append(("name \(op)\(modifier) note", []))
                predicates.append(("name \(op)\(modifier) friend.name", []))
                predicates.append(("ANY tags \(op)\(modifier) name", []))
            }
            predicates.append(("name IN\(modifier) tags", []))
        }
        for op in ["<", "<=", ">", ">="] { predicates.append(("name \(op) note", [])) }
        predicates.append(("SUBQUERY(tags, $t, $t == \(literal(eNFD))).@count > 0", []))
        // Links compare by identity, not by their targets' keys.
        for predicate in ["friend == other", "friend != other", "other == friend", "friend == friend.friend", "friend != friend.friend",
                          "friend IN pals", "NOT friend IN pals", "other IN pals", "ANY pals == friend", "ANY pals != friend",
                          "ALL pals != friend", "NONE pals == other"] {
            predicates.append((predicate, []))
        }
        return predicates
    }

    @Test func everyStringOperatorGivesAStoresAnswer() throws {
        let (store, postgres) = try Self.load()
        var matched = 0, partial = 0
        for (predicate, arguments) in Self.predicates {
            let text = "Item where \(predicate) SORT(n)"
            let expected: [[UInt8]]
            do {
                expected = try store.read { try Self.ids($0.query(text, arguments: arguments)) }
            } catch {
                #expect(throws: (any Error).self, "\(text): a store refuses it") { try postgres.objects(text, arguments: arguments) }
                continue
            }
            // Twice: the second run reuses the translation with its arguments made anew.
            for _ in 0..<2 {
                #expect(Self.ids(try postgres.objects(text, arguments: arguments)) == expected, "\(text) \(arguments)")
            }
            #expect(try postgres.count("Item", where: predicate, arguments: arguments) == expected.count, "count \(text)")
            if !expected.isEmpty { matched += 1 }
            if expected.count > 1 && expected.count < Self.names.count - 1 { partial += 1 }
        }
        #expect(matched > Self.predicates.count / 2)
        #expect(partial > Self.predicates.count / 3)
    }

    /// Each spelling of a statement is parsed and translated for itself: `MATCHES` meets the
    /// text as stored, so a pattern spelt with U+00E9 and one spelt `e` + U+0301 (one `String`
    /// to `==`) match their own names, whichever runs first and however the statement runs.
    @Test(arguments: [true, false])
    func eachSpellingOfAStatementIsTranslatedForItself(composedFirst: Bool) throws {
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.schema)
        for (id, name, n) in [("c1", Self.eNFC + "a", 1), ("d", Self.eNFD + "b", 2), ("c2", Self.eNFC + "c", 3)] {
            try postgres.insert("Item", ["id": .string(id), "name": .string(name), "n": .int(Int64(n))])
        }
        let spellings: [(String, ids: [String], ns: [Value])] = [(Self.eNFC, ["c1", "c2"], [1, 3]), (Self.eNFD, ["d"], [2])]
        for (spelling, ids, ns) in composedFirst ? spellings : spellings.reversed() {
            let predicate = "name MATCHES '\(spelling).*'"
            #expect(try postgres.objects("Item where \(predicate) SORT(n)").keys == ids, "\(predicate)")
            #expect(try postgres.count("Item", where: predicate) == ids.count, "\(predicate)")
            #expect(try postgres.run("max Item.n where \(predicate)") == .value("max", ns.last!), "\(predicate)")
            guard case .rows(let rows) = try postgres.run("Item where \(predicate) SORT(n) SELECT(n)") else {
                Issue.record("\(predicate): not rows")
                continue
            }
            #expect(rows.json.map { $0["n"] } == ns.map(\.jsonValue), "\(predicate)")
        }
    }

    /// SORT ties canonically equivalent spellings (their objects keep the order they were
    /// saved in); DISTINCT keeps the first object of each; GROUP makes one group of them and
    /// shows the spelling of its first object, byte for byte.
    @Test func sortDistinctAndGroupGoByNFCForms() throws {
        let (store, postgres) = try Self.load()
        for text in ["Item SORT(name)", "Item SORT(name DESC)", "Item SORT(note, n DESC)", "Item SORT(friend.name DESC, id)", "Item SORT(id)",
                     "Item SORT(id DESC) LIMIT(5)", "Item where n > 2 SORT(name) OFFSET(2) LIMIT(6)",
                     "Item SORT(n) DISTINCT(name)", "Item SORT(n DESC) DISTINCT(name)", "Item SORT(name) DISTINCT(friend.name)",
                     "Item where id == \(Self.literal(Self.eNFC))", "Item where id == \(Self.literal(Self.eNFD)) SORT(name)"] {
            let expected = try store.read { try Self.ids($0.query(text)) }
            #expect(Self.ids(try postgres.objects(text)) == expected, "\(text)")
        }
        for text in ["Item GROUP(name)", "Item where n > 1 GROUP(name)", "Item where n > 3 GROUP(note) SELECT(note, @count, @sum.n) SORT(@count DESC)",
                     "Item GROUP(friend.name)", "Item GROUP(friend)", "Item GROUP(name, friend.name) SORT(name DESC)",
                     "Item SORT(name, n) SELECT(name, note)", "Item SORT(x DESC, n) SELECT(name AS x, n)", "Item SORT(name) DISTINCT(note) SELECT(note, n)"] {
            let expected = try store.read { snapshot in try snapshot.rows(text).map { Array(JSONValue.object($0.json).jsonText.utf8) } }
            guard case .rows(let rows) = try postgres.run(text) else {
                Issue.record("\(text): not rows")
                continue
            }
            let got = rows.json.map { Array(JSONValue.object($0).jsonText.utf8) }
            #expect(got == expected, "\(text)\n  got      \(rows.json.map { JSONValue.object($0).jsonText })")
        }
    }

    /// A primary key is the spelling written: both spellings are two keys, and a link, a lookup,
    /// an update or a delete by key finds only its own, as on a store; values read back are the
    /// bytes written.
    @Test func aKeyNamesOneSpellingAndValuesAreKeptAsWritten() throws {
        let store = try Store(configuration: .inMemory(schema: Self.schema))
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.schema)
        for (id, name) in [(Self.eNFC, Self.eNFD), ("x", Self.eNFC)] {
            try store.write { tx in _ = try tx.insert("Item", ["id": .string(id), "name": .string(name), "n": 1]) }
            try postgres.insert("Item", ["id": .string(id), "name": .string(name), "n": 1])
        }
        #expect(try postgres.contains("Item", primaryKey: .string(Self.eNFC)))
        #expect(try !postgres.contains("Item", primaryKey: .string(Self.eNFD)))
        #expect(try store.read { try $0.object("Item", primaryKey: .string(Self.eNFD)) } == nil)
        #expect(try !postgres.update("Item", primaryKey: .string(Self.eNFD), set: ["n": 2]))
        #expect(try postgres.delete("Item", primaryKeys: [.string(Self.eNFD)]) == 0)
        #expect(try postgres.object("Item", primaryKey: .string(Self.eNFD)).keys.isEmpty)
        #expect(try postgres.object("Item", primaryKey: .string(Self.eNFC)).keys.map { Array($0.utf8) } == [Array(Self.eNFC.utf8)])
        // A link to the other spelling names no object, on both.
        #expect(throws: (any Error).self) { try store.write { tx in _ = try tx.insert("Item", ["id": "y", "n": 1, "friend": .string(Self.eNFD)]) } }
        #expect(throws: (any Error).self) { try postgres.insert("Item", ["id": "y", "n": 1, "friend": .string(Self.eNFD)]) }
        // The other spelling is a key of its own.
        try store.write { tx in _ = try tx.insert("Item", ["id": .string(Self.eNFD), "n": 3]) }
        try postgres.insert("Item", ["id": .string(Self.eNFD), "n": 3])
        #expect(try store.read { try $0.count("Item") } == 3)
        #expect(try postgres.count("Item") == 3)
        // Read back as written.
        let rows = try postgres.objects("Item where name == $0 SORT(n)", arguments: [.string(Self.eNFC)])
        #expect(rows.objects.map { $0[1] }.map { if case .string(let s) = $0 { Array(s.utf8) } else { [] } }
            == [Array(Self.eNFD.utf8), Array(Self.eNFC.utf8)])
        #expect(rows.keys.map { Array($0.utf8) } == [Array(Self.eNFC.utf8), [UInt8(ascii: "x")]])
        let raw = try postgres.connection.execute(#"SELECT encode(convert_to("name", 'UTF8'), 'hex') FROM "Item" ORDER BY "@key""#).rows
        #expect(raw == [["65cc81"], ["c3a9"], [nil]])
    }

    /// A store copied into PostgreSQL and back keeps every spelling.
    @Test func aCopyKeepsEverySpelling() throws {
        let (store, _) = try Self.load()
        let url = try PostgresTestServer.freshURL()
        try StoreCopy.copy(store, toDatabase: url)
        let back = try Store(configuration: .inMemory(schema: Self.schema))
        try StoreCopy.copy(database: try PostgresConnection(url: url), to: back)
        func contents(_ store: Store) throws -> [[UInt8]] {
            try store.read { try $0.query("Item SORT(n)").map { Array(JSONValue.object(try $0.json()).jsonText.utf8) } }
        }
        let (copied, original) = (try contents(back), try contents(store))
        #expect(copied == original, "\(copied.map { String(decoding: $0, as: UTF8.self) })\n\(original.map { String(decoding: $0, as: UTF8.self) })")
        #expect(try contents(back).count == Self.names.count)
    }

    /// Indexes hold the NFC forms the queries compare, so lookups, ranges and pages of a
    /// string property or a string primary key read an index.
    @Test func stringComparisonsReadTheIndexes() throws {
        let url = try PostgresTestServer.freshURL()
        let postgres = try PostgresStore(url: url, schema: Self.schema)
        try postgres.atomically {
            for i in 0..<3000 { try postgres.insert("Item", ["id": .string("k\(i)"), "name": .string("n\(i)"), "n": .int(Int64(i))]) }
        }
        try postgres.connection.execute("ANALYZE")
        try Self.expectIndexScans(postgres)
    }

    static func expectIndexScans(_ postgres: PostgresStore) throws {
        for query in ["Item where name == 'n42'", "Item where name == $0", "Item where name >= 'n42' AND name < 'n43'", "Item where name IN {'n1', 'n2'}",
                      "Item where id == 'k7'", "Item where id == $0", "Item where name BEGINSWITH 'n42'", "Item SORT(id) LIMIT(3)"] {
            let arguments: [Value] = query.contains("$0") ? [.string("n\u{E9}")] : []
            let plan = try postgres.explain(query, arguments: arguments).plan.joined(separator: "\n")
            #expect(plan.contains("Index") && !plan.contains(#"Seq Scan on "Item" "#), "\(query): \(plan)")
        }
    }

    /// A role that may write rows but not change the tables opens an earlier layout as it is.
    @Test func aRoleWithoutDDLPrivilegesOpensAnEarlierLayout() throws {
        let url = try PostgresTestServer.freshURL()
        let connection = try PostgresConnection(url: url)
        _ = try PostgresStore(url: url, schema: Self.schema)
        try connection.execute(#"ALTER TABLE "@trove_schema" DROP COLUMN layout"#)
        let schemaName = try #require(try connection.execute("SELECT current_schema()").rows.first?.first ?? nil)
        try PostgresTestServer.withRole(connectingTo: url) { role, roleURL in
            try connection.execute("GRANT USAGE ON SCHEMA \(schemaName) TO \(role)")
            try connection.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA \(schemaName) TO \(role)")
            let writer = try PostgresStore(url: roleURL)
            try writer.insert("Item", ["id": "k", "name": .string(Self.eNFD), "n": 1])
            #expect(try writer.count("Item", where: "name == $0", arguments: [.string(Self.eNFC)]) == 1)
        }
        #expect(try connection.execute(#"SELECT count(*) FROM information_schema.columns WHERE table_name = '@trove_schema' AND column_name = 'layout' AND table_schema = current_schema()"#).rows == [["0"]])
    }

    /// A database whose tables are of a newer layout than this code's is refused at open,
    /// by a client that may write and by a read-only one.
    @Test func aNewerLayoutIsRefusedAtOpen() throws {
        let url = try PostgresTestServer.freshURL()
        _ = try PostgresStore(url: url, schema: Self.schema)
        try PostgresConnection(url: url).execute(#"UPDATE "@trove_schema" SET layout = \#(PostgresSchemaInstaller.layout + 1)"#)
        for open in [{ try PostgresStore(url: url) }, { try PostgresStore(url: url, schema: Self.schema) }, { try PostgresStore(url: url, readOnly: true) }] {
            let error = #expect(throws: PostgresError.self) { _ = try open() }
            #expect("\(error.map { "\($0)" } ?? "")".contains("newer than this build's"))
        }
    }

    /// A database whose server encoding is not UTF8 is refused at open with a message saying so.
    @Test func aDatabaseNotInUTF8IsRefused() throws {
        let url = try #require(PostgresTestServer.url)
        let name = "t_ascii_" + UUID().uuidString.lowercased().replacing("-", with: "")
        try PostgresConnection(url: url).execute("CREATE DATABASE \(name) ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
        try #require(url.contains("@/trove?"), "the test server's URL names database trove")
        let other = url.replacing("@/trove?", with: "@/\(name)?")
        let error = #expect(throws: PostgresError.self) { _ = try PostgresStore(url: other, schema: Self.schema) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("SQL_ASCII"))
        try PostgresConnection(url: url).execute("DROP DATABASE \(name)")
    }

    /// A database whose tables index strings as stored (an earlier layout) is brought to the
    /// NFC indexes when a client that may write opens it, with or without a schema.
    @Test(arguments: [true, false])
    func anEarlierLayoutGetsTheNFCIndexesAtOpen(withSchema: Bool) throws {
        let url = try PostgresTestServer.freshURL()
        let connection = try PostgresConnection(url: url)
        do {
            let postgres = try PostgresStore(url: url, schema: Self.schema)
            try postgres.atomically {
                for i in 0..<3000 { try postgres.insert("Item", ["id": .string("k\(i)"), "name": .string("n\(i)"), "n": .int(Int64(i))]) }
            }
        }
        // The earlier layout: the column itself indexed, no index of the key's NFC form, no
        // `layout` column.
        try connection.execute(#"DROP INDEX "Item.name index""#)
        try connection.execute(#"DROP INDEX "Item.id index""#)
        try connection.execute(#"CREATE INDEX "Item.name index" ON "Item" ("name")"#)
        try connection.execute(#"ALTER TABLE "@trove_schema" DROP COLUMN layout"#)
        try connection.execute(#"CREATE INDEX "a DBA's" ON "Item" ("name") WHERE n > 10"#)
        let readOnly = try PostgresStore(url: url, readOnly: true)
        #expect(try readOnly.count("Item", where: "name == 'n5'") == 1)
        let opened = withSchema ? try PostgresStore(url: url, schema: Self.schema) : try PostgresStore(url: url)
        let indexes = try connection.execute(#"SELECT indexdef FROM pg_indexes WHERE tablename = 'Item' AND schemaname = current_schema() ORDER BY indexname"#).rows
        #expect(indexes.compactMap { $0[0] }.filter { $0.lowercased().contains("normalize(") }.count == 2, "\(indexes)")
        #expect(try connection.execute(#"SELECT layout FROM "@trove_schema""#).rows == [["2"]])
        #expect(indexes.compactMap { $0[0] }.contains { $0.contains("a DBA's") }, "an index Trove did not make stays: \(indexes)")
        try Self.expectIndexScans(opened)
        // Opening again changes nothing, and a removed index goes whatever it holds.
        _ = try PostgresStore(url: url, schema: Self.schema)
        let unindexed = try Schema(jsonData: Array(#"""
            {"models": [{"name": "Item", "primaryKey": "id", "properties": {
              "id": "string", "name": "string?", "note": "string?", "n": "int", "tags": "string[]", "friend": "Item?",
              "other": "Item?", "pals": "Item[]"}}]}
            """#.utf8), fileName: "unindexed")
        _ = try PostgresStore(url: url, schema: unindexed)
        #expect(try connection.execute(#"SELECT count(*) FROM pg_indexes WHERE indexname = 'Item.name index' AND schemaname = current_schema()"#).rows == [["0"]])
    }
}
