import Foundation
import Testing
import TrovePostgres
import PostgresTestSupport

/// The roles tests make on the test server (`PostgresTestServer.withRole`) are gone when the
/// test is done, as its schema's tables are out of every other test's way.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresTestRoleTests {
    struct Failure: Error {}

    static func roleExists(_ role: String) throws -> Bool {
        let url = try #require(PostgresTestServer.url)
        return try PostgresConnection(url: url).execute("SELECT count(*) FROM pg_catalog.pg_roles WHERE rolname = $1", [role]).rows != [["0"]]
    }

    /// A role granted privileges and connected as is dropped when the test returns, and when
    /// it throws.
    @Test(arguments: [false, true])
    func aTestsRoleIsDroppedWhenTheTestEnds(throwing: Bool) throws {
        let url = try PostgresTestServer.freshURL()
        let connection = try PostgresConnection(url: url)
        try connection.execute("CREATE TABLE t (n int)")
        let schemaName = try #require(try connection.execute("SELECT current_schema()").rows.first?.first ?? nil)
        var made: String?
        let run = {
            try PostgresTestServer.withRole(connectingTo: url) { role, roleURL in
                made = role
                try connection.execute("GRANT USAGE ON SCHEMA \(schemaName) TO \(role)")
                try connection.execute("GRANT SELECT ON ALL TABLES IN SCHEMA \(schemaName) TO \(role)")
                #expect(try PostgresConnection(url: roleURL).execute("SELECT count(*) FROM t").rows == [["0"]])
                #expect(try Self.roleExists(role))
                if throwing { throw Failure() }
            }
        }
        if throwing {
            #expect(throws: Failure.self) { try run() }
        } else {
            try run()
        }
        #expect(try !Self.roleExists(try #require(made)))
    }
}
