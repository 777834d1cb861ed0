import Foundation
import Testing
import Trove
import TrovePostgres

/// A database without a Trove schema opens as a new store file does, with no models and
/// nothing created in it, so that `.apply-schema` and a `.dump` reload work there.
@Suite(PostgresServer.isGiven)
struct PostgresEmptyDatabaseTests {
    let w: Workspace, url: String
    init() throws { (w, url) = try PostgresServer.workspace() }

    /// Whether the database (in the test's PostgreSQL schema) holds Trove's catalog.
    func holdsCatalog() throws -> Bool {
        try PostgresConnection(url: url).execute(#"SELECT to_regclass('"@trove_schema"') IS NOT NULL"#).rows.first?.first == "t"
    }

    @Test func aDumpLoadsIntoADatabaseWithoutASchema() throws {
        let made = try w.run(["a.trove", "--schema", Workspace.schema("AllTypes"), "-c", #"insert AllTypes [{"id": 1, "optString": "x", "intList": [3, 1]}, {"id": 2, "link": 1, "links": [1, 2]}]"#])
        #expect(made.status == 0, "\(made.err)")
        let dump = try w.run(["a.trove", ".dump"])
        #expect(dump.status == 0, "\(dump.err)")
        try w.write("a.dump", dump.out)
        let load = try w.run([url, "-f", "a.dump"])
        #expect(load.status == 0, "\(load.err)")
        let store = try w.run(["a.trove", "--jsonl", "AllTypes SORT(id)"])
        let server = try w.run([url, "--jsonl", "AllTypes SORT(id)"])
        #expect(server.status == 0 && server.out == store.out, "\(server.err)\(server.out)")
    }

    @Test func itOpensWithNoModelsAndCreatesNothingUntilASchemaIsApplied() throws {
        let models = try w.run([url, ".models", "count Person"])
        #expect(models.status == 1 && models.out.isEmpty, "\(models.out)")
        #expect(models.err.contains("no model named 'Person'"), "\(models.err)")
        #expect(try !holdsCatalog())
        let applied = try w.run([url, ".apply-schema \(Workspace.schema("People"))", #"insert Person {"id": 1, "name": "Ann"}"#, "count Person"])
        #expect(applied.status == 0, "\(applied.err)")
        #expect(applied.out.hasSuffix("1\n"), "\(applied.out)")
        #expect(try holdsCatalog())
        #expect(try w.run([url, ".models"]).out.contains("Person"))
        let store = try PostgresStore(url: url)
        #expect(store.schema.models.map(\.name).contains("Person"))
    }

    /// A session the server keeps read-only (a standby, a role's setting) opens the database
    /// too, and the first `.apply-schema` says what the server refused; `--readonly` on a
    /// database without a schema is refused at open, as a missing store file is.
    @Test func aReadOnlySessionOpensItAndIsToldAtTheFirstSchema() throws {
        let readOnly = url + "%20-cdefault_transaction_read_only%3Don"
        let opened = try w.run([readOnly, ".models"])
        #expect(opened.status == 0 && opened.out.isEmpty, "\(opened.err)")
        let apply = try w.run([readOnly, ".apply-schema \(Workspace.schema("People"))"])
        #expect(apply.status == 1, "\(apply.out)")
        #expect(apply.err.hasPrefix("error: ") && apply.err.contains("cannot apply the schema to the database")
                && apply.err.contains("read-only transaction"), "\(apply.err)")
        #expect(try !holdsCatalog())
        let flag = try w.run([url, "--readonly", ".models"])
        #expect(flag.status == 1 && flag.err.contains("holds no Trove schema, and a read-only client cannot install one"), "\(flag.err)")
    }
}
