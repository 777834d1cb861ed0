#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TrovePostgres

/// The PostgreSQL server the tests run against: `make test` starts a throwaway cluster
/// (Scripts/pg-server) and names it in `TROVE_TEST_POSTGRES_URL`. A plain `swift test` without
/// the variable skips these suites (Swift Testing lists them as skipped, with this reason);
/// with the variable set, a server that cannot be reached fails them. The suites of the
/// PostgreSQL backend and of the shell's import into it share it.
public enum PostgresTestServer {
    public static let url: String? = {
        guard let value = getenv("TROVE_TEST_POSTGRES_URL") else { return nil }
        let url = String(cString: value)
        return url.isEmpty ? nil : url
    }()

    public static var isAvailable: Bool { url != nil }

    public static let skipReason: Comment = "TROVE_TEST_POSTGRES_URL is not set: run `make test`, or `make pg` and export what it prints"

    /// A URL of the test server whose connections work in a PostgreSQL schema of their own,
    /// new and empty, so that tests running at once never see each other's tables.
    public static func freshURL() throws -> String {
        guard let url else { throw PostgresError("TROVE_TEST_POSTGRES_URL is not set") }
        let name = "t_" + UUID().uuidString.lowercased().replacing("-", with: "")
        let connection = try PostgresConnection(url: url)
        try connection.execute("CREATE SCHEMA \(name)")
        return PostgresConnection.url(url, options: "-csearch_path=\(name)")
    }

    /// A URL of the test server whose connections work in a new, empty PostgreSQL schema named
    /// `name`, which may be any name (upper case, spaces, quotes, commas, keywords): quoted
    /// for SQL and for the search_path, with its spaces and backslashes escaped for libpq's
    /// `options`.
    public static func url(inNewSchema name: String) throws -> String {
        guard let url else { throw PostgresError("TROVE_TEST_POSTGRES_URL is not set") }
        let quoted = "\"" + name.replacing("\"", with: "\"\"") + "\""
        try PostgresConnection(url: url).execute("CREATE SCHEMA \(quoted)")
        return PostgresConnection.url(url, options: "-csearch_path=" + quoted.replacing("\\", with: "\\\\").replacing(" ", with: "\\ "))
    }

    /// Runs `body` with a new login role of the test server (`r_` and a UUID, password `pw`)
    /// and `url` (a URL of the test server, as `freshURL()` gives) naming that role as its
    /// user, then drops the role and what it was granted, whether `body` returns or throws: a
    /// role belongs to the whole cluster, not to a test's schema, so a server kept running
    /// (`make pg`) would keep it. What `body` opens as the role must be closed when it returns.
    public static func withRole<T>(connectingTo url: String, _ body: (_ role: String, _ url: String) throws -> T) throws -> T {
        guard let serverURL = self.url else { throw PostgresError("TROVE_TEST_POSTGRES_URL is not set") }
        guard url.contains("trove@") else { throw PostgresError("the test server's URL names user trove") }
        let role = "r_" + UUID().uuidString.lowercased().replacing("-", with: "")
        let connection = try PostgresConnection(url: serverURL)
        try connection.execute("CREATE ROLE \(role) LOGIN PASSWORD 'pw'")
        defer {
            do {
                // A role that holds privileges cannot be dropped: they go first.
                try connection.execute("DROP OWNED BY \(role)")
                try connection.execute("DROP ROLE \(role)")
            } catch {
                Issue.record("the test role \(role) was left on the server: \(error)")
            }
        }
        return try body(role, url.replacing("trove@", with: "\(role):pw@"))
    }
}
