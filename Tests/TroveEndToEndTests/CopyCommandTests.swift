import Foundation
import Testing
import TrovePostgres

/// `.copy`: a store file to a PostgreSQL database and back, through the `trove` binary.
@Suite(PostgresServer.isGiven)
struct CopyCommandTests {
    let w: Workspace, url: String
    init() throws { (w, url) = try PostgresServer.workspace() }

    @Test func aStoreGoesToTheServerAndBackUnchanged() throws {
        let made = try w.run(["a.trove", "--schema", Workspace.schema("AllTypes"),
                              "-c", #"insert AllTypes {"id": 1, "optString": "it's", "intList": [3, 1, 2], "optIntList": [null, 5]}"#,
                              "-c", #"insert AllTypes {"id": 2, "link": 1, "links": [1, 1], "optDecimal": "0.000000000000000001", "optDate": "2024-05-01T12:00:00.654321Z"}"#,
                              "-c", #"update AllTypes 1 set link = 2"#])
        #expect(made.status == 0, "\(made.err)")
        let there = try w.run(["a.trove", ".copy \(url)"])
        #expect(there.status == 0 && there.out.isEmpty, "\(there.err)")
        let onServer = try w.run([url, "--json", "count AllTypes where link.link.id == 1"])
        #expect(onServer.out == "1\n", "\(onServer.err)")
        let back = try w.run([url, ".copy b.trove"])
        #expect(back.status == 0, "\(back.err)")
        let original = try w.run(["a.trove", "--json", "AllTypes", ".dump"])
        let copied = try w.run(["b.trove", "--json", "AllTypes", ".dump"])
        #expect(original.status == 0 && copied.status == 0)
        #expect(copied.out == original.out)
    }

    @Test func aTargetHoldingObjectsIsRefusedUnlessReplaced() throws {
        let made = try w.run(["a.trove", "--schema", Workspace.schema("AllTypes"), #"insert AllTypes {"id": 7}"#])
        #expect(made.status == 0, "\(made.err)")
        #expect(try w.run(["a.trove", ".copy \(url)"]).status == 0)
        let again = try w.run(["a.trove", ".copy \(url)"])
        #expect(again.status == 1)
        #expect(again.err.contains("already holds 'AllTypes' objects"), "\(again.err)")
        #expect(try w.run(["a.trove", ".copy \(url) --replace"]).status == 0)
        #expect(try w.run([url, "count AllTypes"]).out == "1\n")
        let wrong = try w.run(["a.trove", ".copy elsewhere.trove"])
        #expect(wrong.status == 1 && wrong.err.contains(".backup"), "\(wrong.err)")
    }

    @Test func copyingADatabaseWithoutASchemaMakesAnEmptyStore() throws {
        let copied = try w.run([url, ".copy empty.trove"])
        #expect(copied.status == 0, "\(copied.err)")
        let models = try w.run(["empty.trove", ".models"])
        #expect(models.status == 0 && models.out.isEmpty, "\(models.err)\(models.out)")
    }
}
