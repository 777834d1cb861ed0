import Foundation
import Testing
import Trove
import TrovePostgres

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
                #expect(try bulk.add(bulkValues, at: "record \(i + 1)"))
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
        #expect(try !bulk.add(["id": 1, "tags": .list(["a"])], at: "record 1"))
        #expect(try !bulk.add(["id": 1, "next": .object(["id": 2])], at: "record 1"))
        #expect(try !bulk.add(["id": 1, "d": .date(Date(timeIntervalSince1970: -70_000_000_000))], at: "record 1"))
        #expect(throws: PostgresError.self) { try bulk.add(["id": 1, "s": "nul \u{0} inside"], at: "record 1") }
        #expect(throws: StoreError.noSuchProperty(model: "Item", property: "nope")) { try bulk.add(["id": 1, "nope": 3], at: "record 1") }
        #expect(throws: StoreError.nullNotAllowed(model: "Item", property: "id")) { try bulk.add(["id": .null], at: "record 1") }
        for i in 1...4 { #expect(try bulk.add(["id": .int(Int64(i + 10))], at: "record \(i)")) }
        #expect(bulk.holds(primaryKey: 12) && !bulk.holds(primaryKey: 5))
        // A field's line breaks are lines of COPY's count too: the refused row is still found.
        #expect(try bulk.add(["id": 20, "s": "two\nline \"breaks\"\n"], at: "record with lines"))
        #expect(try bulk.add(["id": 5], at: "record 5"))
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
            for i in ids { #expect(try bulk.add(["id": .int(Int64(i)), "s": .string("\(i) \(padding)")], at: "record \(i)")) }
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
                _ = try bulk.add(["id": .null], at: "record null")
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
}
