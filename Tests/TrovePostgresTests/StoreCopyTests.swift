import Foundation
import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// A store with every property type, links and lists (of scalars and of links, to objects
/// with and without primary keys) and nulls goes to PostgreSQL and back unchanged.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct StoreCopyTests {
    static let schemaText = """
        {"models": [
          {"name": "Thing", "primaryKey": "id", "properties": {
            "id": "int64", "b": "bool", "i": "int", "i8": "int8", "i16": "int16", "i32": "int32", "f": "float",
            "d": "double", "s": "string", "date": "date", "data": "data", "dec": "decimal", "u": "uuid",
            "ob": "bool?", "oi": "int?", "of": "float?", "od": "double?", "os": "string?", "odate": "date?",
            "odata": "data?", "odec": "decimal?", "ou": "uuid?",
            "ints": "int[]", "strings": "string[]", "dates": "date[]", "decs": "decimal[]", "uuids": "uuid[]",
            "datas": "data[]", "optInts": "int?[]",
            "next": "Thing?", "things": "Thing[]", "note": "Note?", "notes": "Note[]",
            "linkedFrom": {"type": "linkingObjects", "objectType": "Thing", "property": "things"}}},
          {"name": "Note", "properties": {"text": "string?", "thing": "Thing?", "next": "Note?", "tags": "string[]"}},
          {"name": "Tag", "primaryKey": "name", "properties": {"name": "string", "uuid": "uuid?"}}
        ]}
        """

    static var schema: Schema { get throws { try Schema(jsonData: Array(schemaText.utf8), fileName: "copy") } }

    static let strings = ["", "plain", "it's", "back\\slash", "$1", "'; DROP TABLE \"Thing\"; --", "über", "日本", "\"quoted\""]

    /// Fills `store` with objects whose values cover each type's edges, and links in both
    /// directions between objects with and without primary keys.
    static func fill(_ store: Store) throws {
        var random = PostgresFixtures.Random(state: 42)
        try store.write { tx in
            var notes: [ObjectReference] = []
            for n in 0..<6 {
                notes.append(try tx.insert("Note", ["text": n == 2 ? .null : .string(strings[n]), "tags": .list([.string("t\(n)"), .string("")])]).reference)
            }
            try tx.update(notes[0], ["next": .reference(notes[5])])
            try tx.update(notes[5], ["next": .reference(notes[0])])
            try tx.insert("Tag", ["name": "x", "uuid": .uuid(UUID())])
            try tx.insert("Tag", ["name": "y"])
            var things: [ObjectReference] = []
            for id in 1...30 {
                var v: [String: Value] = ["id": .int(Int64(id) * 1_000_000_007)]
                v["b"] = .bool(random.chance(50))
                v["i"] = .int([Int64.min, Int64.max, 0, -1, 42][id % 5])
                v["i8"] = .int([-128, 127, 0][id % 3])
                v["i16"] = .int([-32768, 32767, 7][id % 3])
                v["i32"] = .int([Int64(Int32.min), Int64(Int32.max), 5][id % 3])
                v["f"] = .float([Float(0.1), -Float.greatestFiniteMagnitude, .leastNonzeroMagnitude, 3.25][id % 4])
                v["d"] = .double([0.1, 2.718281828459045, -Double.greatestFiniteMagnitude, .leastNonzeroMagnitude, -0.0][id % 5])
                v["s"] = .string(strings[id % strings.count])
                v["date"] = .date(Date(timeIntervalSince1970: [0, -1_000_000.5, 1_714_564_800.123456, 4_102_444_800][id % 4]))
                v["data"] = .data(Data((0..<(id % 7)).map { UInt8(($0 * 37 + id) % 256) } + [0, 255]))
                v["dec"] = .decimal(Decimal(string: ["123456789.000000001", "-0.5", "0", "99999999999999999999999999999999999999"][id % 4])!)
                v["u"] = .uuid(UUID())
                if id % 3 != 0 {
                    v["ob"] = .bool(id % 2 == 0)
                    v["oi"] = .int(Int64(id))
                    v["of"] = .float(Float(id) / 8)
                    v["od"] = .double(Double(id) / 3)
                    v["os"] = .string(strings[(id + 3) % strings.count])
                    v["odate"] = .date(Date(timeIntervalSince1970: Double(id) * 86_400.000001))
                    v["odata"] = .data(Data([UInt8(id)]))
                    v["odec"] = .decimal(Decimal(id) / 7)
                    v["ou"] = .uuid(UUID())
                }
                v["ints"] = .list((0..<(id % 4)).map { .int(Int64($0 - id)) })
                v["strings"] = .list((0..<(id % 3)).map { .string(strings[($0 + id) % strings.count]) })
                v["dates"] = .list((0..<(id % 3)).map { .date(Date(timeIntervalSince1970: Double($0 * id) + 0.25)) })
                v["decs"] = .list((0..<(id % 3)).map { .decimal(Decimal($0) + Decimal(string: "0.001")!) })
                v["uuids"] = .list((0..<(id % 2)).map { _ in .uuid(UUID()) })
                v["datas"] = .list((0..<(id % 2)).map { _ in .data(Data([1, 2, 3])) })
                v["optInts"] = .list([.int(Int64(id)), .null, .int(0)])
                if id % 4 == 0 { v["note"] = .reference(notes[id % notes.count]) }
                v["notes"] = .list((0..<(id % 3)).map { .reference(notes[($0 + id) % notes.count]) })
                things.append(try tx.insert("Thing", v).reference)
            }
            // Links forward and backward, to itself, and repeated in a list.
            for (n, thing) in things.enumerated() {
                var links: [String: Value] = [:]
                if n % 3 != 0 { links["next"] = .reference(things[(n * 7 + 3) % things.count]) }
                links["things"] = .list((0..<(n % 4)).map { .reference(things[($0 * 11 + n) % things.count]) } + (n % 5 == 0 ? [.reference(thing), .reference(thing)] : []))
                try tx.update(thing, links)
            }
            try tx.update(notes[1], ["thing": .reference(things[29])])
            try tx.update(notes[3], ["thing": .reference(things[0])])
        }
    }

    /// Every object of every model, in order, with links and lists as what they reach (a
    /// model's position among its objects), so that stores compare across files.
    static func contents(_ store: Store) throws -> [String] {
        try store.read { s in
            var position: [ObjectReference: Int] = [:]
            for model in s.schema.models {
                for (i, object) in try s.objects(model.name).enumerated() { position[object.reference] = i }
            }
            func text(_ value: Value) -> String {
                switch value {
                case .reference(let r): "→\(r.model)#\(position[r].map(String.init) ?? "?")"
                case .list(let items): "[" + items.map(text).joined(separator: ",") + "]"
                case .date(let d): "date(\(d.timeIntervalSince1970))"
                default: "\(value.kindDescription):\(value)"
                }
            }
            var out: [String] = []
            for model in s.schema.models {
                for object in try s.objects(model.name) {
                    out.append(model.name + " " + (try model.properties.map { "\($0.name)=\(text(try object.value($0.name)))" }.joined(separator: " ")))
                }
            }
            return out
        }
    }

    static func temporaryPath() -> String {
        NSTemporaryDirectory() + "trove-copy-" + UUID().uuidString + ".trove"
    }

    @Test func aStoreGoesToPostgreSQLAndBackObjectByObject() throws {
        let source = try Store(configuration: .inMemory(schema: try Self.schema))
        try Self.fill(source)
        let url = try PostgresTestServer.freshURL()
        let summary = try StoreCopy.copy(source, toDatabase: url)
        #expect(summary.counts.map(\.model) == ["Thing", "Note", "Tag"])
        #expect(summary.counts.map(\.objects) == [30, 6, 2])
        // The database answers queries over the copied links and lists.
        let database = try PostgresStore(url: url)
        #expect(try database.count("Thing", where: "next.next != nil") == (try source.read { try $0.objects("Thing", where: "next.next != nil").count }))
        #expect(try database.count("Note", where: "thing.id == 30000000210") == 1)
        #expect(try database.count("Thing", where: "ANY notes.text == nil") == (try source.read { try $0.objects("Thing", where: "ANY notes.text == nil").count }))

        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try StoreCopy.copy(database: url, toStoreAt: path) == summary)
        let copied = try Store(path: path)
        let original = try Self.contents(source)
        let back = try Self.contents(copied)
        #expect(copied.schema == source.schema)
        #expect(back.count == original.count)
        for (a, b) in zip(original, back) { #expect(a == b) }
    }

    @Test func datesAreRoundedToMicroseconds() throws {
        let schema = try Schema(jsonData: Array(#"{"models": [{"name": "E", "properties": {"at": "date"}}]}"#.utf8), fileName: "e")
        let source = try Store(configuration: .inMemory(schema: schema))
        let fine = Date(timeIntervalSince1970: 1_714_564_800.123456789)
        try source.write { tx in _ = try tx.insert("E", ["at": .date(fine)]) }
        let url = try PostgresTestServer.freshURL()
        try StoreCopy.copy(source, toDatabase: url)
        let target = try Store(configuration: .inMemory(schema: schema))
        try StoreCopy.copy(database: try PostgresConnection(url: url), to: target)
        let back = try target.read { try $0.objects("E")[0].value("at") }
        #expect(back == .date(Date(timeIntervalSince1970: 1_714_564_800.123457)))
    }

    @Test func aTargetWithObjectsIsRefusedUnlessReplaced() throws {
        let source = try Store(configuration: .inMemory(schema: try Self.schema))
        try Self.fill(source)
        let url = try PostgresTestServer.freshURL()
        try StoreCopy.copy(source, toDatabase: url)
        let connection = try PostgresConnection(url: url)
        try connection.execute(#"DELETE FROM "Tag" WHERE name = 'y'"#)
        let error = #expect(throws: PostgresError.self) { try StoreCopy.copy(source, toDatabase: url) }
        #expect(error?.message.contains("already holds 'Thing' objects") == true)
        #expect(try connection.execute(#"SELECT count(*) FROM "Tag""#).rows == [["1"]])
        try StoreCopy.copy(source, toDatabase: url, replacing: true)
        #expect(try connection.execute(#"SELECT count(*) FROM "Tag""#).rows == [["2"]])
        #expect(try connection.execute(#"SELECT count(*), max("@key") FROM "Thing""#).rows == [["30", "30"]])

        // Back into a store that holds objects.
        let target = try Store(configuration: .inMemory(schema: try Self.schema))
        try target.write { tx in _ = try tx.insert("Tag", ["name": "kept"]) }
        #expect(throws: PostgresError.self) { try StoreCopy.copy(database: connection, to: target) }
        #expect(try target.read { try $0.count("Tag") } == 1)
        try StoreCopy.copy(database: connection, to: target, replacing: true)
        #expect(try Self.contents(target) == (try Self.contents(source)))
    }

    @Test func aDifferentSchemaIsRefusedAndNothingChanges() throws {
        let source = try Store(configuration: .inMemory(schema: try Self.schema))
        try Self.fill(source)
        let url = try PostgresTestServer.freshURL()
        let other = try Schema(jsonData: Array(#"{"models": [{"name": "Tag", "primaryKey": "name", "properties": {"name": "string"}}]}"#.utf8), fileName: "other")
        let database = try PostgresStore(url: url, schema: other)
        try database.insert("Tag", ["name": "mine"])
        let error = #expect(throws: PostgresError.self) { try StoreCopy.copy(source, toDatabase: url) }
        #expect(error?.message.contains("holds a different schema") == true)
        #expect(try PostgresStore(url: url).schema == other)
        #expect(try database.count("Tag") == 1)

        // A store file with another schema stays as it was; a new file is not left behind.
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Store(path: path, schema: try Self.schema).write { tx in _ = try tx.insert("Tag", ["name": "kept"]) }
        #expect(throws: PostgresError.self) { try StoreCopy.copy(database: url, toStoreAt: path) }
        #expect(try Store(path: path).read { try $0.count("Tag") } == 1)
        let missing = Self.temporaryPath()
        #expect(throws: (any Error).self) { try StoreCopy.copy(database: "postgresql://nobody@/none?host=/nonexistent", toStoreAt: missing) }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func aServerLostMidCopyLeavesTheDatabaseAsItWas() throws {
        let source = try Store(configuration: .inMemory(schema: try Self.schema))
        try Self.fill(source)
        let url = try PostgresTestServer.freshURL()
        let database = try PostgresStore(url: url, schema: try Self.schema)
        // The server ends the copying session when the copy reaches the lists of links.
        try database.connection.execute("""
            CREATE FUNCTION lose_server() RETURNS trigger LANGUAGE plpgsql AS
            $$BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NULL; END$$
            """)
        try database.connection.execute(#"CREATE TRIGGER lose AFTER INSERT ON "Thing.things" FOR EACH STATEMENT EXECUTE FUNCTION lose_server()"#)
        #expect(throws: PostgresError.self) { try StoreCopy.copy(source, toDatabase: url) }
        for table in ["Thing", "Note", "Tag", "Thing.ints", "Thing.notes"] {
            #expect(try database.connection.execute("SELECT count(*) FROM \"\(table)\"").rows == [["0"]])
        }
    }
}
