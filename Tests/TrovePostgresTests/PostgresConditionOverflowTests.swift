import Foundation
import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// A sum or average in a condition that leaves its type's range is the store's
/// `QueryError.sumOutOfRange` on PostgreSQL too, naming the same list at the same place, in
/// every statement a condition is part of; an average that rounds to zero is zero on both; and
/// a list aggregate in a condition is computed once.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresConditionOverflowTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "M", "primaryKey": "id", "properties": {"id": "int", "g": "int", "d": "double", "is": "int[]", "ds": "double[]",
                                                                     "fs": "float[]", "ms": "M[]"}}]}
        """#.utf8), fileName: "overflow")

    /// Object 1's doubles overflow (its floats' sum, a double, does not), object 2's ints; object 3
    /// links to both.
    static let objects: [[String: Value]] = [
        ["id": 1, "g": 1, "d": .double(1), "is": [.int(1)], "ds": [.double(1e308), .double(1e308)], "fs": [.float(3e38), .float(3e38)], "ms": []],
        ["id": 2, "g": 1, "d": .double(2), "is": [.int(.max), .int(1)], "ds": [.double(1)], "fs": [], "ms": []],
        ["id": 3, "g": 2, "d": .double(3), "is": [], "ds": [], "fs": [], "ms": [.int(1), .int(2)]],
    ]

    static func load() throws -> (Store, PostgresStore) {
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let store = try Store(configuration: .inMemory(schema: schema))
        for object in objects { try postgres.insert("M", object) }
        try store.write { tx in for object in objects { _ = try tx.insert("M", object) } }
        return (store, postgres)
    }

    /// `body`'s `QueryError` on each backend, as message and place.
    static func refusal(_ body: () throws -> Void) -> [String]? {
        do { try body() } catch let error as QueryError { return [error.message, "\(error.location)"] } catch { return ["\(error)"] }
        return nil
    }

    static func expectSameRefusal(_ what: String, store: () throws -> Void, postgres: () throws -> Void,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
        let fromStore = refusal(store), fromPostgres = refusal(postgres)
        #expect(fromStore?.first?.contains("out of the range") == true, "store: \(what): \(String(describing: fromStore))", sourceLocation: sourceLocation)
        #expect(fromPostgres == fromStore, "\(what): PostgreSQL \(String(describing: fromPostgres)), store \(String(describing: fromStore))",
                sourceLocation: sourceLocation)
    }

    @Test func anOverflowInAConditionIsTheStoresErrorInEveryStatement() throws {
        let (store, postgres) = try Self.load()
        let statements = [
            "count M where ds.@sum > 0", "count M where ds.@avg < 0", "count M where is.@sum > 0",
            "M where ds.@sum > 0", "M where ds.@avg < 0", "M where is.@sum > 0 SORT(id)",
            "M where ds.@sum > 0 SELECT(id)", "M where ds.@avg < 0 GROUP(g) SELECT(g, @count)",
            "M where ds.@sum > 0 GROUP(g) SELECT(@sum.d)", "M where is.@sum > 0 SELECT(ds.@sum)",
            "sum M.d where ds.@sum > 0", "avg M.d where is.@sum > 0", "count M where SUBQUERY(ms, $x, $x.ds.@sum > 0).@count > 0",
        ]
        for text in statements {
            Self.expectSameRefusal(text, store: { _ = try store.read { try $0.answer(text) } }, postgres: { _ = try postgres.run(text) })
        }
        for predicate in ["ds.@sum > 0", "ds.@avg < 0", "is.@sum > 0", "0 < ds.@sum", "ds.@sum BETWEEN {0, 1}"] {
            Self.expectSameRefusal("count: \(predicate)", store: { _ = try store.read { try $0.objects("M", where: predicate, arguments: []).count } },
                                   postgres: { _ = try postgres.count("M", where: predicate) })
            Self.expectSameRefusal("objects: \(predicate)", store: { _ = try store.read { try $0.answer("M where \(predicate)") } },
                                   postgres: { _ = try postgres.objects("M where \(predicate)") })
            Self.expectSameRefusal("update: \(predicate)", store: { try store.write { tx in _ = try tx.update("M", where: predicate, set: ["g": 9]) } },
                                   postgres: { _ = try postgres.update("M", where: predicate, set: ["g": 9]) })
            Self.expectSameRefusal("delete: \(predicate)", store: { try store.write { tx in _ = try tx.delete("M", where: predicate) } },
                                   postgres: { _ = try postgres.delete("M", where: predicate) })
        }
        // The failed writes changed nothing; in a transaction, a refused statement leaves it usable.
        #expect(try postgres.count("M", where: "g == 9") == 0 && postgres.count("M") == 3)
        try postgres.begin()
        Self.expectSameRefusal("in a transaction", store: { try store.write { tx in _ = try tx.update("M", where: "ds.@sum > 0", set: ["g": 9]) } },
                               postgres: { _ = try postgres.update("M", where: "ds.@sum > 0", set: ["g": 9]) })
        #expect(try postgres.count("M", where: "id == 3") == 1)
        try postgres.rollback()
    }

    /// Of several sums in a condition, the one named is the one a store throws at: on the
    /// first object where one overflows, the first it computes there (a comparison's right
    /// side before its left, operands in order, a SUBQUERY's where its count is).
    @Test func theSumNamedIsTheFirstAStoreComputesThatOverflows() throws {
        let (store, postgres) = try Self.load()
        for predicate in ["fs.@sum > 0 AND ds.@sum > 0", "ds.@sum < is.@sum", "is.@sum < ds.@sum", "NOT (fs.@avg > 0 AND ds.@avg > 0)",
                          "ms.@count > 5 OR ds.@sum > 0", "SUBQUERY(ms, $x, $x.fs.@sum >= 0 AND $x.is.@sum > 0).@count > 0",
                          "SUBQUERY(ms, $x, $x.is.@sum > 0).@count < ds.@sum"] {
            let text = "count M where \(predicate)"
            Self.expectSameRefusal(text, store: { _ = try store.read { try $0.answer(text) } }, postgres: { _ = try postgres.run(text) })
        }
    }

    /// A list aggregate in a condition is computed once a comparison, whatever guards (NaN,
    /// null, BETWEEN's bounds) name its value, and answers as before.
    @Test func aListAggregateInAConditionIsComputedOnce() throws {
        let (store, postgres) = try Self.load()
        try postgres.update("M", where: "id == 1", set: ["ds": [.double(1), .double(.nan)], "fs": []])
        try postgres.update("M", where: "id == 2", set: ["is": [.int(4)]])
        try store.write { tx in
            _ = try tx.update("M", where: "id == 1", set: ["ds": [.double(1), .double(.nan)], "fs": []])
            _ = try tx.update("M", where: "id == 2", set: ["is": [.int(4)]])
        }
        for predicate in ["ds.@sum > 0", "ds.@avg == 1", "ds.@max != 1", "is.@sum BETWEEN {1, 5}", "ds.@min <= 1", "ms.@max.d < ds.@sum",
                          "is.@sum < ds.@sum", "ds.@avg >= is.@sum"] {
            let sql = try postgres.sql("M where \(predicate) SELECT(id)").sql
            let lists = predicate.components(separatedBy: "@").count - 1
            #expect(sql.components(separatedBy: ".\"M.").count - 1 == lists, "\(predicate): \(sql)")
            let expected = try store.read { try $0.objects("M", where: predicate, arguments: []).count }
            #expect(try postgres.count("M", where: predicate) == expected, "\(predicate)")
        }
    }

    /// PostgreSQL's division refuses a quotient that rounds to zero ("underflow"); a store's
    /// average of 5e-324 and 0 is 0.
    @Test func anAverageThatRoundsToZeroIsZero() throws {
        let schema = try Schema(jsonData: Array(#"""
            {"models": [{"name": "A", "primaryKey": "id", "properties": {"id": "int", "g": "int", "d": "double", "ds": "double[]"}}]}
            """#.utf8), fileName: "underflow")
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let store = try Store(configuration: .inMemory(schema: schema))
        let least = Double.leastNonzeroMagnitude
        let objects: [[String: Value]] = [
            ["id": 1, "g": 1, "d": .double(least), "ds": [.double(least), .double(0)]],
            ["id": 2, "g": 1, "d": .double(0), "ds": [.double(-least), .double(0), .double(0)]],
            ["id": 3, "g": 2, "d": .double(-least), "ds": [.double(3 * least), .double(0)]],
            ["id": 4, "g": 2, "d": .double(0), "ds": [.double(least * 0x1p20), .double(3)]],
        ]
        for object in objects { try postgres.insert("A", object) }
        try store.write { tx in for object in objects { _ = try tx.insert("A", object) } }
        for text in ["avg A.d where g == 1", "avg A.d where g == 2", "avg A.d"] {
            let fromStore = try store.read { try $0.aggregate(text) }
            #expect(try postgres.run(text) == .value("avg", fromStore), "\(text): store \(fromStore)")
        }
        for text in ["A GROUP(g) SELECT(g, @avg.d)", "A SORT(id) SELECT(id, ds.@avg)", "A where ds.@avg == 0 SORT(id) SELECT(id)",
                     "A where ds.@avg > 0 SORT(id) SELECT(id)"] {
            let fromStore = try store.read { try $0.rows(text).map(\.values) }
            guard case .rows(let got) = try postgres.run(text) else { Issue.record("\(text): not rows"); continue }
            #expect(got.rows == fromStore, "\(text)")
        }
    }

    /// Where the condition does not overflow as a store evaluates it (its first operand false
    /// first), the SELECT item's or the aggregate's sum is named, not a sum of the condition
    /// that overflows on an object the condition leaves out.
    @Test func anItemsOverflowIsNotBlamedOnACondition() throws {
        let (store, postgres) = try Self.loadItemsCase()
        for text in ["M where g == 2 AND is.@sum > 0 SELECT(ds.@sum)", "M where g == 2 AND is.@sum > 0 SELECT(id, ds.@sum, is.@sum)",
                     "M where g == 2 AND is.@sum > 0 GROUP(g) SELECT(@sum.d)", "sum M.d where g == 2 AND is.@sum > 0",
                     "avg M.d where g == 2 AND is.@sum > 0"] {
            Self.expectSameRefusal(text, store: { _ = try store.read { try $0.answer(text) } }, postgres: { _ = try postgres.run(text) })
        }
    }

    /// Object 1 (g 1) has an int sum out of range; objects 2 and 3 (g 2) hold doubles whose sums
    /// are out of range.
    static func loadItemsCase() throws -> (Store, PostgresStore) {
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let store = try Store(configuration: .inMemory(schema: schema))
        let objects: [[String: Value]] = [
            ["id": 1, "g": 1, "d": .double(1), "is": [.int(.max), .int(1)], "ds": [.double(1)], "fs": [], "ms": []],
            ["id": 2, "g": 2, "d": .double(1e308), "is": [.int(1)], "ds": [.double(1e308), .double(1e308)], "fs": [], "ms": []],
            ["id": 3, "g": 2, "d": .double(1e308), "is": [.int(2)], "ds": [.double(1)], "fs": [], "ms": []],
        ]
        for object in objects { try postgres.insert("M", object) }
        try store.write { tx in for object in objects { _ = try tx.insert("M", object) } }
        return (store, postgres)
    }

    /// A store computes an `AND`'s or `OR`'s later operand only where the earlier ones do not
    /// decide: a sum there that would overflow on such an object is never computed, on
    /// PostgreSQL either, whatever order its planner prefers.
    @Test func aSumAfterAnOperandThatDecidesIsNotComputed() throws {
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.schema)
        let store = try Store(configuration: .inMemory(schema: Self.schema))
        // Object 1's ints overflow, where its doubles' sum is below 0.
        let objects: [[String: Value]] = [
            ["id": 1, "g": 1, "d": .double(1), "is": [.int(.max), .int(1)], "ds": [.double(-1)], "fs": [], "ms": []],
            ["id": 2, "g": 1, "d": .double(1), "is": [.int(1)], "ds": [.double(1)], "fs": [], "ms": []],
            ["id": 3, "g": 2, "d": .double(1), "is": [], "ds": [], "fs": [], "ms": [.int(1), .int(2)]],
        ]
        for object in objects { try postgres.insert("M", object) }
        try store.write { tx in for object in objects { _ = try tx.insert("M", object) } }
        for predicate in ["ds.@sum > 0 AND is.@sum > 0", "ds.@avg > 0 AND is.@sum > 0", "ds.@sum < 0.5 OR is.@sum > 0",
                          "NOT (ds.@sum > 0 AND is.@avg > 0)", "id == 1 AND ds.@sum > 0 AND is.@sum > 0",
                          "SUBQUERY(ms, $x, $x.ds.@sum > 0 AND $x.is.@sum > 0).@count > 0"] {
            let expected = try store.read { try $0.objects("M", where: predicate, arguments: []).count }
            #expect(try postgres.count("M", where: predicate) == expected, "count: \(predicate)")
            let text = "M where \(predicate) SORT(id) SELECT(id)"
            let rows = try store.read { try $0.rows(text).map(\.values) }
            guard case .rows(let got) = try postgres.run(text) else { Issue.record("\(text): not rows"); continue }
            #expect(got.rows == rows, "\(text)")
        }
        // A first operand that holds no sum still reaches its index.
        let (sql, parameters) = try postgres.sql("M where id == 2 AND ds.@sum > 5 AND is.@sum > 0")
        _ = try postgres.connection.execute("SET enable_seqscan = off")
        defer { _ = try? postgres.connection.execute("RESET enable_seqscan") }
        let plan = try postgres.connection.execute("EXPLAIN " + sql, parameters).rows.compactMap { $0.first ?? nil }.joined(separator: "\n")
        #expect(plan.contains("Index Cond"), "\(sql)\n\(plan)")
    }

    /// After a failed statement, the re-checks that find its sum run as one prepared statement
    /// per condition, whatever range of objects each reads.
    @Test func reChecksShareTheirPreparedStatements() throws {
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.schema)
        for id in 1...40 {
            try postgres.insert("M", ["id": .int(Int64(id)), "g": 1, "d": .double(1), "is": [.int(1)], "ds": [.double(1)], "fs": [], "ms": []])
        }
        func prepared() throws -> String? { try postgres.connection.execute("SELECT count(*) FROM pg_prepared_statements").rows.first?.first ?? nil }
        let text = "count M where ds.@sum < is.@sum"
        func refusal() -> String? { Self.refusal { _ = try postgres.run(text) }?.joined(separator: " ") }
        // Every statement the test runs is prepared once before it counts them.
        try postgres.update("M", where: "id == 5", set: ["is": [.int(1), .int(0)]])
        try postgres.update("M", where: "id == 5", set: ["ds": [.double(1)]])
        _ = try prepared()
        try postgres.update("M", where: "id == 37", set: ["ds": [.double(1e308), .double(1e308)]])
        let first = refusal()
        let afterFirst = try prepared()
        try postgres.update("M", where: "id == 37", set: ["ds": [.double(1)]])
        try postgres.update("M", where: "id == 5", set: ["is": [.int(.max), .int(1)]])
        let second = refusal()
        #expect(first?.contains("ds") == true && second?.contains("is") == true, "\(String(describing: first)); \(String(describing: second))")
        #expect(try prepared() == afterFirst)
    }

    /// In a transaction, a statement's sum out of range is named as outside it and leaves the
    /// transaction as it was; in a unit (`atomically`), which the failed statement fails, the
    /// first sum a store computes is named without re-checks.
    @Test func inATransactionTheSumIsNamedAndTheTransactionGoesOn() throws {
        let (store, postgres) = try Self.load()
        try postgres.begin()
        try postgres.update("M", where: "id == 3", set: ["g": 7])
        for text in ["count M where ds.@sum < is.@sum", "count M where is.@sum < ds.@sum", "M SELECT(ds.@sum, is.@sum)"] {
            Self.expectSameRefusal("begin: \(text)", store: { _ = try store.read { try $0.answer(text) } }, postgres: { _ = try postgres.run(text) })
        }
        try postgres.commit()
        #expect(try postgres.count("M", where: "g == 7") == 1)
        for text in ["M SELECT(ds.@sum, is.@sum)", "M SORT(id) SELECT(id, ds.@sum, is.@sum)", "count M where is.@sum < ds.@sum"] {
            Self.expectSameRefusal("atomically: \(text)", store: { _ = try store.read { try $0.answer(text) } }, postgres: {
                try postgres.atomically {
                    try postgres.update("M", where: "id == 3", set: ["g": 8])
                    _ = try postgres.run(text)
                }
            })
        }
        #expect(try postgres.count("M", where: "g == 8") == 0 && postgres.count("M", where: "g == 7") == 1)
    }
}
