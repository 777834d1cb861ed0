import Foundation
import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresBulkInsertTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int", "s": "string?", "d": "date?", "b": "data?",
          "u": "uuid?", "m": "decimal?", "f": "float?", "flag": "bool?", "next": "Item?", "tags": "string[]"}}]}
        """#.utf8), fileName: "bulk")

    /// Every kind of value arrives by COPY as `insert` writes it: the same objects read back.
    @Test func carriesEveryValueAsInsertDoes() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.schema)
        let bulk = try PostgresBulkInsert(store: store, model: "Item")
        let dates: [Double] = [-62_135_596_800, -1.5, 0, 1.000001, 1_714_566_600.123456, 253_402_300_799.5]
        let strings = ["", #"a "quoted", comma"#, "line\nbreak", #"back\slash"#, "\\.", "$1'; DROP TABLE \"Item\"; --", "ünïcödé 🦆"]
        var objects: [[String: Value]] = []
        for i in 0..<max(dates.count, strings.count) {
            objects.append(["s": .string(strings[i % strings.count]), "d": .date(Date(timeIntervalSince1970: dates[i % dates.count])),
                            "b": .data(Data([0, 255, UInt8(i)])), "u": .uuid(UUID()), "m": .decimal(Decimal(string: "12345.678901")!),
                            "f": .float(i == 0 ? .nan : 1.5), "flag": .bool(i % 2 == 0), "next": i == 0 ? .null : .int(Int64(i)), "tags": .list([])])
        }
        objects.append(["s": .null, "d": .null, "b": .null, "u": .null, "m": .null, "f": .null, "flag": .null, "next": .null])
        try store.atomically {
            for (i, values) in objects.enumerated() {
                var bulkValues = values, insertValues = values
                bulkValues["id"] = .int(Int64(i + 1))
                insertValues["id"] = .int(Int64(i + 101))
                if case .int(let next) = values["next"] { insertValues["next"] = .int(next + 100) }
                #expect(try bulk.add(bulkValues, at: .record(i + 1)))
                try store.insert("Item", insertValues)
            }
            try bulk.flush()
        }
        let copied = try store.objects("Item where id < 100 SORT(id)"), inserted = try store.objects("Item where id > 100 SORT(id)")
        #expect(copied.objects.count == objects.count)
        let id = copied.columns.firstIndex(of: "id")!, next = copied.columns.firstIndex(of: "next")!
        func comparable(_ objects: PostgresObjects, offset: Int64) -> [String] {
            objects.objects.map { values in
                var values = values
                values[id] = .null
                if case .int(let n) = values[next] { values[next] = .int(n - offset) }
                return values.map(\.description).joined(separator: "|")
            }
        }
        #expect(comparable(copied, offset: 0) == comparable(inserted, offset: 100))
    }

    /// What COPY cannot carry is left to `insert`; what is wrong is an error at once; what only
    /// the server finds fails the batch, naming the row's place, and writes nothing.
    @Test func refusesWhatItCannotCarryAndNamesTheRowTheServerRefuses() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.schema)
        try store.insert("Item", ["id": 5])
        let bulk = try PostgresBulkInsert(store: store, model: "Item")
        #expect(try !bulk.add(["id": 1, "tags": .list(["a"])], at: .record(1)))
        #expect(try !bulk.add(["id": 1, "next": .object(["id": 2])], at: .record(1)))
        #expect(try !bulk.add(["id": 1, "d": .date(Date(timeIntervalSince1970: -70_000_000_000))], at: .record(1)))
        #expect(throws: PostgresError.self) { try bulk.add(["id": 1, "s": "nul \u{0} inside"], at: .record(1)) }
        #expect(throws: StoreError.noSuchProperty(model: "Item", property: "nope")) { try bulk.add(["id": 1, "nope": 3], at: .record(1)) }
        #expect(throws: StoreError.nullNotAllowed(model: "Item", property: "id")) { try bulk.add(["id": .null], at: .record(1)) }
        for i in 1...4 { #expect(try bulk.add(["id": .int(Int64(i + 10))], at: .record(i))) }
        #expect(bulk.holds(primaryKey: 12) && !bulk.holds(primaryKey: 5))
        // A field's line breaks are lines of COPY's count too: the refused row is still found.
        #expect(try bulk.add(["id": 20, "s": "two\nline \"breaks\"\n"], at: .named("record with lines")))
        #expect(try bulk.add(["id": 5], at: .record(5)))
        let error = #expect(throws: PostgresRowError.self) { try store.atomically { try bulk.flush() } }
        #expect(error?.place == "record 5" && error?.storeError == .duplicatePrimaryKey(model: "Item", value: "5"), "\(String(describing: error))")
        #expect(error?.description == "record 5: 'Item' already has an object with primary key 5")
        #expect(try store.count("Item") == 1)
    }

    /// A batch larger than a piece streams: the row the server refuses is still named, a
    /// failed unit leaves nothing and the connection usable, a good one writes every row.
    @Test func aStreamedBatchFailsOrWritesAsAWhole() throws {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.schema)
        try store.insert("Item", ["id": 2500])
        let padding = String(repeating: "x", count: 60)
        func add(_ bulk: PostgresBulkInsert, _ ids: ClosedRange<Int>) throws {
            for i in ids { #expect(try bulk.add(["id": .int(Int64(i)), "s": .string("\(i) \(padding)")], at: .record(i))) }
        }
        let refused = #expect(throws: PostgresRowError.self) {
            try store.atomically {
                let bulk = try PostgresBulkInsert(store: store, model: "Item")
                try add(bulk, 1...3000)
                try bulk.flush()
            }
        }
        #expect(refused?.place == "record 2500", "\(String(describing: refused))")
        #expect(try store.count("Item") == 1)
        // A record refused before its batch's COPY ends: the unit rolls back the rows sent.
        #expect(throws: StoreError.nullNotAllowed(model: "Item", property: "id")) {
            try store.atomically {
                let bulk = try PostgresBulkInsert(store: store, model: "Item")
                try add(bulk, 3001...5000)
                _ = try bulk.add(["id": .null], at: .named("record null"))
            }
        }
        #expect(try store.count("Item") == 1)
        try store.atomically {
            let bulk = try PostgresBulkInsert(store: store, model: "Item")
            try add(bulk, 3001...9000)
            try bulk.flush()
        }
        #expect(try store.count("Item") == 6001)
        #expect(try store.objects("Item where id == 8999").objects.first?[1] == .string("8999 \(padding)"))
    }

    /// A value of its column's own kind (an integer in range, a double, a string, null where
    /// null is allowed) is written with no coercion; every other value is coerced. Both kinds,
    /// side by side in one record, are stored as `insert` stores them, and what `insert`
    /// refuses is refused with its error, the batch keeping none of the record.
    @Test func valuesOfTheColumnsOwnKindAreStoredAsCoercedOnes() throws {
        let schema = try Schema(jsonData: Array(#"""
            {"models": [{"name": "Row", "primaryKey": "id", "properties": {"id": "int", "small": "int8?", "big": "int64?",
              "d": "double?", "s": "string?", "t": {"type": "string", "default": "none"}}}]}
            """#.utf8), fileName: "direct")
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let bulk = try PostgresBulkInsert(store: store, model: "Row")
        let records: [[String: Value]] = [
            // Each column's own kind.
            ["small": .int(-128), "big": .int(.min), "d": .double(-0.0), "s": .string(""), "t": .string("a \"quote\", a comma")],
            ["small": .int(127), "big": .int(.max), "d": .double(.nan), "s": .string("two\nlines"), "t": .string("\\.")],
            ["small": .null, "big": .null, "d": .double(-.infinity), "s": .null, "t": .string("ünïcödé 🦆")],
            ["d": .double(0.1), "s": .string("$1'; DROP TABLE \"Row\"; --")],
            ["d": .double(1e300), "big": .int(0)],
            // Values another kind gives, coerced.
            ["small": .double(5), "big": .double(12), "d": .int(3), "s": .null, "t": .string("x")],
            ["small": .double(-7), "d": .float(1.5), "t": .string("")],
            // Both in one record.
            ["small": .int(1), "big": .double(-2), "d": .double(2.5), "s": .string("s"), "t": .string("t")],
        ]
        try store.atomically {
            for (i, values) in records.enumerated() {
                var bulkValues = values, insertValues = values
                bulkValues["id"] = .int(Int64(i + 1))
                insertValues["id"] = .int(Int64(i + 101))
                #expect(try bulk.add(bulkValues, at: .record(i + 1)))
                try store.insert("Row", insertValues)
            }
            // Refused as `insert` refuses them, and nothing of the record is kept.
            for refused: [String: Value] in [["id": 50, "small": .int(128)], ["id": 51, "t": .null], ["id": 52, "s": .string("nul \u{0}")],
                                             ["id": .string("x")], ["id": 53, "small": .int(1), "nope": 1]] {
                var insertError = "", bulkError = ""
                do { try store.insert("Row", refused) } catch { insertError = "\(error)" }
                do { _ = try bulk.add(refused, at: .named("record refused")) } catch { bulkError = "\(error)" }
                #expect(!insertError.isEmpty && bulkError == insertError, "\(refused)")
            }
            try bulk.flush()
        }
        let copied = try store.objects("Row where id < 100 SORT(id)"), inserted = try store.objects("Row where id > 100 SORT(id)")
        #expect(copied.objects.count == records.count)
        func comparable(_ objects: PostgresObjects) -> [String] {
            objects.objects.map { $0.dropFirst().map(\.description).joined(separator: "|") }
        }
        #expect(comparable(copied) == comparable(inserted))
        #expect(copied.columns.first == "id")
        #expect(try store.count("Row") == 2 * records.count)
    }

    /// A batch holding one spelling of a key does not hold a canonically equivalent one.
    @Test func aBatchHoldsAKeyByItsBytes() throws {
        let schema = try Schema(jsonData: Array(#"{"models": [{"name": "Tag", "primaryKey": "name", "properties": {"name": "string"}}]}"#.utf8),
                                fileName: "tags")
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let bulk = try PostgresBulkInsert(store: store, model: "Tag")
        #expect(try bulk.add(at: .line(2)) { row in
            let start = row.count
            _ = "e\u{301}".utf8.withContiguousStorageIfAvailable { PostgresBulkInsert.appendQuoted($0, to: &row) }
            return PostgresBulkInsert.WrittenRow(keyField: start..<row.count, lineBreaks: 0)
        })
        #expect(bulk.holds(primaryKey: .string("e\u{301}")) && !bulk.holds(primaryKey: .string("\u{E9}")))
        try store.atomically { try bulk.flush() }
        #expect(try store.count("Tag") == 1)
    }

    /// A row its caller wrote keeps its key as the field holds it, quotes doubled: the batch
    /// knows the key, and a row the server refuses is named by its place with that key.
    @Test func aWrittenRowsKeyAndPlaceAreItsFields() throws {
        let schema = try Schema(jsonData: Array(#"{"models": [{"name": "Tag", "primaryKey": "name", "properties": {"name": "string"}}]}"#.utf8),
                                fileName: "tags")
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        try store.insert("Tag", ["name": .string(#"say "hi""#)])
        let bulk = try PostgresBulkInsert(store: store, model: "Tag")
        for (i, name) in ["plain", #"a "quoted" one"#, #"say "hi""#].enumerated() {
            #expect(try bulk.add(at: .line(i + 2)) { row in
                let start = row.count
                _ = name.utf8.withContiguousStorageIfAvailable { PostgresBulkInsert.appendQuoted($0, to: &row) }
                return PostgresBulkInsert.WrittenRow(keyField: start..<row.count, lineBreaks: 0)
            })
        }
        // A row its writer takes back leaves nothing.
        #expect(try !bulk.add(at: .line(5)) { row in
            row += Array(#""unfinished"#.utf8)
            return nil
        })
        #expect(bulk.holds(primaryKey: "plain") && bulk.holds(primaryKey: .string(#"a "quoted" one"#)) && !bulk.holds(primaryKey: "quoted"))
        let error = #expect(throws: PostgresRowError.self) { try store.atomically { try bulk.flush() } }
        var insertError = ""
        do { try store.insert("Tag", ["name": .string(#"say "hi""#)]) } catch { insertError = "\(error)" }
        #expect(!insertError.isEmpty && error?.description == "line 4: \(insertError)", "\(String(describing: error))")
        #expect(try store.count("Tag") == 1)
    }

    /// A written row's key field outside the row just written stops the process rather than
    /// reading another row's bytes as its key.
    @Test func aWrittenRowsKeyFieldOutsideItsRowIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            // Anything failing before the add exits normally, which the expectation refuses.
            do {
                let schema = try Schema(jsonData: Array(#"{"models": [{"name": "Tag", "primaryKey": "name", "properties": {"name": "string"}}]}"#.utf8),
                                        fileName: "tags")
                let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
                let bulk = try PostgresBulkInsert(store: store, model: "Tag")
                for line in 2...3 {
                    _ = try bulk.add(at: .line(line)) { row in
                        row += Array(#""a""#.utf8)
                        // The second row names the first's field.
                        return PostgresBulkInsert.WrittenRow(keyField: 0..<3, lineBreaks: 0)
                    }
                }
            } catch {}
        }
    }
}
