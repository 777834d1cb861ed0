import Foundation
import Testing
import Trove
@testable import TrovePostgres
import PostgresTestSupport

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresStoreTests {
    static func schema(_ text: String) throws -> Schema { try Schema(jsonData: Array(text.utf8), fileName: "test") }

    @Test func createsTablesAndKeepsTheSchema() throws {
        let url = try PostgresTestServer.freshURL()
        let store = try PostgresStore(url: url, schema: PostgresFixtures.schema)
        let columns = try store.connection.execute("""
            SELECT column_name, data_type, is_nullable FROM information_schema.columns
            WHERE table_name = 'Person' AND table_schema = current_schema() ORDER BY ordinal_position
            """).rows
        #expect(columns.map { $0[0]! } == ["@key", "id", "name", "age", "score", "flag", "born", "friend"])
        #expect(columns.map { $0[1]! } == ["bigint", "bigint", "text", "bigint", "double precision", "boolean",
                                           "timestamp with time zone", "bigint"])
        #expect(try store.connection.execute("SELECT collation_name FROM information_schema.columns WHERE table_name = 'Person' AND column_name = 'name' AND table_schema = current_schema()").rows == [["C"]])
        let reopened = try PostgresStore(url: url)
        #expect(reopened.schema == PostgresFixtures.schema)
    }

    @Test func additiveChangesMigrateAndOthersAreRefused() throws {
        let url = try PostgresTestServer.freshURL()
        let v1 = try Self.schema(#"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "string", "n": "int"}}]}"#)
        let store = try PostgresStore(url: url, schema: v1)
        try store.insert("Item", ["id": "a", "n": 1])
        let v2 = try Self.schema(#"""
            {"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "string", "n": {"type": "int", "indexed": true},
              "label": {"type": "string", "default": "none"}, "tags": "string[]", "owner": "Box?"}},
              {"name": "Box", "properties": {"size": "int?"}}]}
            """#)
        let migrated = try PostgresStore(url: url, schema: v2)
        let objects = try migrated.objects("Item")
        #expect(objects.json.map { JSONValue.object($0).jsonText } == [#"{"id":"a","n":1,"label":"none","tags":[],"owner":null}"#])
        let v3 = try Self.schema(#"{"schemaVersion": 2, "models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "string"}}]}"#)
        let error = #expect(throws: PostgresError.self) { try PostgresStore(url: url, schema: v3) }
        #expect(error?.message.contains("additive changes only") == true)
        #expect(try PostgresStore(url: url).schema == v2)
    }

    @Test func hostileStringsAndKeywordNamesAreStoredAndMatchedExactly() throws {
        let schema = try Self.schema(#"""
            {"models": [{"name": "select", "primaryKey": "from", "properties": {"from": "string", "where": "string?", "order": "string[]"}}]}
            """#)
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let hostile = ["it's", "back\\slash", "$1", "'; DROP TABLE \"select\"; --", "\"", "%_*?", "é"]
        for (i, value) in hostile.enumerated() {
            try store.insert("select", ["from": .string("k\(i)"), "where": .string(value), "order": .list([.string(value)])])
        }
        for (i, value) in hostile.enumerated() {
            let found = try store.objects("select where where == $0", arguments: [.string(value)])
            #expect(found.objects.map { $0[0] } == [.string("k\(i)")])
            #expect(found.objects.first?[2] == .list([.string(value)]))
            #expect(try store.count("select", where: "ANY order == $0", arguments: [.string(value)]) == 1)
        }
        #expect(try store.count("select", where: "where LIKE '*%*'") == 1)
        #expect(try store.count("select") == hostile.count)
    }

    /// As on a store: a model without a primary key has no upsert, and nothing is written.
    @Test func upsertOfAModelWithoutAPrimaryKeyIsRefused() throws {
        let schema = try Self.schema(#"{"models": [{"name": "Note", "properties": {"text": "string"}}]}"#)
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        #expect(throws: StoreError.noPrimaryKey(model: "Note")) { try store.upsert("Note", ["text": "a"]) }
        #expect(try store.count("Note") == 0)
    }

    /// An omitted property gets what it gets on a store (its default, else Realm's zero value
    /// or an empty list), by an insert, in a nested object and by COPY; an explicit null for a
    /// required property and a missing primary key are the store's errors.
    @Test func omittedPropertiesGetTheValuesAStoreGives() throws {
        let schema = try Self.schema(#"""
            {"models": [{"name": "Thing", "primaryKey": "id", "properties": {"id": "int", "b": "bool", "i": "int", "i8": "int8",
              "i16": "int16", "i32": "int32", "i64": "int64", "f": "float", "d": "double", "s": "string", "t": "date", "x": "data",
              "m": "decimal", "u": "uuid", "o": "string?", "tags": "string[]", "nums": "int?[]", "label": {"type": "string", "default": "none"},
              "n": {"type": "int", "default": 7}, "kid": "Kid?"}},
              {"name": "Kid", "primaryKey": "name", "properties": {"name": "string", "age": "int", "born": "date", "toys": "string[]"}}]}
            """#)
        let store = try Store(configuration: .inMemory(schema: schema))
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let inserts: [[String: Value]] = [["id": 1], ["id": 2, "kid": .object(["name": "k"])], ["id": 3, "s": "given"]]
        try store.write { tx in for values in inserts { _ = try tx.insert("Thing", values) } }
        for values in inserts { try postgres.insert("Thing", values) }
        let bulk = try PostgresBulkInsert(store: postgres, model: "Thing")
        try store.write { tx in _ = try tx.insert("Thing", ["id": 4]) }
        try postgres.atomically {
            #expect(try bulk.add(["id": 4], at: .record(1)))
            try bulk.flush()
        }
        for query in ["Thing SORT(id)", "Kid SORT(name)"] {
            let expected = try PostgresDifferentialTests.storeRows(store, query, []).rows
            #expect(try postgres.objects(query).json == expected, "\(query)")
        }
        for values: [String: Value] in [["s": "no key"], ["id": 9, "s": .null], ["id": 9, "kid": .object(["age": 1])]] {
            let onStore = #expect(throws: StoreError.self) { try store.write { tx in _ = try tx.insert("Thing", values) } }
            let onServer = #expect(throws: StoreError.self) { try postgres.insert("Thing", values) }
            #expect(onServer == onStore, "\(values)")
            guard values["kid"] == nil else { continue }
            let copied = #expect(throws: StoreError.self) {
                try postgres.atomically { _ = try PostgresBulkInsert(store: postgres, model: "Thing").add(values, at: .record(1)) }
            }
            #expect(copied == onStore, "\(values)")
        }
    }

    @Test func writesFollowTheStoresRules() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: PostgresFixtures.schema)
        try store.insert("Dog", ["id": 1, "name": "Rex", "age": 3])
        try store.insert("Dog", ["id": 2, "name": "Fido"])
        try store.insert("Person", ["id": 1, "name": "Ann", "dogs": [1, 2, 1], "tags": ["x", "y"]])
        try store.insert("Person", ["id": 2, "name": "Bob", "friend": 1])
        #expect(throws: StoreError.duplicatePrimaryKey(model: "Person", value: "1")) { try store.insert("Person", ["id": 1, "name": "dup"]) }
        #expect(try store.upsert("Person", ["id": 2, "age": 40]) == false)
        #expect(try store.upsert("Person", ["id": 3, "name": "Cy"]) == true)
        #expect(try store.objects("Person where id == 2").json.first?["name"] == .string("Bob"))
        #expect(try store.update("Person", where: "name BEGINSWITH 'A'", set: ["age": 30]) == 1)
        #expect(try store.count("Person", where: "age >= 30") == 2)
        // A deleted target leaves a null link and leaves the lists it was in.
        #expect(try store.delete("Person", primaryKeys: [1]) == 1)
        #expect(try store.objects("Person where id == 2").json.first?["friend"] == .null)
        #expect(try store.delete("Dog", where: "name == 'Rex'") == 1)
        #expect(try store.count("Dog", where: "owners.@count > 0") == 0)
        // A failed write in a transaction leaves the transaction usable and changes nothing.
        try store.begin()
        try store.insert("Dog", ["id": 5, "name": "Kept"])
        #expect(throws: StoreError.duplicatePrimaryKey(model: "Dog", value: "5")) { try store.insert("Dog", ["id": 5, "name": "dup"]) }
        try store.commit()
        #expect(try store.count("Dog", where: "id == 5") == 1)
    }

    /// A write the store refuses for its data throws the store's `StoreError` on PostgreSQL
    /// too, the same case with the same values, and writes nothing.
    @Test func refusedWritesThrowTheStoresErrors() throws {
        let schema = PostgresFixtures.schema
        let store = try Store(configuration: .inMemory(schema: schema))
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        try store.write { tx in
            _ = try tx.insert("Dog", ["id": 1, "name": "Rex"])
            _ = try tx.insert("Person", ["id": 1, "name": "Ann", "dogs": [1]])
        }
        try postgres.insert("Dog", ["id": 1, "name": "Rex"])
        try postgres.insert("Person", ["id": 1, "name": "Ann", "dogs": [1]])
        let writes: [(String, (Transaction) throws -> Void, () throws -> Void)] = [
            ("dangling link", { _ = try $0.insert("Person", ["id": 2, "friend": 99]) }, { try postgres.insert("Person", ["id": 2, "friend": 99]) }),
            ("dangling list link", { _ = try $0.insert("Person", ["id": 2, "dogs": [1, 98]]) }, { try postgres.insert("Person", ["id": 2, "dogs": [1, 98]]) }),
            ("dangling link by update", { _ = try $0.update("Person", primaryKey: 1, ["friend": 97]) },
             { _ = try postgres.update("Person", primaryKey: 1, set: ["friend": 97]) }),
            ("dangling link by upsert", { _ = try $0.upsert("Person", ["id": 1, "dogs": [96]]) }, { try postgres.upsert("Person", ["id": 1, "dogs": [96]]) }),
            ("duplicate primary key", { _ = try $0.insert("Dog", ["id": 1]) }, { try postgres.insert("Dog", ["id": 1]) }),
            ("changed primary key", { _ = try $0.update("Dog", primaryKey: 1, ["id": 2]) }, { _ = try postgres.update("Dog", primaryKey: 1, set: ["id": 2]) }),
            ("changed primary key by predicate", { _ = try $0.update("Person", where: "id == 1", set: ["id": 2, "name": "Bo"]) },
             { _ = try postgres.update("Person", where: "id == 1", set: ["id": 2, "name": "Bo"]) }),
            ("duplicate nested", { _ = try $0.insert("Person", ["id": 3, "friend": .object(["id": 3])]) },
             { try postgres.insert("Person", ["id": 3, "friend": .object(["id": 3])]) }),
            ("computed property", { _ = try $0.insert("Dog", ["id": 4, "owners": .list([])]) }, { try postgres.insert("Dog", ["id": 4, "owners": .list([])]) }),
            ("computed property by update", { _ = try $0.update("Dog", primaryKey: 1, ["owners": .null]) },
             { _ = try postgres.update("Dog", primaryKey: 1, set: ["owners": .null]) }),
            ("unknown property", { _ = try $0.insert("Dog", ["id": 4, "nope": 1]) }, { try postgres.insert("Dog", ["id": 4, "nope": 1]) }),
            ("missing primary key", { _ = try $0.insert("Dog", ["name": "Tom"]) }, { try postgres.insert("Dog", ["name": "Tom"]) }),
            ("missing primary key by upsert", { _ = try $0.upsert("Dog", ["name": "Tom"]) }, { try postgres.upsert("Dog", ["name": "Tom"]) }),
            ("null primary key by upsert", { _ = try $0.upsert("Dog", ["id": .null]) }, { try postgres.upsert("Dog", ["id": .null]) }),
            ("null in a list", { _ = try $0.insert("Person", ["id": 5, "tags": [.null]]) }, { try postgres.insert("Person", ["id": 5, "tags": [.null]]) }),
            ("null in a list of links", { _ = try $0.insert("Person", ["id": 5, "dogs": [.null]]) }, { try postgres.insert("Person", ["id": 5, "dogs": [.null]]) }),
            ("null required", { _ = try $0.insert("Person", ["id": .null]) }, { try postgres.insert("Person", ["id": .null]) }),
        ]
        for (name, onStore, onServer) in writes {
            let expected = #expect(throws: StoreError.self, "\(name)") { try store.write { try onStore($0) } }
            #expect(throws: expected ?? .readOnly, "\(name)") { try onServer() }
        }
        #expect(try postgres.count("Person") == 1 && postgres.count("Dog") == 1)
    }

    /// An update never changes a primary key, as a store's never does: by one `UPDATE`, by
    /// predicate (naming the first object in the order of results), or with a list, it fails
    /// with the store's error and writes nothing; the same key again is no change.
    @Test func anUpdateRefusesToChangeAPrimaryKey() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: PostgresFixtures.schema)
        try store.insert("Dog", ["id": 1, "name": "Rex"])
        try store.insert("Dog", ["id": 2, "name": "Fido"])
        try store.insert("Person", ["id": 1, "name": "Ann"])
        try store.insert("Person", ["id": 2, "name": "Bob", "dogs": [2]])
        func refusal(_ model: String, _ from: Int, _ to: Int) -> StoreError {
            .invalidArgument("the primary key of \(model) cannot be changed (\(from) to \(to))")
        }
        #expect(throws: refusal("Dog", 2, 1)) { try store.update("Dog", primaryKey: 2, set: ["id": 1]) }
        #expect(throws: refusal("Dog", 2, 3)) { try store.update("Dog", primaryKey: 2, set: ["id": 3, "name": "F"]) }
        #expect(throws: refusal("Dog", 1, 2)) { try store.update("Dog", where: "id >= 1", set: ["id": 2]) }
        #expect(throws: refusal("Dog", 2, 1)) { try store.update("Dog", where: "name == 'Fido'", set: ["id": 1, "name": "F"]) }
        #expect(throws: refusal("Person", 2, 3)) { try store.update("Person", primaryKey: 2, set: ["id": 3, "dogs": [1, 2]]) }
        #expect(try store.objects("Dog SORT(id)").json.map { $0["name"] } == [.string("Rex"), .string("Fido")])
        #expect(try store.objects("Person where id == 2").json.first?["dogs"] == .array([.int(2)]))
        #expect(try store.update("Dog", primaryKey: 2, set: ["id": 2, "name": "F"]))
        #expect(try store.update("Dog", where: "name == 'Rex'", set: ["id": 1]) == 1)
        #expect(try store.update("Dog", where: "id > 5", set: ["id": 9]) == 0)
        #expect(try store.objects("Dog SORT(id)").json.map { $0["name"] } == [.string("Rex"), .string("F")])
    }

    static let walkSchema = try! Schema(jsonData: Array("""
    {
      "schemaVersion": 1,
      "models": [
        { "name": "Dog", "primaryKey": "id", "properties": { "id": "int" } },
        { "name": "Person", "primaryKey": "id", "properties": { "id": "int" } },
        { "name": "Walk", "primaryKey": "id", "properties": { "id": "int", "dog": "Dog?", "walker": "Person?", "dogs": "Dog[]" } }
      ]
    }
    """.utf8), fileName: "walks")

    /// A statement writing several links names the one whose target does not exist, in any
    /// `lc_messages`: by the foreign key's name, and in a list by the keys it finds.
    @Test func theMissingLinkAmongSeveralIsNamedInAnyLanguage() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.walkSchema)
        try store.insert("Dog", ["id": 1])
        try store.insert("Person", ["id": 1])
        func expectRefused() {
            #expect(throws: StoreError.linkTargetNotFound(property: "walker", model: "Person", primaryKey: "99")) {
                try store.insert("Walk", ["id": 1, "dog": 1, "walker": 99])
            }
            #expect(throws: StoreError.linkTargetNotFound(property: "dog", model: "Dog", primaryKey: "98")) {
                try store.insert("Walk", ["id": 1, "dog": 98, "walker": 1])
            }
            #expect(throws: StoreError.linkTargetNotFound(property: "walker", model: "Person", primaryKey: "97")) {
                try store.update("Walk", where: nil, set: ["dog": 1, "walker": 97])
            }
            #expect(throws: StoreError.linkTargetNotFound(property: "dogs", model: "Dog", primaryKey: "96")) {
                try store.insert("Walk", ["id": 2, "dogs": [1, 96, 95, 1]])
            }
        }
        try store.insert("Walk", ["id": 3, "dogs": [1, 1]])
        expectRefused()
        // The server's detail translated: the foreign key's name still says which column.
        let refused = #expect(throws: PostgresError.self) {
            try store.connection.execute(#"INSERT INTO "Walk" (id, dog, walker) VALUES (1, 1, 99)"#)
        }
        #expect(refused?.constraint == "Walk_walker_fkey")
        if var refused {
            refused.detail = "Schlüssel (walker)=(99) ist nicht in Tabelle »Person« vorhanden."
            var written = PostgresStore.WrittenKeys()
            written.links = [("dog", "Dog", "Walk", "dog", "1", 1), ("walker", "Person", "Walk", "walker", "99", 99)]
            #expect(store.storeError(try #require(Self.walkSchema["Walk"]), refused, written)
                    == .linkTargetNotFound(property: "walker", model: "Person", primaryKey: "99"))
        }
        // The server's own translation, where its machine has a locale for one.
        for locale in ["de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "es_ES.UTF-8", "es_ES.utf8"] {
            guard (try? store.connection.execute("SET lc_messages = '\(locale)'")) != nil else { continue }
            expectRefused()
            break
        }
        #expect(try store.count("Walk") == 1)
    }

    /// A foreign key whose name PostgreSQL cut to 63 bytes, numbered because the cut name was
    /// taken, or renamed by hand, still names its link: the names are read from the catalog
    /// when a store opens.
    @Test func theMissingLinkIsNamedWhateverItsForeignKeyIsCalled() throws {
        let first = "warehouseThatTheConsignmentLeavesFromOnTheDayOfItsDispatchA"
        let second = "warehouseThatTheConsignmentLeavesFromOnTheDayOfItsDispatchB"
        let list = "containersLoadedOntoTheConsignmentBeforeItLeaves"
        let long = "ConsignmentOfGoodsShippedBetweenTwoWarehousesOfTheCompanyByRoad"
        let schema = try Schema(jsonData: Array("""
            {"models": [
              {"name": "Warehouse", "primaryKey": "id", "properties": {"id": "int"}},
              {"name": "Shipment", "primaryKey": "id", "properties": {"id": "int", "\(first)": "Warehouse?", "\(second)": "Warehouse?",
                "\(list)": "Warehouse[]"}},
              {"name": "\(long)", "primaryKey": "id", "properties": {"id": "int", "origin": "Warehouse?"}}
            ]}
            """.utf8), fileName: "shipments")
        let url = try PostgresTestServer.freshURL()
        let store = try PostgresStore(url: url, schema: schema)
        let names = try store.connection.execute("SELECT conname FROM pg_constraint WHERE contype = 'f'").rows.compactMap { $0[0] }
        #expect(names.contains { $0.hasSuffix("_fkey1") } && names.allSatisfy { $0.utf8.count <= 63 }, "\(names)")
        try store.insert("Warehouse", ["id": 1])
        func expectNamed(_ store: PostgresStore) {
            #expect(throws: StoreError.linkTargetNotFound(property: second, model: "Warehouse", primaryKey: "99")) {
                try store.insert("Shipment", ["id": 1, first: 1, second: 99])
            }
            #expect(throws: StoreError.linkTargetNotFound(property: first, model: "Warehouse", primaryKey: "98")) {
                try store.insert("Shipment", ["id": 1, first: 98, second: 1])
            }
            #expect(throws: StoreError.linkTargetNotFound(property: second, model: "Warehouse", primaryKey: "97")) {
                try store.update("Shipment", where: nil, set: [first: 1, second: 97])
            }
            #expect(throws: StoreError.linkTargetNotFound(property: list, model: "Warehouse", primaryKey: "96")) {
                try store.insert("Shipment", ["id": 2, list: [96]])
            }
            #expect(throws: StoreError.linkTargetNotFound(property: "origin", model: "Warehouse", primaryKey: "95")) {
                try store.insert(long, ["id": 1, "origin": 95])
            }
        }
        try store.insert("Shipment", ["id": 3, first: 1, second: 1])
        expectNamed(store)
        // A name no rule gives (as a database of another version may hold) is found too.
        for name in names where name.hasSuffix("_fkey1") {
            try store.connection.execute("ALTER TABLE \"Shipment\" RENAME CONSTRAINT \"\(name)\" TO \"second link\"")
        }
        expectNamed(try PostgresStore(url: url))
        expectNamed(try PostgresStore(url: url, schema: schema))
        #expect(try store.count("Shipment") == 1 && store.count(long) == 0)
    }

    /// An update or delete by predicate is one statement: through links (a join), replacing
    /// lists on every object it matches, and a failed one changes nothing.
    @Test func updatesAndDeletesByPredicateAsAStoreDoes() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: PostgresFixtures.schema)
        try store.insert("Dog", ["id": 1, "name": "Rex"])
        try store.insert("Dog", ["id": 2, "name": "Fido"])
        try store.insert("Person", ["id": 1, "name": "Ann", "dogs": [1]])
        try store.insert("Person", ["id": 2, "name": "Bob", "friend": 1])
        try store.insert("Person", ["id": 3, "name": "Cy", "friend": 2])
        #expect(try store.update("Person", where: "friend.name == 'Ann'", set: ["age": 7]) == 1)
        #expect(try store.count("Person", where: "age == 7 AND name == 'Bob'") == 1)
        #expect(try store.update("Person", where: "id >= 2", set: ["dogs": [2, 1], "tags": ["t"], "age": 8]) == 2)
        #expect(try store.count("Person", where: "dogs.@count == 2 AND ANY tags == 't' AND age == 8") == 2)
        #expect(try store.update("Person", where: "id >= 2", set: ["tags": ["u"]]) == 2)
        #expect(try store.count("Person", where: "ANY tags == 'u'") == 2)
        #expect(try store.update("Person", where: "id > 100", set: ["age": 1, "dogs": [1]]) == 0)
        #expect(try store.update("Person", where: "id > 100", set: ["age": 1]) == 0)
        #expect(throws: StoreError.linkTargetNotFound(property: "friend", model: "Person", primaryKey: "99")) { try store.update("Person", where: "id >= 1", set: ["age": 9, "friend": 99]) }
        #expect(try store.count("Person", where: "age == 9") == 0)
        #expect(try store.count("Person", where: "friend == nil") == 1)
        #expect(try store.delete("Person", where: "friend.name == 'Ann'") == 1)
        #expect(try store.count("Person") == 2)
        #expect(try store.delete("Person", where: "id > 100") == 0)
    }

    @Test func untranslatedQueriesAreErrorsNotWrongAnswers() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: PostgresFixtures.schema)
        let matches = try #require(throws: QueryError.self) { try store.objects("Person where name MATCHES '(?i)a.*'") }
        #expect(matches.kind == .unsupported && matches.column == 19 && matches.statement == "Person where name MATCHES '(?i)a.*'")
        // What a store refuses too is refused with its error, which says where.
        let sort = try #require(throws: QueryError.self) { try store.objects("Person SORT(dogs.age)") }
        #expect(sort.kind == .invalidKeyPath && sort.column == 13)
        let unknown = try #require(throws: QueryError.self) { try store.objects("Person where nope == 1") }
        #expect(unknown.kind == .unknownProperty && unknown.column == 14)
        #expect(throws: PostgresError.self) { try store.objects("Person SELECT(name)") }
    }

    /// A query's constant holding a NUL, which PostgreSQL text cannot hold, is refused where it
    /// stands, named as a string literal or as its argument `$N`, not as SQL's parameter.
    @Test func aNULInAQueryConstantIsRefusedWhereItStands() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: PostgresFixtures.schema)
        let nul = "a\u{0}b"
        let cases: [(text: String, arguments: [Value], column: Int, place: String)] = [
            ("Person where age > $0 AND name == 'a\\u0000b'", [1], 35, "this string literal"),
            ("Person where name IN {'x', \"a\\u0000b\"}", [], 28, "this string literal"),
            ("Person where age > $0 AND name == $1", [1, .string(nul)], 35, "$1"),
            ("Person where name IN $0", [.list([.string("x"), .string(nul)])], 22, "element 2 of $0"),
        ]
        for (text, arguments, column, place) in cases {
            let error = try #require(throws: QueryError.self, "\(text)") { try store.objects(text, arguments: arguments) }
            #expect(error.message == "the text for \(place) has a NUL character, which PostgreSQL text cannot hold", "\(text)")
            #expect(error.column == column, "\(text)")
        }
    }

    @Test func explainShowsTheSQLWithEveryValueBound() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: PostgresFixtures.schema)
        let (sql, plan) = try store.explain("Person where name == 'x; DROP TABLE' AND age > 3 SORT(age) LIMIT(5)")
        #expect(!sql.contains("DROP") && !sql.contains(" 3") && sql.contains("$1"))
        #expect(!plan.isEmpty)
    }

    @Test func comparisonsWithAValueAreIndexConditions() throws {
        let url = try PostgresTestServer.freshURL()
        let store = try PostgresStore(url: url, schema: PostgresFixtures.schema)
        try store.atomically {
            for i in 0..<3000 {
                try store.insert("Person", ["id": .int(Int64(i)), "name": i % 10 == 0 ? .null : .string("n\(i)")])
            }
        }
        try PostgresConnection(url: url).execute("ANALYZE")
        for query in ["Person where name == 'n42'", "Person where name >= 'n42' AND name < 'n43'",
                      "Person where id == 7", "Person where id BETWEEN {7, 9}", "Person where name IN {'n1', 'n2'}"] {
            let plan = try store.explain(query).plan.joined(separator: "\n")
            #expect(plan.contains("Index"), "\(query): \(plan)")
        }
        // Null names fail every comparison with a value, and pass its negation, as in a store.
        #expect(try store.count("Person", where: "name == 'n42'") == 1)
        #expect(try store.count("Person", where: "NOT name == 'n42'") == 2999)
        let atLeast = try store.count("Person", where: "name >= 'n5'")
        #expect(atLeast > 0 && atLeast < 2700)
        #expect(try store.count("Person", where: "NOT (name >= 'n5')") == 3000 - atLeast)
    }

    /// `"@key"` breaks ties in every order but where none can be left: after the primary key,
    /// and for the one object a primary key pins.
    @Test func theKeyBreaksTiesOnlyWhereTiesCanBe() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: PostgresFixtures.schema)
        for (id, age) in [(3, 30), (1, 30), (2, 20)] as [(Int64, Int64)] { try store.insert("Person", ["id": .int(id), "age": .int(age)]) }
        #expect(try store.sql("Person where age > 1 SORT(age)").sql.hasSuffix(#"ORDER BY t0."age" ASC NULLS FIRST, t0."@key""#))
        #expect(try store.sql("Person SORT(age DESC, id)").sql.hasSuffix(#"ORDER BY t0."age" DESC NULLS LAST, t0."id" ASC"#))
        let pinned = try store.sql("Person where id == 3 AND age > 1 SORT(age)").sql
        #expect(!pinned.contains("ORDER BY t0"), "\(pinned)")
        #expect(try store.sql("Person where id == 3 OR age > 1").sql.contains("ORDER BY t0"))
        #expect(try store.objects("Person where age == 30 SORT(age)").keys == ["3", "1"])
        #expect(try store.objects("Person SORT(age DESC, id)").keys == ["1", "3", "2"])
        #expect(try store.objects("Person where id == $0 SORT(age)", arguments: [1]).keys == ["1"])
        // A property that cannot be null is ordered as its index is, so a page walks the index.
        #expect(try store.sql("Person where age == 3 SORT(id DESC) LIMIT(5)").sql.contains(#"ORDER BY t0."id" DESC LIMIT"#))
        #expect(try store.objects("Person SORT(id DESC)").keys == ["3", "2", "1"])
    }

    /// A comparison of a property that cannot be null is the one a person would write, with
    /// no null guard; one of an optional property keeps it, so that `NOT` passes its nulls;
    /// LIMIT and OFFSET are written as numbers, so PostgreSQL keeps one generic plan of a page.
    @Test func theSQLGuardsOnlyWhatCanBeNull() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: PostgresFixtures.schema)
        for (id, age) in [(1, 30), (2, nil), (3, 40)] as [(Int64, Int64?)] {
            try store.insert("Person", ["id": .int(id), "age": age.map { .int($0) } ?? .null])
        }
        let get = try store.sql("Person where id == $0", arguments: [2]).sql
        #expect(get.hasSuffix(#"WHERE t0."id" = $1::bigint"#), "\(get)")
        #expect(try store.sql("Person where age > 3").sql.contains(#"t0."age" IS NOT NULL"#))
        #expect(try store.sql("Person where id > 1 SORT(id) OFFSET(1) LIMIT(20)").sql.hasSuffix(#"(t0."id" > $1::bigint) ORDER BY t0."id" ASC OFFSET 1 LIMIT 20"#))
        #expect(try store.count("Person", where: "NOT id == 2") == 2)
        #expect(try store.count("Person", where: "NOT age == 30") == 2)
        #expect(try store.count("Person", where: "NOT (age > 35 OR id < 2)") == 1)
    }

    /// A statement run again with other arguments reuses its translation: each answer is the
    /// one a store with no translations kept gives, whatever ran before it.
    @Test func queriesRunAgainWithOtherArgumentsAnswerAsFreshOnes() throws {
        let url = try PostgresTestServer.freshURL()
        let store = try PostgresStore(url: url, schema: PostgresFixtures.schema)
        for (id, name, age) in [(1, "Ann", 30), (2, "Bob", 40), (3, "ann", 20)] as [(Int64, String, Int64)] {
            try store.insert("Person", ["id": .int(id), "name": .string(name), "age": .int(age)])
        }
        try store.insert("Person", ["id": 4])
        let runs: [(String, [[Value]])] = [
            ("Person where name == $0", [["Ann"], [.null], ["Bob"], [.null]]),
            // The text `null` for an int is null: `IS NULL`, then a number again.
            ("Person where age == $0", [[30], ["null"], [40], ["40"], ["null"], [.null], [20]]),
            ("Person where name ==[c] $0 SORT(id)", [["ANN"], ["bob"], [.null]]),
            ("Person where name LIKE[c] $0 SORT(id)", [["a*"], ["?OB"], ["*"]]),
            ("Person where age IN $0 SORT(id)", [[[30, 40]], [[.null, 30]], [[20]], [[]], [[40, 20]]]),
            ("Person where age BETWEEN {$0, $1} SORT(id)", [[20, 35], [30, 50]]),
            ("Person where age IN {$0, 40} SORT(id)", [[30], [.null], [20]]),
            ("Person where age > $0 AND name != $1 SORT(age DESC) LIMIT(2)", [[10, "Bob"], [25, .null], [35, "x"]]),
        ]
        for (text, argumentLists) in runs {
            for arguments in argumentLists {
                let fresh = try PostgresStore(url: url)
                #expect(try store.objects(text, arguments: arguments) == fresh.objects(text, arguments: arguments), "\(text) with \(arguments)")
            }
        }
        // Aggregates and SELECT or GROUP keep their translations too.
        let statements: [(String, [[Value]])] = [
            ("sum Person.age where age > $0", [[10], [25], [35], [100]]),
            ("avg Person.age where name ==[c] $0", [["ann"], ["BOB"], [.null], ["x"], ["ANN"]]),
            ("Person where age > $0 GROUP(age) SELECT(age, @count)", [[10], [25], [50], [.null]]),
            ("Person where name != $0 SORT(id) SELECT(id, name)", [["Bob"], [.null], ["Ann"]]),
        ]
        for (text, argumentLists) in statements {
            for arguments in argumentLists {
                let fresh = try PostgresStore(url: url)
                let kept = Result { try store.run(text, arguments: arguments) }, first = Result { try fresh.run(text, arguments: arguments) }
                switch (kept, first) {
                case (.success(let kept), .success(let first)): #expect(kept == first, "\(text) with \(arguments)")
                case (.failure(let kept as QueryError), .failure(let first as QueryError)): #expect(kept == first, "\(text) with \(arguments)")
                default: Issue.record("\(text) with \(arguments): \(kept) against \(first)")
                }
            }
        }
        for threshold in [0, 25, 35, 50] as [Int64] {
            #expect(try store.count("Person", where: "age > $0", arguments: [.int(threshold)])
                    == PostgresStore(url: url).count("Person", where: "age > $0", arguments: [.int(threshold)]))
        }
        #expect(try store.count("Person") == 4)
        #expect(throws: QueryError.self) { try store.count("Person", where: "age > $0", arguments: ["many"]) }
        // As on a store, a null bound of BETWEEN is an error, whether the translation is kept or not.
        #expect(throws: QueryError.self) { try store.objects("Person where age BETWEEN {$0, $1} SORT(id)", arguments: [.null, 30]) }
        #expect(try store.count("Person", where: "age > $0", arguments: [25]) == 2)
    }

    /// Extra arguments are allowed only in the scope that allows them (the shell's): a
    /// translation kept from inside that scope does not take them outside it.
    @Test func aTranslationKeptWhereExtrasAreAllowedRefusesThemElsewhere() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: PostgresFixtures.schema)
        try store.insert("Person", ["id": 1, "name": "Ann", "age": 30])
        let runs: [(String, (PostgresStore) throws -> Any)] = [
            ("objects", { try $0.objects("Person where age > $0", arguments: [10, "extra"]) }),
            ("rows", { try $0.run("Person where age > $0 SELECT(name)", arguments: [10, "extra"]) }),
            ("aggregate", { try $0.run("sum Person.age where age > $0", arguments: [10, "extra"]) }),
            ("count", { try $0.count("Person", where: "age > $0", arguments: [10, "extra"]) }),
            ("count without predicate", { try $0.count("Person", arguments: ["extra"]) }),
        ]
        for (name, run) in runs {
            _ = try QueryParameters.allowingExtraArguments { try run(store) }
            _ = try QueryParameters.allowingExtraArguments { try run(store) }
            let error = #expect(throws: QueryError.self, "\(name)") { try run(store) }
            #expect(error?.kind == .invalidParameter, "\(name)")
        }
    }
}
