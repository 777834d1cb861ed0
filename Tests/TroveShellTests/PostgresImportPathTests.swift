import Foundation
import Testing
import Trove
import TrovePostgres
import PostgresTestSupport
@testable import TroveShell

/// Which way an import into PostgreSQL writes each record: a record of the forms its file's
/// reader takes as they stand goes into the COPY as a row it writes (`JSONCopyRows`,
/// `CSVCopyRows`), any other as values through the coercion `insert` uses. Both ways give the
/// same objects (the end-to-end tests compare them with a store's); these tests count the way.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresImportPathTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "Item", "primaryKey": "id", "properties": {
          "id": "int", "s": "string?", "x": "double?", "flag": "bool?", "d": "date?"}}]}
        """#.utf8), fileName: "paths")

    /// Imports `text` as `format` into a fresh database in one transaction; returns the store
    /// and how many records the bulk insert took as rows written by the reader.
    private func run(_ text: String, _ format: ImportFormat) throws -> (store: PostgresStore, rowsWritten: Int) {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.schema)
        let destination = try PostgresImportDestination(store: store, model: "Item", bulk: true)
        let input = StatementInput(name: "items", prefix: Array(text.utf8), fd: nil, ownsDescriptor: false)
        let importer = StoreImport(model: try #require(store.schema["Item"]), input: input, format: format, merge: false,
                                   context: ExecutionContext(arguments: []))
        let summary = try store.atomically { try importer.run(into: destination) }
        #expect(summary == WriteSummary(inserted: try store.count("Item")))
        return (store, try #require(destination.bulk).rowsWritten)
    }

    @Test func jsonRecordsOfTheirPropertiesOwnKindsGoFromTheParsedObject() throws {
        let (store, rowsWritten) = try run("""
            {"id": 1, "s": "a \\"quoted\\"\\nline", "x": 1.5, "flag": true, "d": null}
            {"id": 2, "x": 3, "s": null}
            {"id": 3, "s": "c", "d": "2024-01-02T03:04:05Z"}
            {"id": 4}
            {"d": "2024-01-02T03:04:05.5Z", "id": 5, "flag": false}

            """, .json)
        // Records 1, 2 and 4 (integer for a double, null, a property left out); 3 and 5 hold a
        // date, which only coercion reads.
        #expect(rowsWritten == 3)
        let date = Date(timeIntervalSince1970: 1_704_164_645)
        #expect(try store.objects("Item SORT(id)").objects == [
            [1, "a \"quoted\"\nline", 1.5, true, .null], [2, .null, 3.0, .null, .null], [3, "c", .null, .null, .date(date)],
            [4, .null, .null, .null, .null], [5, .null, .null, false, .date(date + 0.5)],
        ])
    }

    @Test func csvRecordsOfPlainFieldsGoFromTheFilesBytes() throws {
        let (store, rowsWritten) = try run("""
            id,s,x
            1,a,1.5
            2,,-3
            3,b,1e3
            4,ü,2
            5,"q""uoted",0.25

            """, .csv)
        // Records 1, 2 and 5; an exponent (3) and non-ASCII text (4) are coercion's to read.
        #expect(rowsWritten == 3)
        #expect(try store.objects("Item SORT(id)").objects.map { Array($0[0...2]) } == [
            [1, "a", 1.5], [2, .null, -3.0], [3, "b", 1000.0], [4, "ü", 2.0], [5, "q\"uoted", 0.25],
        ])
    }
}
