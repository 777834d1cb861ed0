import Foundation
import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// A sum or average of doubles or floats whose value is read (a statement's value, GROUP and
/// SELECT items) runs as one sum of every value but NaN, and again in the exact form (the
/// finite values apart from the infinities) only where that is not finite: the store's
/// answers, or the store's error, for -0.0, no values, infinities of either sign or both,
/// NaN, and finite values that overflow with an infinity before, between or after them.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresFastSumTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "S", "primaryKey": "id", "properties": {"id": "int", "g": "int", "d": "double?", "f": "float?", "ds": "double[]"}}]}
        """#.utf8), fileName: "fastsum")

    /// Each group's values of `d`, in key order (PostgreSQL's heap order too), and the same
    /// values as the first object's `ds`.
    static let groups: [Int: [Double?]] = [
        1: [-0.0, -0.0],
        2: [nil],
        3: [.infinity, 1],
        4: [-.infinity, 2],
        5: [.infinity, -.infinity, 1],
        6: [.nan, 3],
        7: [1, 2.5],
        8: [-.infinity, 1e308, 1e308],
        9: [1e308, 1e308, .infinity],
        10: [1e308, 1e308, -.infinity, .infinity],
        11: [1e308, -1e308, .infinity],
        12: [.infinity, 1e308, 1e308, -.infinity],
    ]

    /// Groups 8, 9, 10 and 12: their finite values overflow.
    static let overflowing: Set<Int> = [8, 9, 10, 12]

    static func load() throws -> (Store, PostgresStore) {
        var objects: [[String: Value]] = []
        for (g, values) in groups.sorted(by: { $0.key < $1.key }) {
            for (i, value) in values.enumerated() {
                let d: Value = value.map { .double($0) } ?? .null
                // Floats where the values fit one.
                let f: Value = value.map { overflowing.contains(g) || g == 11 ? .null : .float(Float($0)) } ?? .null
                let list: [Value] = i == 0 ? values.compactMap { $0.map { .double($0) } } : []
                objects.append(["id": .int(Int64(g * 100 + i)), "g": .int(Int64(g)), "d": d, "f": f, "ds": .list(list)])
            }
        }
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let store = try Store(configuration: .inMemory(schema: schema))
        for object in objects { try postgres.insert("S", object) }
        try store.write { tx in for object in objects { _ = try tx.insert("S", object) } }
        return (store, postgres)
    }

    /// Whether `a` and `b` are the same values: a NaN the same as a NaN, and 0 not -0.
    static func same(_ a: [[Value]], _ b: [[Value]]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in
            x.count == y.count && zip(x, y).allSatisfy {
                if case .double(let l) = $0, case .double(let r) = $1 { return l.isNaN ? r.isNaN : l == r && l.sign == r.sign }
                return $0 == $1
            }
        }
    }

    /// An answer as rows (a value is one row of one), or an error: a `QueryError`'s message and place.
    enum Outcome {
        case rows([[Value]])
        case error(String)
    }

    static func answer(_ body: () throws -> [[Value]]) -> Outcome {
        do { return .rows(try body()) } catch let error as QueryError { return .error("\(error.message) at \(error.location)") } catch {
            return .error("\(error)")
        }
    }

    static func fromStore(_ text: String, _ store: Store) -> Outcome {
        answer {
            switch try store.read({ try $0.answer(text) }) {
            case .rows(let rows): rows.map(\.values)
            case .value(let value): [[value]]
            case .objects: []
            }
        }
    }

    static func fromPostgres(_ text: String, _ postgres: PostgresStore) -> Outcome {
        answer {
            switch try postgres.run(text) {
            case .rows(let rows): rows.rows
            case .value(_, let value): [[value]]
            case .objects: []
            }
        }
    }

    static func expectTheStoresAnswer(_ text: String, store: Store, postgres: PostgresStore, _ got: Outcome? = nil,
                                      sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = fromStore(text, store), got = got ?? fromPostgres(text, postgres)
        switch (expected, got) {
        case (.rows(let e), .rows(let g)):
            #expect(same(e, g), "\(text): store \(e), PostgreSQL \(g)", sourceLocation: sourceLocation)
        case (.error(let e), .error(let g)):
            #expect(e.contains("out of the range") && g == e, "\(text): store \(e), PostgreSQL \(g)", sourceLocation: sourceLocation)
        default:
            Issue.record("\(text): store \(expected), PostgreSQL \(got)", sourceLocation: sourceLocation)
        }
    }

    @Test func sumsAndAveragesAreTheStoresInEveryCase() throws {
        let (store, postgres) = try Self.load()
        var texts: [String] = []
        for g in Self.groups.keys.sorted() {
            for function in ["sum", "avg"] {
                texts += ["\(function) S.d where g == \(g)", "\(function) S.f where g == \(g)",
                          "S where g == \(g) GROUP(g) SELECT(g, @\(function).d, @\(function).f)",
                          "S where g == \(g) SORT(id) SELECT(id, ds.@\(function))"]
            }
        }
        // Several groups or objects in one statement: one that is not finite runs it again exactly.
        texts += ["S where g <= 7 OR g == 11 GROUP(g) SELECT(g, @sum.d, @avg.d, @sum.f, @avg.f)",
                  "S where g <= 7 OR g == 11 SORT(id) SELECT(id, ds.@sum, ds.@avg)",
                  "S where g == 1 OR g == 7 GROUP(g) SELECT(g, @sum.d, @avg.d, @sum.f, @avg.f)",
                  "S GROUP(g) SELECT(g, @sum.d)", "S SORT(id) SELECT(id, ds.@avg)", "sum S.d", "avg S.d where g != 8",
                  // OFFSET, LIMIT and DISTINCT leave rows unread: their sums are exact.
                  "S where g == 7 OR g == 8 GROUP(g) SELECT(g, @sum.d AS s) SORT(s DESC) LIMIT(1)",
                  "S where g == 7 OR g == 8 GROUP(g) SELECT(g, @avg.d AS s) SORT(s) OFFSET(1)",
                  "S where g == 7 OR g == 8 SORT(s DESC) LIMIT(1) SELECT(id, ds.@sum AS s)",
                  "S where g == 3 OR g == 7 SORT(s DESC) LIMIT(2) SELECT(id, ds.@sum AS s)"]
        for text in texts {
            Self.expectTheStoresAnswer(text, store: store, postgres: postgres)
        }
    }

    /// A statement run again runs in the same transaction: under the statement's savepoint in
    /// one (`begin`), as one more statement of a unit (`atomically`).
    @Test func aStatementRunAgainKeepsTheTransactionsRules() throws {
        let (store, postgres) = try Self.load()
        try postgres.begin()
        for text in ["sum S.d where g == 5", "S where g == 8 GROUP(g) SELECT(@sum.d)", "S where g == 3 SELECT(ds.@avg)", "avg S.d where g == 12"] {
            Self.expectTheStoresAnswer(text, store: store, postgres: postgres)
        }
        try postgres.insert("S", ["id": 1300, "g": 13, "d": .double(.infinity), "ds": []])
        #expect(try postgres.run("sum S.d where g >= 13") == .value("sum", .double(.infinity)))
        try postgres.rollback()
        for text in ["sum S.d where g == 4", "S where g == 9 GROUP(g) SELECT(@avg.d)"] {
            let got = Self.answer {
                try postgres.atomically {
                    switch try postgres.run(text) {
                    case .rows(let rows): rows.rows
                    case .value(_, let value): [[value]]
                    case .objects: []
                    }
                }
            }
            Self.expectTheStoresAnswer(text, store: store, postgres: postgres, got)
        }
        #expect(try store.read { try $0.aggregate("count S") } == .int(Int64(try postgres.count("S"))))
    }

    /// A decimal sum beyond decimal's range beside a double sum whose finite values overflow
    /// behind an infinity: a store computes the items in SELECT order and names the double's.
    @Test func aDecimalSumOutOfRangeDoesNotHideAnEarlierDoublesOverflow() throws {
        let schema = try Schema(jsonData: Array(#"""
            {"models": [{"name": "M", "primaryKey": "id", "properties": {"id": "int", "g": "int", "d": "double?", "m": "decimal?"}}]}
            """#.utf8), fileName: "fastsumdecimal")
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let store = try Store(configuration: .inMemory(schema: schema))
        let huge = Value.decimal(.greatestFiniteMagnitude)
        // The infinity first, so that PostgreSQL's running sum of every value meets no overflow.
        let objects: [[String: Value]] = [["id": 1, "g": 1, "d": .double(.infinity), "m": .null],
                                          ["id": 2, "g": 1, "d": .double(1e308), "m": huge],
                                          ["id": 3, "g": 1, "d": .double(1e308), "m": huge]]
        for object in objects { try postgres.insert("M", object) }
        try store.write { tx in for object in objects { _ = try tx.insert("M", object) } }
        let text = "M GROUP(g) SELECT(@sum.d, @sum.m)"
        guard case .error(let error) = Self.fromStore(text, store) else { Issue.record("the store gave no error"); return }
        #expect(error.contains("the sum of 'd' is out of the range of double"), "the store names d: \(error)")
        Self.expectTheStoresAnswer(text, store: store, postgres: postgres)
    }

    /// Where the fast sum is finite it is the answer: the exact form does not run. The
    /// statement is sent once where every fast sum is finite, and a second time (in the exact
    /// form) where one is not.
    @Test func theFastSumIsWhatRunsWhereItIsFinite() throws {
        let (store, postgres) = try Self.load()
        for text in ["sum S.d where g == 7", "S GROUP(g) SELECT(@sum.d, @avg.d)", "S SELECT(ds.@avg)"] {
            let sql = try postgres.explain(text).sql
            #expect(sql.contains("< 'NaN'), 0) + 0)") && !sql.contains("Infinity"), "\(text): \(sql)")
        }
        for text in ["S where ds.@sum > 0", "S GROUP(g) SELECT(@sum.d) LIMIT(1)", "S SORT(id) DISTINCT(g) SELECT(ds.@avg)"] {
            let sql = try postgres.explain(text).sql
            #expect(sql.contains("> '-Infinity' AND") && sql.contains("abs("), "\(text): \(sql)")
        }
        /// How many statements running `text` sends.
        func statements(_ text: String) -> Int {
            let before = postgres.connection.statementsSent
            Self.expectTheStoresAnswer(text, store: store, postgres: postgres)
            return postgres.connection.statementsSent - before
        }
        for text in ["sum S.d where g == 7", "avg S.f where g <= 2", "S where g == 1 OR g == 7 GROUP(g) SELECT(@sum.d, @avg.d, @avg.f)",
                     "S where g == 7 SELECT(ds.@sum, ds.@avg)"] {
            #expect(statements(text) == 1, "\(text)")
        }
        for text in ["sum S.d where g == 3", "S where g <= 7 GROUP(g) SELECT(@sum.d)", "S where g == 4 SELECT(ds.@avg)", "avg S.f where g == 3"] {
            #expect(statements(text) == 2, "\(text)")
        }
    }
}
