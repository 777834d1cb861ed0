import Foundation
import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// Through the Swift API, PostgreSQL answers and refuses as a store does for the same objects
/// and the same statements.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresStoreParityAPITests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [
          {"name": "N", "primaryKey": "id", "properties": {"id": "int", "dec": "decimal?", "f": "float?", "s": "int16?", "d": "double?", "ds": "decimal[]", "dl": "double[]",
           "pet": "Pet?", "pets": "Pet[]", "owner": "N?"}},
          {"name": "Pet", "properties": {"name": "string?"}}
        ]}
        """#.utf8), fileName: "parity")

    static let objects: [[String: Value]] = [
        ["id": 1, "dec": .decimal(Decimal(string: "1.5")!), "f": .float(1.5), "s": 7, "ds": [.decimal(1), .decimal(1), .decimal(2)]],
        ["id": 2, "dec": .decimal(-3), "f": .float(-2), "s": -7, "ds": [.decimal(1), .decimal(0)]],
        ["id": 3],
        ["id": 5, "dec": .decimal(Decimal(string: "0.1")!), "f": .float(0.25), "s": 32767, "ds": [.decimal(Decimal(string: "0.7")!)]],
    ]

    static func load() throws -> (Store, PostgresStore) {
        let store = try Store(configuration: .inMemory(schema: schema))
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        try store.write { tx in for object in objects { _ = try tx.insert("N", object) } }
        for object in objects { try postgres.insert("N", object) }
        return (store, postgres)
    }

    /// A model the schema does not define is refused as a store refuses it, with
    /// `StoreError.noSuchModel`, which a shell words as it words every unknown model.
    @Test func anUnknownModelIsRefusedAsOnAStore() throws {
        let (store, postgres) = try Self.load()
        #expect(throws: StoreError.noSuchModel("Q")) { try store.write { tx in _ = try tx.insert("Q", ["id": 1]) } }
        #expect(throws: StoreError.noSuchModel("Q")) { try postgres.insert("Q", ["id": 1]) }
        #expect(throws: StoreError.noSuchModel("Q")) { try postgres.delete("Q", primaryKeys: [1]) }
        #expect(try postgres.count("N") == Self.objects.count)
    }

    /// A number outside a property's type (a fractional one for an integer, one beyond a
    /// decimal's, a float's or an int16's range) compares by its value, as an argument too, and
    /// a translation kept for one kind of argument gives the store's answer for the other.
    @Test func argumentsBeyondAPropertysTypeCompareByTheirValue() throws {
        let (store, postgres) = try Self.load()
        let runs: [(String, [[Value]])] = [
            ("N where id > $0 SORT(id)", [[.int(2)], [.double(4.5)], [.int(1)], [.double(1e19)], [.double(-1e19)], ["2.5"], [.int(3)]]),
            ("N where id == $0 SORT(id)", [[.int(2)], [.double(2.5)], [.double(5)], [.decimal(Decimal(string: "1.5")!)]]),
            ("N where dec < $0 SORT(id)", [[.decimal(1)], [.double(1e200)], [.double(-1e200)], [.double(0.1)], ["1e300"], [.int(0)]]),
            ("N where f >= $0 SORT(id)", [[.float(0)], [.double(-1e300)], [.double(1e300)], [.double(0.25)]]),
            ("N where s < $0 SORT(id)", [[.int(8)], [.double(40000)], [.int(40000)], [.int(-40000)], [.double(-1e10)], [.double(7.5)]]),
            ("N where id IN $0 SORT(id)", [[[.int(1), .int(2)]], [[.double(2.5), .int(3)]], [[.int(5), .double(1.5)]]]),
            ("N where id BETWEEN {$0, $1} SORT(id)", [[.int(1), .int(3)], [.double(1.5), .double(4.5)], [.int(2), .double(1e19)]]),
            ("N where ds.@sum > $0 SORT(id)", [[.int(1)], [.double(0.5)], [.double(1e200)], [.double(-1e200)]]),
        ]
        for (text, argumentLists) in runs {
            for arguments in argumentLists {
                let expected = try store.read { try PostgresFixtures.ids($0.query(text, arguments: arguments)) }
                #expect(PostgresFixtures.ids(try postgres.objects(text, arguments: arguments)) == expected, "\(text) with \(arguments)")
            }
        }
    }

    /// A number a float property's `Float` cannot hold (one underflowing to zero, a whole
    /// number it rounds) compares by its value, as a literal and as an argument.
    @Test func aFloatComparandKeepsItsValue() throws {
        let (store, postgres) = try Self.load()
        let more: [[String: Value]] = [["id": 20, "f": .float(0)], ["id": 21, "f": .float(16777216)], ["id": 22, "f": .float(0.1)]]
        try store.write { tx in for object in more { _ = try tx.insert("N", object) } }
        for object in more { try postgres.insert("N", object) }
        let runs: [(String, [Value], [Int64])] = [
            ("N where f == 1e-50 SORT(id)", [], []),
            ("N where f == $0 SORT(id)", [.double(1e-50)], []),
            ("N where f > $0 SORT(id)", [.double(-1e-50)], [1, 5, 20, 21, 22]),
            ("N where f < 16777217 AND f > 1 SORT(id)", [], [1, 21]),
            ("N where f < $0 AND f > 1 SORT(id)", [.int(16777217)], [1, 21]),
            ("N where f == $0 SORT(id)", [.int(16777217)], []),
            ("N where f == 0.1 SORT(id)", [], [22]),
            ("N where f == $0 SORT(id)", ["0.1"], [22]),
        ]
        for (text, arguments, expected) in runs {
            #expect(try store.read { try PostgresFixtures.ids($0.query(text, arguments: arguments)) } == expected, "store: \(text) with \(arguments)")
            #expect(PostgresFixtures.ids(try postgres.objects(text, arguments: arguments)) == expected, "PostgreSQL: \(text) with \(arguments)")
        }
    }

    /// NaN equals nothing, itself included, and orders with nothing, as in a store (PostgreSQL
    /// has 'NaN' = 'NaN' and puts it after every number).
    @Test func nanEqualsAndOrdersWithNothing() throws {
        let (store, postgres) = try Self.load()
        let more: [[String: Value]] = [["id": 30, "d": .double(.nan), "f": .float(.nan)], ["id": 31, "d": .double(1), "f": .float(1)]]
        try store.write { tx in for object in more { _ = try tx.insert("N", object) } }
        for object in more { try postgres.insert("N", object) }
        let all: [Int64] = [1, 2, 3, 5, 30, 31]
        let runs: [(String, [Value], [Int64])] = [
            ("N where d == $0 SORT(id)", [.double(.nan)], []),
            ("N where d != $0 SORT(id)", [.double(.nan)], all),
            ("N where d == $0 SORT(id)", [.double(1)], [31]),
            ("N where d != $0 SORT(id)", [.double(1)], [1, 2, 3, 5, 30]),
            ("N where d IN $0 SORT(id)", [[.double(.nan), .double(1)]], [31]),
            ("N where d < $0 SORT(id)", [.double(.nan)], []),
            ("N where d >= $0 SORT(id)", [.double(.nan)], []),
            ("N where d > 0 SORT(id)", [], [31]),
            ("N where d == d SORT(id)", [], [1, 2, 3, 5, 31]),
            ("N where d != d SORT(id)", [], [30]),
            ("N where NOT (d == $0) SORT(id)", [.double(.nan)], all),
            ("N where f == $0 SORT(id)", [.float(.nan)], []),
            ("N where f != $0 SORT(id)", [.float(.nan)], all),
            ("N where f == $0 SORT(id)", [.double(.nan)], []),
        ]
        for (text, arguments, expected) in runs {
            #expect(try store.read { try PostgresFixtures.ids($0.query(text, arguments: arguments)) } == expected, "store: \(text) with \(arguments)")
            #expect(PostgresFixtures.ids(try postgres.objects(text, arguments: arguments)) == expected, "PostgreSQL: \(text) with \(arguments)")
        }
    }

    /// `min` and `max` skip NaN wherever it comes, as statements, group aggregates and list
    /// aggregates (in SELECT and in a predicate), on both backends alike: the values without
    /// their NaNs decide.
    @Test func minAndMaxSkipNaN() throws {
        let (store, postgres) = try Self.load()
        let more: [[String: Value]] = [
            ["id": 40, "d": .double(.nan), "f": .float(.nan), "s": 1, "dl": [.double(.nan), .double(4), .double(-3)]],
            ["id": 41, "d": .double(2), "f": .float(-1), "s": 1, "dl": [.double(5), .double(.nan)]],
            ["id": 42, "d": .double(-6), "f": .float(.nan), "s": 1, "dl": [.double(.nan)]],
        ]
        try store.write { tx in for object in more { _ = try tx.insert("N", object) } }
        for object in more { try postgres.insert("N", object) }
        let values: [(String, Value)] = [
            ("min N.d where s == 1", .double(-6)), ("max N.d where s == 1", .double(2)),
            ("min N.f where s == 1", .float(-1)), ("max N.f where s == 1", .float(-1)),
            ("max N.d where id == 40", .null),
        ]
        for (text, expected) in values {
            #expect(try store.read { try $0.aggregate(text) } == expected, "store: \(text)")
            guard case .value(_, let got) = try postgres.run(text) else { Issue.record("\(text): not a value"); continue }
            #expect(got == expected, "PostgreSQL: \(text)")
        }
        let rows: [(String, [[Value]])] = [
            ("N where s == 1 GROUP(s) SELECT(@min.d, @max.d, @min.f, @max.f)", [[.double(-6), .double(2), .float(-1), .float(-1)]]),
            ("N where id >= 40 SORT(id) SELECT(dl.@min, dl.@max)", [[.double(-3), .double(4)], [.double(5), .double(5)], [.null, .null]]),
        ]
        for (text, expected) in rows {
            #expect(try store.read { try $0.rows(text).map(\.values) } == expected, "store: \(text)")
            guard case .rows(let got) = try postgres.run(text) else { Issue.record("\(text): not rows"); continue }
            #expect(got.rows == expected, "PostgreSQL: \(text)")
        }
        for text in ["N where dl.@max == 4 SORT(id)", "N where dl.@min < 0 SORT(id)", "N where dl.@max >= 5 SORT(id)"] {
            let expected: [Int64] = text.contains("== 4") || text.contains("< 0") ? [40] : [41]
            #expect(try store.read { try PostgresFixtures.ids($0.query(text)) } == expected, "store: \(text)")
            #expect(PostgresFixtures.ids(try postgres.objects(text)) == expected, "PostgreSQL: \(text)")
        }
    }

    /// A decimal NaN is refused on every write, as on a store, and the write changes nothing;
    /// a decimal beyond an exponent of 127 but within a decimal's range is taken and found.
    @Test func aDecimalNaNIsRefusedAndALargeDecimalTaken() throws {
        let (store, postgres) = try Self.load()
        let writes: [(String, (Transaction) throws -> Void, () throws -> Void)] = [
            ("insert", { _ = try $0.insert("N", ["id": 50, "dec": .decimal(.nan)]) }, { try postgres.insert("N", ["id": 50, "dec": .decimal(.nan)]) }),
            ("list", { _ = try $0.insert("N", ["id": 50, "ds": [.decimal(2), .decimal(.nan)]]) }, { try postgres.insert("N", ["id": 50, "ds": [.decimal(2), .decimal(.nan)]]) }),
            ("upsert", { _ = try $0.upsert("N", ["id": 1, "dec": .decimal(.nan)]) }, { _ = try postgres.upsert("N", ["id": 1, "dec": .decimal(.nan)]) }),
            ("update", { _ = try $0.update("N", primaryKey: 2, ["dec": .decimal(.nan)]) }, { _ = try postgres.update("N", primaryKey: 2, set: ["dec": .decimal(.nan)]) }),
        ]
        for (name, onStore, onPostgres) in writes {
            let storeError = #expect(throws: StoreError.self, "\(name)") { try store.write { try onStore($0) } }
            let postgresError = #expect(throws: PostgresError.self, "\(name)") { try onPostgres() }
            #expect(storeError.map { "\($0)" }?.contains("a decimal cannot be NaN") == true, "\(name): \(String(describing: storeError))")
            #expect(postgresError.map { "\($0)" }?.contains("a decimal cannot be NaN") == true, "\(name): \(String(describing: postgresError))")
        }
        for text in ["N SORT(id) SELECT(id, dec, ds)"] {
            let expected = try PostgresDifferentialTests.storeRows(store, text, [])
            guard case .rows(let got) = try postgres.run(text) else { Issue.record("\(text): not rows"); continue }
            #expect(got.json == expected.rows, "\(text)\n  got \(got.json)\n  expected \(expected.rows)")
            #expect(got.json.count == Self.objects.count)
        }
        let large: [String: Value] = ["id": 60, "dec": .string("3e165")]
        try store.write { tx in _ = try tx.insert("N", large) }
        try postgres.insert("N", large)
        #expect(try postgres.count("N", where: "dec == 3e165") == 1)
        #expect(try store.read { try $0.query("N where dec == 3e165").count } == 1)
        let text = "N where id == 60 SELECT(dec)"
        let expected = try PostgresDifferentialTests.storeRows(store, text, [])
        guard case .rows(let got) = try postgres.run(text) else { Issue.record("\(text): not rows"); return }
        #expect(got.json == expected.rows, "got \(got.json), expected \(expected.rows)")
    }

    /// An object reference a caller makes (or takes from a store) names no row on PostgreSQL,
    /// not even for a target without a primary key; nested objects a write inserts are linked.
    @Test func aCallersReferenceIsRefused() throws {
        let (_, postgres) = try Self.load()
        _ = try postgres.update("N", primaryKey: 1, set: ["pet": .object(["name": "Rex"]), "pets": [.object(["name": "Tom"])]])
        let reference = Value.reference(ObjectReference(model: "Pet", key: 1))
        #expect(throws: PostgresError.self) { try postgres.insert("N", ["id": 40, "pet": reference]) }
        #expect(throws: PostgresError.self) { try postgres.insert("N", ["id": 41, "pets": [reference]]) }
        #expect(throws: PostgresError.self) { try postgres.insert("N", ["id": 42, "pets": [.object(["name": "Ann"]), reference]]) }
        #expect(throws: PostgresError.self) { _ = try postgres.update("N", primaryKey: 2, set: ["pet": reference]) }
        #expect(throws: PostgresError.self) { _ = try postgres.update("N", primaryKey: 2, set: ["pets": [reference]]) }
        #expect(try postgres.count("N", where: "id >= 40 OR pet != nil OR pets.@count > 0") == 1)
        try postgres.insert("N", ["id": 43, "pets": [.object(["name": "Ann"]), .object(["name": "Bo"])], "pet": .object(["name": "Cy"])])
        #expect(try postgres.count("N", where: "pets.@count == 2 AND ANY pets.name == 'Bo' AND pet.name == 'Cy'") == 1)
    }

    /// A link given as a value that is no object names its target by the primary key, coerced
    /// as a store coerces it; a target without a primary key is given whole, never by a
    /// number (which would name its internal `"@key"`).
    @Test func aLinkIsAnObjectOrItsTargetsPrimaryKeyAsOnAStore() throws {
        let (store, postgres) = try Self.load()
        try store.write { tx in _ = try tx.update("N", primaryKey: 1, ["pet": .object(["name": "Rex"])]) }
        _ = try postgres.update("N", primaryKey: 1, set: ["pet": .object(["name": "Rex"])])
        let writes: [(String, [String: Value])] = [
            ("a number for a link without a primary key", ["id": 10, "pet": 1]),
            ("a number in a list without a primary key", ["id": 10, "pets": [1]]),
            ("a string for a link without a primary key", ["id": 10, "pet": "1"]),
            ("a fraction for an int primary key", ["id": 10, "owner": .double(1.5)]),
            ("a string for an int primary key", ["id": 10, "owner": "one"]),
            ("a bool for an int primary key", ["id": 10, "owner": .bool(true)]),
            ("a missing target", ["id": 10, "owner": .double(4)]),
        ]
        for (name, values) in writes {
            let expected = #expect(throws: StoreError.self, "\(name)") { try store.write { _ = try $0.insert("N", values) } }
            #expect(throws: expected ?? .readOnly, "\(name)") { try postgres.insert("N", values) }
            #expect(throws: expected ?? .readOnly, "\(name), by update") {
                _ = try postgres.update("N", primaryKey: 2, set: values.filter { $0.key != "id" })
            }
        }
        // What a store takes, PostgreSQL takes: a whole number of another kind, the key's text.
        for (name, values) in [("a double", ["id": 11, "owner": .double(2)]), ("a decimal", ["id": 12, "owner": .decimal(5)])] as [(String, [String: Value])] {
            try store.write { _ = try $0.insert("N", values) }
            try postgres.insert("N", values)
            #expect(try postgres.count("N", where: "owner != nil") == store.read { try $0.query("N where owner != nil").count }, "\(name)")
        }
        #expect(try postgres.count("N") == store.read { try $0.query("N").count })
        #expect(try postgres.count("N", where: "pet != nil") == 1)
    }
}
