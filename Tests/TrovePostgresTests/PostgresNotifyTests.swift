import Foundation
import Testing
import Trove
@testable import TrovePostgres
import PostgresTestSupport
import TestWaits

/// Each schema's commits notify a channel of its own, and a database whose notify function is
/// not this code's gets this code's when a client that may write opens it. The tests run one
/// at a time: a schema whose function notifies the shared channel wakes every watcher.
@Suite(.serialized, .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresNotifyTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "Person", "primaryKey": "id", "properties": {"id": "int"}},
                    {"name": "Dog", "properties": {"name": "string"}}]}
        """#.utf8), fileName: "notify")

    /// The body of a notify function that calls `pg_notify` unqualified, on the channel every
    /// schema of the database shares.
    static let sharedBody = "BEGIN PERFORM pg_notify('trove', TG_TABLE_NAME); RETURN NULL; END"

    static func body(_ connection: PostgresConnection) throws -> String? {
        try connection.execute(#"SELECT prosrc FROM pg_catalog.pg_proc WHERE oid = to_regprocedure('"@trove_notify"()')"#).rows.first?.first ?? nil
    }

    /// A watcher of one schema is not woken by a commit in another schema of the database:
    /// after a commit in A and then one in B, what B's watcher receives first is B's alone.
    /// So too for two schemas whose names are alike in more bytes than a channel's name holds.
    @Test(arguments: [false, true])
    func aWatcherOfOneSchemaHearsNoCommitOfAnother(longNames: Bool) throws {
        let prefix = UUID().uuidString.lowercased().replacing("-", with: "") + (longNames ? String(repeating: "x", count: 30) : "_")
        let urlA = try PostgresTestServer.url(inNewSchema: prefix + "a"), urlB = try PostgresTestServer.url(inNewSchema: prefix + "b")
        let a = try PostgresStore(url: urlA, schema: Self.schema), b = try PostgresStore(url: urlB, schema: Self.schema)
        #expect(b.connection.schemaName == prefix + "b")
        let channelA = PostgresTables.notifyChannel(prefix + "a"), channelB = PostgresTables.notifyChannel(prefix + "b")
        #expect(channelA != channelB && channelB.utf8.count <= 63)
        let watcher = try PostgresStore(url: urlB)
        try watcher.listen()
        try a.insert("Dog", ["name": "Rex"])
        try b.insert("Person", ["id": 1])
        #expect(try watcher.connection.nextNotifications() == ["Person"])
        try a.insert("Person", ["id": 1])
        try b.insert("Dog", ["name": "Fido"])
        #expect(try watcher.connection.nextNotifications() == ["Dog"])
    }

    /// A database whose notify function calls `pg_notify` unqualified on the shared channel
    /// keeps it for a read-only client, whose watcher hears that channel; clients that may
    /// write, opening at once with and without a schema, replace it with this code's (one at
    /// a time, under the install lock), and the triggers call the new one. A watcher hears
    /// each commit once whichever of the two the function is, as when an older Trove gives it
    /// the shared channel again while the watcher listens.
    @Test func anOlderNotifyFunctionIsReplacedWhenAWriterOpens() throws {
        let url = try PostgresTestServer.freshURL()
        let name = try PostgresStore(url: url, schema: Self.schema).connection.schemaName
        let connection = try PostgresConnection(url: url)
        try connection.execute(#"CREATE OR REPLACE FUNCTION "@trove_notify"() RETURNS trigger LANGUAGE plpgsql AS $$\#(Self.sharedBody)$$"#)
        let reader = try PostgresStore(url: url, readOnly: true)
        try reader.listen()
        try connection.execute(#"INSERT INTO "Person" (id) VALUES (1)"#)
        #expect(try reader.connection.nextNotifications() == ["Person"])
        #expect(try Self.body(connection) == Self.sharedBody)
        let openers = (0..<4).map { index in
            WaitBudget.Thread { _ = try index.isMultiple(of: 2) ? PostgresStore(url: url) : PostgresStore(url: url, schema: Self.schema) }
        }
        for (index, opener) in openers.enumerated() {
            #expect(throws: Never.self) { try opener.result("opener \(index)")?.get() }
        }
        #expect(try Self.body(connection) == PostgresTables.notifyBody(name))
        let watcher = try PostgresStore(url: url)
        try watcher.listen()
        try connection.execute(#"INSERT INTO "Person" (id) VALUES (2)"#)
        #expect(try watcher.connection.nextNotifications() == ["Person"])
        #expect(try reader.connection.nextNotifications() == ["Person"])
        // An older Trove gives the function the shared channel again: the watcher still hears
        // each commit, once.
        try connection.execute(#"CREATE OR REPLACE FUNCTION "@trove_notify"() RETURNS trigger LANGUAGE plpgsql AS $$\#(Self.sharedBody)$$"#)
        try connection.execute(#"INSERT INTO "Person" (id) VALUES (3)"#)
        #expect(try watcher.connection.nextNotifications() == ["Person"])
        try watcher.insert("Dog", ["name": "Rex"])
        #expect(try watcher.connection.nextNotifications() == ["Dog"])
    }

    /// A client that may write but may not replace the notify function opens the database
    /// with its schema and leaves the function: a role that does not own it, and its owner
    /// once CREATE on the PostgreSQL schema is revoked (PostgreSQL asks for it to replace a
    /// function too). Given CREATE again, the owner replaces it.
    @Test func aWriterThatMayNotReplaceTheNotifyFunctionOpensAndLeavesIt() throws {
        let url = try PostgresTestServer.freshURL()
        let admin = try PostgresStore(url: url, schema: Self.schema).connection
        let name = admin.schemaName
        try admin.execute(#"CREATE OR REPLACE FUNCTION "@trove_notify"() RETURNS trigger LANGUAGE plpgsql AS $$\#(Self.sharedBody)$$"#)
        try PostgresTestServer.withRole(connectingTo: url) { role, roleURL in
            try admin.execute("GRANT USAGE, CREATE ON SCHEMA \(name) TO \(role)")
            try admin.execute("GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA \(name) TO \(role)")
            let notOwner = try PostgresStore(url: roleURL, schema: Self.schema)
            try notOwner.insert("Person", ["id": 1])
            #expect(try Self.body(admin) == Self.sharedBody)
            try admin.execute(#"ALTER FUNCTION "@trove_notify"() OWNER TO \#(role)"#)
            // The triggers depend on the function, so the role's objects cannot be dropped.
            defer { _ = try? admin.execute(#"ALTER FUNCTION "@trove_notify"() OWNER TO CURRENT_USER"#) }
            try admin.execute("REVOKE CREATE ON SCHEMA \(name) FROM \(role)")
            let owner = try PostgresStore(url: roleURL, schema: Self.schema)
            try owner.insert("Person", ["id": 2])
            #expect(try Self.body(admin) == Self.sharedBody)
            try admin.execute("GRANT CREATE ON SCHEMA \(name) TO \(role)")
            _ = try PostgresStore(url: roleURL, schema: Self.schema)
            #expect(try Self.body(admin) == PostgresTables.notifyBody(name))
        }
    }
}
