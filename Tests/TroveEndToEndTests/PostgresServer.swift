import Foundation
import Testing
import TrovePostgres

/// The PostgreSQL server `make test` starts (see Tests/TrovePostgresTests/PostgresTestServer.swift),
/// named by `TROVE_TEST_POSTGRES_URL`.
enum PostgresServer {
    static let url = ProcessInfo.processInfo.environment["TROVE_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// Skips a suite or test when no server is given.
    static var isGiven: ConditionTrait { .enabled(if: url != nil, "TROVE_TEST_POSTGRES_URL is not set: run `make test`") }

    /// The server's URL, in a new PostgreSQL schema of the caller's own, so that tests running
    /// in parallel never see each other's tables.
    static func urlInOwnSchema() throws -> String {
        let name = "e2e_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresConnection(url: url!).execute("CREATE SCHEMA \(name)")
        return url! + "&options=-csearch_path%3D\(name)"
    }

    /// What a test of the shell on the server starts from: a new workspace, and the server's
    /// URL in a PostgreSQL schema of its own.
    static func workspace() throws -> (Workspace, url: String) {
        (try Workspace(), try urlInOwnSchema())
    }
}
