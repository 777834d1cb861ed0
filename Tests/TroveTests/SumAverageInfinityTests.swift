import Testing
@testable import Trove

/// An infinity stored is a value, not an overflow: a sum or average that meets +inf is +inf,
/// one that meets -inf is -inf, one that meets both is NaN; only finite values whose sum
/// leaves the range of double are an error, wherever an infinity comes among them. In
/// statements (planned as usual and with every index preferred),
/// `Results`, group aggregates and list aggregates in SELECT and in predicates.
@Suite("sum and avg take infinities as values")
struct SumAverageInfinityTests {
    static func store() throws -> Store {
        let schema = """
            {"models": [{"name": "M", "properties": {"g": {"type": "int", "indexed": true}, "d": "double?",
                                                     "f": "float?", "ds": "double[]"}},
                        {"name": "O", "properties": {"k": "int", "d": "double?", "ds": "double[]"}}]}
            """
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(schema)))
        try store.write { tx in
            try tx.insert("M", ["g": 1, "d": .double(.infinity), "f": .float(.infinity), "ds": [.double(1), .double(.infinity)]])
            try tx.insert("M", ["g": 1, "d": .double(1), "f": .float(1), "ds": []])
            try tx.insert("M", ["g": 2, "d": .double(-.infinity), "f": .float(-.infinity),
                                "ds": [.double(.infinity), .double(-.infinity), .double(2)]])
            try tx.insert("M", ["g": 2, "d": .double(2), "ds": [.double(-.infinity)]])
            // Finite values whose sum overflows, beside an infinity.
            for d in [1e308, -Double.infinity, 1e308] { try tx.insert("O", ["k": 1, "d": .double(d), "ds": []]) }
            try tx.insert("O", ["k": 2, "ds": [.double(1e308), .double(-.infinity), .double(1e308)]])
        }
        return store
    }

    /// Whether `value` is `expected`, a NaN being a NaN.
    static func same(_ value: Value, _ expected: Value) -> Bool {
        if case .double(let d) = value, case .double(let e) = expected, d.isNaN, e.isNaN { return true }
        return value == expected
    }

    @Test func aSumThatMeetsAnInfinityIsThatInfinity() throws {
        let store = try Self.store()
        try store.read { snapshot in
            for prefersIndexes in [false, true] {
                let executor = QueryExecutor(snapshot: snapshot, prefersIndexes: prefersIndexes)
                let statements: [(String, Value)] = [
                    ("sum M.d where g == 1", .double(.infinity)), ("avg M.d where g == 1", .double(.infinity)),
                    ("sum M.d where g == 2", .double(-.infinity)), ("avg M.d where g == 2", .double(-.infinity)),
                    ("sum M.d", .double(.nan)), ("avg M.d", .double(.nan)),
                    ("sum M.d where d > 1", .double(.infinity)), ("avg M.d where d < 2", .double(-.infinity)),
                    ("sum M.f where g == 1", .double(.infinity)), ("avg M.f", .double(.nan)),
                    ("max M.d", .double(.infinity)), ("min M.d", .double(-.infinity)),
                ]
                for (text, expected) in statements {
                    guard case .value(let value) = try executor.answer(text, arguments: []).answer else { Issue.record("\(text): not a value"); continue }
                    #expect(Self.same(value, expected), "\(text), prefersIndexes \(prefersIndexes): \(value)")
                }
                for text in ["sum O.d", "avg O.d", "sum O.d where d > 0"] {
                    #expect(throws: QueryError.self, "\(text), prefersIndexes \(prefersIndexes)") {
                        try executor.answer(text, arguments: [])
                    }
                }
            }
            #expect(try snapshot.objects("M", where: "g == 1").sum(of: "d") == .double(.infinity))
            #expect(try snapshot.objects("M", where: "g == 2").average(of: "f") == .double(-.infinity))
            #expect(Self.same(try snapshot.objects("M").sum(of: "d"), .double(.nan)))
            #expect(throws: QueryError.self) { try snapshot.objects("O").sum(of: "d") }
        }
    }

    @Test func groupAndListAggregatesTakeInfinitiesAsValues() throws {
        let store = try Self.store()
        try store.read { snapshot in
            let groups = try snapshot.rows("M GROUP(g) SELECT(g, @sum.d, @avg.d, @sum.f)").map(\.values)
            let groupsExpected: [[Value]] = [[.int(1), .double(.infinity), .double(.infinity), .double(.infinity)],
                                             [.int(2), .double(-.infinity), .double(-.infinity), .double(-.infinity)]]
            #expect(groups == groupsExpected)
            let lists = try snapshot.rows("M SORT(g, d) SELECT(ds.@sum, ds.@avg)").map(\.values)
            let expected: [[Value]] = [[.double(0), .null], [.double(.infinity), .double(.infinity)],
                                       [.double(.nan), .double(.nan)], [.double(-.infinity), .double(-.infinity)]]
            let matches = lists.count == expected.count && zip(lists, expected).allSatisfy { row, want in
                row.count == want.count && zip(row, want).allSatisfy { Self.same($0, $1) }
            }
            #expect(matches, "\(lists)")
            #expect(try snapshot.aggregate("count M where ds.@sum > 1e300") == .int(1))
            #expect(try snapshot.aggregate("count M where ds.@avg < 0") == .int(1))
            #expect(throws: QueryError.self) { try snapshot.rows("O GROUP(k) SELECT(@sum.d)") }
            #expect(throws: QueryError.self) { try snapshot.rows("O SELECT(ds.@sum)") }
            #expect(throws: QueryError.self) { try snapshot.aggregate("count O where ds.@avg < 0") }
        }
    }
}
