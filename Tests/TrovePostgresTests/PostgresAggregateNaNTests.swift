import Foundation
import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// A NaN takes no part in a sum or an average, its divisor included, on PostgreSQL as on a
/// store: in statements, group aggregates and list aggregates (in SELECT and in a predicate),
/// for doubles, floats and decimals (a decimal NaN is one written to the table by other means:
/// Trove's writes refuse it). An infinity is a value on both: a sum or average that meets one
/// is it, NaN when it meets both, and finite values whose sum overflows are the same error
/// wherever an infinity comes among them.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresAggregateNaNTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "M", "primaryKey": "id", "properties": {"id": "int", "g": "int", "dec": "decimal?", "d": "double?", "f": "float?",
                                                                     "decs": "decimal[]", "ds": "double[]"}}]}
        """#.utf8), fileName: "nan")

    static let objects: [[String: Value]] = [
        ["id": 1, "g": 1, "dec": .decimal(5), "d": .double(5), "f": .float(5), "decs": [.decimal(5), .decimal(1)],
         "ds": [.double(5), .double(.nan), .double(1)]],
        ["id": 2, "g": 1, "dec": .decimal(7), "d": .double(.nan), "f": .float(.nan), "decs": [.decimal(2), .decimal(8)], "ds": [.double(.nan)]],
        ["id": 3, "g": 1, "dec": .decimal(1), "d": .double(1), "f": .float(1), "decs": [], "ds": []],
    ]

    /// The objects on PostgreSQL, object 2's decimal and its second listed decimal NaN, and on a
    /// store (without the decimal NaNs, which only an older build's file holds).
    static func load() throws -> (Store, PostgresStore) {
        let url = try PostgresTestServer.freshURL()
        let postgres = try PostgresStore(url: url, schema: schema)
        for object in objects { try postgres.insert("M", object) }
        let connection = try PostgresConnection(url: url)
        _ = try connection.execute(#"UPDATE "M" SET "dec" = 'NaN' WHERE "id" = 2"#)
        _ = try connection.execute(#"UPDATE "M.decs" SET value = 'NaN' WHERE owner = 2 AND position = (SELECT max(position) FROM "M.decs" WHERE owner = 2)"#)
        let store = try Store(configuration: .inMemory(schema: schema))
        try store.write { tx in for object in objects { _ = try tx.insert("M", object) } }
        return (store, postgres)
    }

    @Test func nanTakesNoPartInSumsAndAverages() throws {
        let (store, postgres) = try Self.load()
        let values: [(String, Value, storeToo: Bool)] = [
            ("sum M.dec", .decimal(6), false), ("avg M.dec", .decimal(3), false),
            ("sum M.d", .double(6), true), ("avg M.d", .double(3), true),
            ("sum M.f", .double(6), true), ("avg M.f", .double(3), true),
            ("avg M.d where id == 2", .null, true), ("sum M.d where id == 2", .double(0), true),
        ]
        for (text, expected, storeToo) in values {
            if storeToo { #expect(try store.read { try $0.aggregate(text) } == expected, "store: \(text)") }
            guard case .value(_, let got) = try postgres.run(text) else { Issue.record("\(text): not a value"); continue }
            #expect(got == expected, "PostgreSQL: \(text)")
        }
        let grouped = "M GROUP(g) SELECT(@sum.dec, @avg.dec, @sum.d, @avg.d, @avg.f)"
        guard case .rows(let groups) = try postgres.run(grouped) else { Issue.record("not rows"); return }
        #expect(groups.rows == [[.decimal(6), .decimal(3), .double(6), .double(3), .double(3)]], "PostgreSQL: \(grouped)")
        let sorted = "M GROUP(g) SELECT(@avg.dec AS a) SORT(a)"
        guard case .rows(let sortedGroups) = try postgres.run(sorted) else { Issue.record("not rows"); return }
        #expect(sortedGroups.rows == [[.decimal(3)]], "PostgreSQL: \(sorted)")
        let lists = "M SORT(id) SELECT(decs.@avg, ds.@sum, ds.@avg)"
        guard case .rows(let got) = try postgres.run(lists) else { Issue.record("not rows"); return }
        #expect(got.rows == [[.decimal(3), .double(6), .double(3)], [.decimal(2), .double(0), .null], [.null, .double(0), .null]], "PostgreSQL: \(lists)")
        #expect(try store.read { try $0.rows("M SORT(id) SELECT(ds.@sum, ds.@avg)").map(\.values) }
                == [[.double(6), .double(3)], [.double(0), .null], [.double(0), .null]])
        // Counted: object 2's decimal NaN reads as no `Decimal`, so it is not fetched.
        for (predicate, expected) in [("decs.@avg == 2", 1), ("decs.@sum == 2", 1), ("ds.@avg == 3", 1), ("ds.@sum == 6", 1)] {
            #expect(try postgres.count("M", where: predicate) == expected, "PostgreSQL: \(predicate)")
            if !predicate.hasPrefix("decs") {
                #expect(try store.read { try $0.aggregate("count M where \(predicate)") } == .int(Int64(expected)), "store: \(predicate)")
            }
        }
    }

    /// A `min` or `max` statement leaves NaN out in its WHERE, not in a FILTER, so PostgreSQL
    /// reads its value from one end of an index: one Trove makes (an integer, a date) or one
    /// made by other means on a double or a decimal (which a schema cannot index).
    @Test func minAndMaxSkipNaNFromOneEndOfAnIndex() throws {
        let schema = try Schema(jsonData: Array(#"""
            {"models": [{"name": "R", "primaryKey": "id", "properties": {"id": "int", "n": {"type": "int?", "indexed": true},
                                                                         "at": {"type": "date?", "indexed": true}, "d": "double?", "dec": "decimal?"}}]}
            """#.utf8), fileName: "extremes")
        let url = try PostgresTestServer.freshURL()
        let postgres = try PostgresStore(url: url, schema: schema)
        let store = try Store(configuration: .inMemory(schema: schema))
        let objects: [[String: Value]] = (1...3000).map { (i: Int) -> [String: Value] in
            let n: Value = i % 10 == 0 ? .null : .int(Int64(i % 100))
            let d: Value = i % 7 == 0 ? .double(.nan) : .double(Double(i) / 4)
            return ["id": .int(Int64(i)), "n": n, "at": .date(Date(timeIntervalSince1970: Double(i) * 60)), "d": d, "dec": .decimal(Decimal(i))]
        }
        try postgres.atomically { for object in objects { try postgres.insert("R", object) } }
        try store.write { tx in for object in objects { _ = try tx.insert("R", object) } }
        let connection = try PostgresConnection(url: url)
        _ = try connection.execute(#"UPDATE "R" SET "dec" = 'NaN' WHERE "id" = 3000"#)
        _ = try connection.execute(#"CREATE INDEX ON "R" ("d")"#)
        _ = try connection.execute(#"CREATE INDEX ON "R" ("dec")"#)
        _ = try connection.execute("ANALYZE")
        for text in ["min R.d", "max R.d", "max R.d where id < 700", "min R.n", "max R.n", "min R.at", "max R.at", "min R.dec", "max R.dec"] {
            guard case .value(_, let got) = try postgres.run(text) else { Issue.record("\(text): not a value"); continue }
            let expected = text == "max R.dec" ? .decimal(2999) : try store.read { try $0.aggregate(text) }
            #expect(got == expected, "\(text)")
            let plan = try postgres.explain(text).plan.joined(separator: "\n")
            #expect(plan.contains("Index") && !plan.contains("Seq Scan"), "\(text): \(plan)")
        }
    }

    static let infinitySchema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "M", "primaryKey": "id", "properties": {"id": "int", "g": "int", "d": "double?", "f": "float?", "ds": "double[]"}}]}
        """#.utf8), fileName: "infinity")

    /// Groups 1 and 2 meet +inf and -inf; group 3 holds finite values whose sum overflows, the
    /// -inf between them in the order PostgreSQL reads them too.
    static let infinityObjects: [[String: Value]] = [
        ["id": 1, "g": 1, "d": .double(.infinity), "f": .float(.infinity), "ds": [.double(1), .double(.infinity)]],
        ["id": 2, "g": 1, "d": .double(1), "f": .float(1), "ds": []],
        ["id": 3, "g": 2, "d": .double(-.infinity), "f": .float(-.infinity), "ds": [.double(.infinity), .double(-.infinity), .double(2)]],
        ["id": 4, "g": 2, "d": .double(2), "ds": [.double(-.infinity)]],
        ["id": 5, "g": 3, "d": .double(1e308), "ds": [.double(1e308), .double(-.infinity), .double(1e308)]],
        ["id": 6, "g": 3, "d": .double(-.infinity), "ds": []],
        ["id": 7, "g": 3, "d": .double(1e308), "ds": []],
    ]

    /// Whether `a` and `b` are equal, a NaN equal to a NaN.
    static func same(_ a: [[Value]], _ b: [[Value]]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in
            x.count == y.count && zip(x, y).allSatisfy {
                if case .double(let l) = $0, case .double(let r) = $1, l.isNaN, r.isNaN { return true }
                return $0 == $1
            }
        }
    }

    @Test func infinitiesAreValuesInSumsAndAverages() throws {
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.infinitySchema)
        let store = try Store(configuration: .inMemory(schema: Self.infinitySchema))
        for object in Self.infinityObjects { try postgres.insert("M", object) }
        try store.write { tx in for object in Self.infinityObjects { _ = try tx.insert("M", object) } }
        let values: [(String, Value)] = [
            ("sum M.d where g == 1", .double(.infinity)), ("avg M.d where g == 1", .double(.infinity)),
            ("sum M.d where g == 2", .double(-.infinity)), ("avg M.f where g == 2", .double(-.infinity)),
            ("sum M.d where g <= 2", .double(.nan)), ("avg M.d where g <= 2", .double(.nan)),
            ("sum M.f where g == 1", .double(.infinity)), ("avg M.f where g <= 2", .double(.nan)),
        ]
        for (text, expected) in values {
            let fromStore = try store.read { try $0.aggregate(text) }
            guard case .value(_, let got) = try postgres.run(text) else { Issue.record("\(text): not a value"); continue }
            #expect(Self.same([[fromStore], [got]], [[expected], [expected]]), "\(text): store \(fromStore), PostgreSQL \(got)")
        }
        let rows: [(String, [[Value]])] = [
            ("M where g <= 2 GROUP(g) SELECT(g, @sum.d, @avg.d, @sum.f)",
             [[.int(1), .double(.infinity), .double(.infinity), .double(.infinity)],
              [.int(2), .double(-.infinity), .double(-.infinity), .double(-.infinity)]]),
            ("M where g <= 2 SORT(id) SELECT(ds.@sum, ds.@avg)",
             [[.double(.infinity), .double(.infinity)], [.double(0), .null], [.double(.nan), .double(.nan)],
              [.double(-.infinity), .double(-.infinity)]]),
        ]
        for (text, expected) in rows {
            let fromStore = try store.read { try $0.rows(text).map(\.values) }
            guard case .rows(let got) = try postgres.run(text) else { Issue.record("\(text): not rows"); continue }
            #expect(Self.same(fromStore, expected), "store: \(text): \(fromStore)")
            #expect(Self.same(got.rows, expected), "PostgreSQL: \(text): \(got.rows)")
        }
        for (predicate, expected) in [("ds.@sum > 1e300", 1), ("ds.@avg < 0", 1)] {
            #expect(try postgres.count("M", where: "g <= 2 AND \(predicate)") == expected, "PostgreSQL: \(predicate)")
            #expect(try store.read { try $0.aggregate("count M where g <= 2 AND \(predicate)") } == .int(Int64(expected)), "store: \(predicate)")
        }
        // The exact form (a condition's, or a read sum's run again): the finite values are two
        // comparisons a row, the infinities one.
        let sql = try postgres.sql("M where ds.@sum > 0").sql
        #expect(sql.contains(#"> '-Infinity' AND"#) && sql.contains("abs(") && !sql.contains(" IN ("), "\(sql)")
        // Finite values whose sum overflows: the store's error on both, the -inf notwithstanding.
        for text in ["sum M.d where g == 3", "avg M.d where g == 3", "M where g == 3 GROUP(g) SELECT(@sum.d)",
                     "M where g == 3 GROUP(g) SELECT(@avg.d)", "M where id == 5 SELECT(ds.@sum)", "M where id == 5 SELECT(ds.@avg)"] {
            try Self.expectTheStoresError(text, store: store, postgres: postgres)
        }
    }

    /// A sum beyond its type's range names the item that overflows, as on a store: not an
    /// average of ints (which cannot), not a decimal sum, not a sum before it whose values fit.
    @Test func anOverflowNamesTheItemThatOverflows() throws {
        let schema = try Schema(jsonData: Array(#"""
            {"models": [{"name": "M", "primaryKey": "id", "properties": {"id": "int", "g": "int", "i": "int", "dec": "decimal", "a": "double",
                                                                         "d": "double", "is": "int[]", "ds": "double[]"}}]}
            """#.utf8), fileName: "blame")
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let store = try Store(configuration: .inMemory(schema: schema))
        let objects: [[String: Value]] = (Int64(1)...2).map {
            ["id": .int($0), "g": 1, "i": .int($0), "dec": .decimal(1), "a": .double(1), "d": .double(1e308),
             "is": [.int(1)], "ds": [.double(1e308), .double(1e308)]]
        }
        for object in objects { try postgres.insert("M", object) }
        try store.write { tx in for object in objects { _ = try tx.insert("M", object) } }
        for text in ["M GROUP(g) SELECT(@avg.i, @sum.d)", "M GROUP(g) SELECT(@sum.dec, @sum.d)", "M GROUP(g) SELECT(@sum.a, @sum.d, @sum.i)",
                     "M GROUP(g) SELECT(@sum.a AS x, @avg.d) SORT(x)", "M SELECT(is.@avg, ds.@sum)", "M SELECT(is.@sum, ds.@avg)"] {
            try Self.expectTheStoresError(text, store: store, postgres: postgres)
        }
    }

    /// Runs `text` on both backends and expects the store to refuse it, and PostgreSQL with the
    /// store's message at the store's place.
    static func expectTheStoresError(_ text: String, store: Store, postgres: PostgresStore,
                                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        var storeError: QueryError?
        do { _ = try store.read { try $0.answer(text) } } catch let error as QueryError { storeError = error }
        var postgresError: QueryError?
        do { _ = try postgres.run(text) } catch let error as QueryError { postgresError = error }
        #expect(storeError != nil, "store: \(text)", sourceLocation: sourceLocation)
        #expect(postgresError.map { [$0.message, "\($0.location)"] } == storeError.map { [$0.message, "\($0.location)"] },
                "\(text): PostgreSQL \(String(describing: postgresError)), store \(String(describing: storeError))",
                sourceLocation: sourceLocation)
    }
}
