import Testing
import Trove
@testable import TrovePostgres
import PostgresTestSupport

/// The schema a connection's tables live in is found in its search_path as PostgreSQL reads
/// the path, and a role that may not use it is told which schema and which privilege.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresSearchPathTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "Person", "primaryKey": "id", "properties": {"id": "int", "name": "string?"}}]}
        """#.utf8), fileName: "search path")

    /// A path's names as PostgreSQL splits them: quoted names as written, others folded to
    /// lower case, `$user` kept for the caller to resolve.
    @Test func aSearchPathIsReadAsPostgreSQLReadsIt() {
        #expect(PostgresSearchPath.names(#""$user", public"#) == ["$user", "public"])
        #expect(PostgresSearchPath.names(#"  Mixed ,"Two Words","a""b",  "x, y"  "#) == ["mixed", "Two Words", #"a"b"#, "x, y"])
        #expect(PostgresSearchPath.names("") == [])
        #expect(PostgresSearchPath.names(#""É""#) == ["É"])
        #expect(PostgresSearchPath.names("É") == ["É"])
        #expect(PostgresSearchPath.names(String(repeating: "a", count: 70)) == [String(repeating: "a", count: 63)])
        #expect(PostgresSearchPath.names(#""open"#) == nil)
        #expect(PostgresSearchPath.names("a b") == nil)
        #expect(PostgresSearchPath.names("a,,b") == nil)
    }

    /// A role without USAGE on the schema that holds the tables is refused with that schema,
    /// the privilege and the server's reason, whether the path names the schema alone or an
    /// empty schema the role may use after it (where a writer would make a second store);
    /// once granted, the role opens the tables.
    @Test func aRoleWithoutUsageOnTheTablesSchemaIsToldSo() throws {
        let url = try PostgresTestServer.freshURL()
        let owner = try PostgresStore(url: url, schema: Self.schema)
        try owner.insert("Person", ["id": 1, "name": "Ann"])
        let name = owner.connection.schemaName
        let empty = try PostgresConnection(url: try PostgresTestServer.freshURL()).schemaName
        try PostgresTestServer.withRole(connectingTo: url) { role, roleURL in
            try owner.connection.execute("GRANT USAGE, CREATE ON SCHEMA \(empty) TO \(role)")
            let throughEmpty = roleURL.replacing("search_path%3D\(name)", with: "search_path%3D\(name)%2C\(empty)")
            #expect(throughEmpty != roleURL)
            for url in [roleURL, throughEmpty] {
                for open in [{ try PostgresStore(url: url) }, { try PostgresStore(url: url, readOnly: true) }] {
                    let error = #expect(throws: PostgresError.self) { _ = try open() }
                    let message = error?.message ?? ""
                    #expect(message.contains(#"schema "\#(name)", which holds Trove's tables"#), "\(message)")
                    #expect(message.contains(#"the role "\#(role)" lacks the USAGE privilege"#), "\(message)")
                    #expect(message.contains("permission denied for schema \(name)"), "\(message)")
                    #expect(error?.sqlState == "42501")
                }
            }
            try owner.connection.execute("GRANT USAGE ON SCHEMA \(name) TO \(role)")
            try owner.connection.execute("GRANT SELECT ON ALL TABLES IN SCHEMA \(name) TO \(role)")
            #expect(try PostgresStore(url: throughEmpty, readOnly: true).count("Person") == 1)
        }
    }

    /// A schema of the path that holds tables the role may use is chosen over an earlier one
    /// holding tables it may not use, as PostgreSQL finds an unqualified table.
    @Test func aUsableSchemaHoldingTablesIsChosenOverAnEarlierUnusableOne() throws {
        let url = try PostgresTestServer.freshURL()
        let owner = try PostgresStore(url: url, schema: Self.schema)
        try owner.insert("Person", ["id": 1, "name": "Ann"])
        let name = owner.connection.schemaName
        let own = try PostgresConnection(url: try PostgresTestServer.freshURL()).schemaName
        try PostgresTestServer.withRole(connectingTo: url) { role, roleURL in
            try owner.connection.execute("GRANT USAGE, CREATE ON SCHEMA \(own) TO \(role)")
            let ownURL = roleURL.replacing("search_path%3D\(name)", with: "search_path%3D\(own)")
            let both = roleURL.replacing("search_path%3D\(name)", with: "search_path%3D\(name)%2C\(own)")
            #expect(ownURL != roleURL && both != roleURL)
            try PostgresStore(url: ownURL, schema: Self.schema).insert("Person", ["id": 2, "name": "Bo"])
            for open in [{ try PostgresStore(url: both) }, { try PostgresStore(url: both, readOnly: true) },
                         { try PostgresStore(url: both, schema: Self.schema) }] {
                let store = try open()
                #expect(store.connection.schemaName == own)
                #expect(try store.objects("Person").keys == ["2"])
            }
        }
    }

    /// A new database whose path names only a schema the role may not use is refused with
    /// that schema named, not as a path of schemas that do not exist.
    @Test func aRoleWithoutUsageOnTheOnlySchemaOfItsPathIsToldSo() throws {
        let url = try PostgresTestServer.freshURL()
        let name = try PostgresConnection(url: url).schemaName
        try PostgresTestServer.withRole(connectingTo: url) { role, roleURL in
            let error = #expect(throws: PostgresError.self) { _ = try PostgresStore(url: roleURL, schema: Self.schema) }
            let message = error?.message ?? ""
            #expect(message.contains(#"schema "\#(name)", the search_path's first"#), "\(message)")
            #expect(message.contains(#"the role "\#(role)" lacks the USAGE privilege"#), "\(message)")
        }
    }

    /// A path of schemas none of which exists is refused with the path.
    @Test func aPathOfNoExistingSchemaIsRefusedWithThePath() throws {
        let base = try #require(PostgresTestServer.url)
        let error = #expect(throws: PostgresError.self) { _ = try PostgresConnection(url: PostgresConnection.url(base, options: "-csearch_path=no_such_schema")) }
        #expect(error?.message == "cannot use PostgreSQL: no schema of the search_path (no_such_schema) exists to hold Trove's tables")
    }

    /// Whether `watcher` receives a notification of `table`, past those of other tables: a
    /// schema whose notify function is an older Trove's (as `PostgresNotifyTests` makes)
    /// notifies the shared channel, which every watcher hears.
    static func hears(_ table: String, _ watcher: PostgresStore) throws -> Bool {
        for _ in 0..<10 {
            let payloads = try watcher.connection.nextNotifications()
            if payloads.isEmpty || payloads.contains(table) { return payloads.contains(table) }
        }
        return false
    }

    /// A PostgreSQL schema named so that SQL must quote it (upper case, a space, a quote, a
    /// comma, a keyword) holds a store: its tables, indexes, lists, links and notifications
    /// work, it reopens with its schema, takes a migration and a copy of a store.
    @Test func aSchemaWhoseNameNeedsQuotingHoldsAStore() throws {
        let name = #"Odd "S", select "# + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let url = try PostgresTestServer.url(inNewSchema: name)
        let linked = try Schema(jsonData: Array(#"""
            {"models": [{"name": "Person", "primaryKey": "id", "properties": {"id": "int", "name": {"type": "string", "indexed": true},
                         "best": "Person?", "friends": "Person[]", "tags": "string[]"}}]}
            """#.utf8), fileName: "quoted")
        let store = try PostgresStore(url: url, schema: linked)
        #expect(store.connection.schemaName == name)
        let watcher = try PostgresStore(url: url)
        try watcher.listen()
        try store.insert("Person", ["id": 1, "name": "Ann", "tags": ["a", "b"]])
        try store.insert("Person", ["id": 2, "name": "Bob", "best": 1, "friends": [1]])
        #expect(try Self.hears("Person", watcher))
        #expect(try store.objects("Person where best.name == 'Ann' AND ANY friends.id == 1").keys == ["2"])
        #expect(try store.count("Person", where: "name BEGINSWITH 'A' AND 'b' IN tags") == 1)
        #expect(try store.explain("Person where name == 'Ann'").sql.contains(#""Odd ""S"", select "#))
        #expect(try store.update("Person", where: "id == 1", set: ["name": "Anna"]) == 1)
        #expect(try Self.hears("Person", watcher))
        let reopened = try PostgresStore(url: url)
        #expect(reopened.schema == linked)
        #expect(try reopened.objects("Person SORT(id)").json.map { $0["name"] } == [.string("Anna"), .string("Bob")])
        // A migration adds a model and an index and drops one, each named with the schema.
        let migrated = try Schema(jsonData: Array(#"""
            {"models": [{"name": "Person", "primaryKey": "id", "properties": {"id": "int", "name": "string",
                         "best": "Person?", "friends": "Person[]", "tags": "string[]", "age": {"type": "int?", "indexed": true}}},
                        {"name": "Dog", "properties": {"owner": "Person?"}}]}
            """#.utf8), fileName: "quoted")
        try reopened.apply(migrated)
        try reopened.insert("Dog", ["owner": 2])
        #expect(try reopened.count("Dog", where: "owner.name == 'Bob'") == 1)
        let indexes = try reopened.connection.execute("SELECT indexname FROM pg_catalog.pg_indexes WHERE schemaname = $1 AND indexname LIKE '%index' ORDER BY 1", [name])
        #expect(indexes.rows == [["Person.age index"]])
        // A store copied into a new schema of such a name, and back.
        let source = try Store(configuration: .inMemory(schema: migrated))
        try source.write { _ = try $0.insert("Person", ["id": 7, "name": "Cy", "tags": ["x"]]) }
        let copyURL = try PostgresTestServer.url(inNewSchema: name + " copy")
        try StoreCopy.copy(source, toDatabase: copyURL)
        let back = try Store(configuration: .inMemory(schema: migrated))
        try StoreCopy.copy(database: try PostgresConnection(url: copyURL), to: back)
        #expect(try back.read { try $0.count("Person") } == 1)
    }
}
