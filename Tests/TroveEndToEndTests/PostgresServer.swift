import PostgresTestSupport
import Testing

/// The PostgreSQL server `make test` starts (see Tests/PostgresTestSupport/PostgresTestServer.swift),
/// named by `TROVE_TEST_POSTGRES_URL`.
enum PostgresServer {
    static var url: String? { PostgresTestServer.url }

    /// Skips a suite or test when no server is given.
    static var isGiven: ConditionTrait { .enabled(if: url != nil, "TROVE_TEST_POSTGRES_URL is not set: run `make test`") }

    /// The server's URL, in a new PostgreSQL schema of the caller's own, so that tests running
    /// in parallel never see each other's tables.
    static func urlInOwnSchema() throws -> String {
        try PostgresTestServer.freshURL()
    }

    /// What a test of the shell on the server starts from: a new workspace, and the server's
    /// URL in a PostgreSQL schema of its own.
    static func workspace() throws -> (Workspace, url: String) {
        (try Workspace(), try urlInOwnSchema())
    }
}
