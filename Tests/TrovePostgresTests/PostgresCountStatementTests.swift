import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// `count MODEL [where P]` as a statement of its own, which `explain` and `watch` run.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresCountStatementTests {
    @Test func countRunsAndExplainsAsAStatement() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: PostgresFixtures.schema)
        try store.insert("Person", ["id": 1, "name": "Ann", "age": 30])
        try store.insert("Person", ["id": 2, "name": "Bob", "friend": 1])
        try store.insert("Person", ["id": 3, "name": "Cy", "friend": 2])
        #expect(try store.run("count Person") == .value("count", .int(3)))
        #expect(try store.run("count Person where friend.name == 'Ann' OR age > $0", arguments: [29]) == .value("count", .int(2)))
        let (sql, plan) = try store.explain("count Person where friend.age > 3")
        #expect(sql.hasPrefix("SELECT count(*) FROM ") && !plan.isEmpty, "\(sql)")
    }
}
