import Foundation
import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// `PostgresConnection.url(_:options:)` adds libpq's `options` to a URL whatever query it has,
/// as libpq reads the URL.
struct PostgresURLOptionsTests {
    @Test(arguments: [
        ("postgresql://app@db/trove", "postgresql://app@db/trove?options=-csearch_path%3Dapp"),
        ("postgresql://db", "postgresql://db?options=-csearch_path%3Dapp"),
        ("postgresql://app@db/trove?", "postgresql://app@db/trove?options=-csearch_path%3Dapp"),
        ("postgresql://app@db/trove?sslmode=disable", "postgresql://app@db/trove?sslmode=disable&options=-csearch_path%3Dapp"),
        ("postgresql://app@db/trove?sslmode=disable&", "postgresql://app@db/trove?sslmode=disable&options=-csearch_path%3Dapp"),
        ("postgresql://db?host=%2Ftmp", "postgresql://db?host=%2Ftmp&options=-csearch_path%3Dapp"),
        // A password's `?` is no query.
        ("postgresql://app:a?b@db/trove", "postgresql://app:a?b@db/trove?options=-csearch_path%3Dapp"),
        ("postgresql://app:a?b@db", "postgresql://app:a?b@db?options=-csearch_path%3Dapp"),
        // Options the URL names already stay, before the new ones.
        ("postgresql://db/trove?options=-cwork_mem%3D8MB&port=5", "postgresql://db/trove?options=-cwork_mem%3D8MB%20-csearch_path%3Dapp&port=5"),
        ("postgresql://db/trove?options=", "postgresql://db/trove?options=-csearch_path%3Dapp"),
    ])
    func theOptionsJoinTheQuery(_ url: String, _ expected: String) {
        #expect(PostgresConnection.url(url, options: "-csearch_path=app") == expected)
    }

    @Test func everyByteButTheUnreservedOnesIsPercentEncoded() {
        #expect(PostgresConnection.url("postgres://db", options: #"-csearch_path="a b\\é",x~y"#)
                == "postgres://db?options=-csearch_path%3D%22a%20b%5C%5C%C3%A9%22%2Cx~y")
    }

    /// The server reads the options of a URL without a query (its socket directory named in the
    /// URL's host), and keeps the ones the URL names already.
    @Test(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
    func theServerReadsTheOptionsOfAURLWithOrWithoutAQuery() throws {
        let server = try #require(PostgresTestServer.url)
        let schema = try PostgresTestServer.freshURL()
        let name = try #require(schema.split(separator: "search_path%3D").last.map(String.init))
        // The same server named without a query: its user, database, port, and its address or
        // socket directory, as it reports them, whatever the URL that reached it looks like.
        let info = try #require(try PostgresConnection(url: server).execute("""
            SELECT current_user, pg_catalog.current_database(), pg_catalog.current_setting('port'),
                   coalesce(pg_catalog.host(pg_catalog.inet_server_addr()),
                            pg_catalog.split_part(pg_catalog.current_setting('unix_socket_directories'), ',', 1))
            """).rows.first)
        let raw = try info.map { try #require($0) }
        let parts = raw.map { $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }
        let host = raw[3].hasPrefix("/") ? parts[3] : raw[3].contains(":") ? "[\(raw[3])]" : raw[3]
        let plain = "postgresql://\(parts[0])@\(host):\(parts[2])/\(parts[1])"
        for url in [plain, plain + "?options=-cwork_mem%3D1234kB", server] {
            let connection = try PostgresConnection(url: PostgresConnection.url(url, options: "-csearch_path=\(name)"))
            #expect(connection.schemaName == name, "\(url)")
            let workMem = try connection.execute("SELECT pg_catalog.current_setting('work_mem')").rows.first?.first ?? nil
            #expect((workMem == "1234kB") == url.contains("work_mem"), "\(url): \(workMem ?? "null")")
        }
    }
}
