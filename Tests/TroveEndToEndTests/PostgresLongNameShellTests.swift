import Foundation
import Testing
import TrovePostgres

/// The shell on models whose names fill PostgreSQL's 63 bytes, and on a schema with a name
/// that does not fit.
@Suite(PostgresServer.isGiven)
struct PostgresLongNameShellTests {
    let w: Workspace, url: String
    init() throws { (w, url) = try PostgresServer.workspace() }

    /// Two 63-byte model names alike but for their last byte: their index names, longer, share
    /// their first 63 bytes.
    static let a = String(repeating: "A", count: 62) + "a", b = String(repeating: "A", count: 62) + "b"

    @Test func modelsOf63BytesWorkInTheShell() throws {
        try w.write("s.json", #"""
            {"models": [{"name": "\#(Self.a)", "properties": {"v": {"type": "int", "indexed": true}}},
                        {"name": "\#(Self.b)", "properties": {"v": {"type": "int", "indexed": true}}},
                        {"name": "Shelf", "properties": {"\#(String(repeating: "l", count: 57))": "string[]"}}]}
            """#)
        let list = String(repeating: "l", count: 57)
        let r = try w.run([url, "--schema", "s.json", "-c", #"insert \#(Self.a) {"v": 1}"#, "-c", #"insert \#(Self.b) {"v": 2}"#,
                           "-c", #"insert Shelf {"\#(list)": ["x"]}"#, "-c", "count \(Self.a) where v == 1",
                           "-c", "count \(Self.b) where v == 2", "-c", "count Shelf where ANY \(list) == 'x'", "-c", ".models"])
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines == [#"{"inserted": 1}"#, #"{"inserted": 1}"#, #"{"inserted": 1}"#, "1", "1", "1", Self.a, Self.b, "Shelf"], "\(r.out)")
        let schema = try w.run([url, ".schema"])
        #expect(schema.status == 0, "\(schema.err)")
        #expect(schema.out.contains(#""\#(Self.a)""#) && schema.out.contains(#""\#(Self.b)""#) && schema.out.contains(list), "\(schema.out)")
    }

    @Test func aNameThatDoesNotFitIsRefusedWithItsName() throws {
        let long = String(repeating: "B", count: 64)
        try w.write("s.json", #"{"models": [{"name": "\#(long)", "properties": {"v": "int"}}]}"#)
        let r = try w.run([url, "--schema", "s.json", ".models"])
        #expect(r.status == 1, "\(r.out)")
        #expect(r.err.contains("model \(long): its name, the name of its table, is 64 bytes in UTF-8; PostgreSQL keeps 63 bytes"), "\(r.err)")
    }
}
