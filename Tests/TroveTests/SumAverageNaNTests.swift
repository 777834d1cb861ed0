import Testing
@testable import Trove

/// A NaN takes no part in a sum or an average, its divisor included, as `min` and `max` skip
/// it: statements (planned as usual and with every index preferred), `Results`, group aggregates and list aggregates in SELECT and in predicates.
@Suite("sum and avg skip NaN")
struct SumAverageNaNTests {
    static func store() throws -> Store {
        let schema = """
            {"models": [{"name": "M", "properties": {"g": {"type": "int", "indexed": true}, "d": "double?", "f": "float?", "ds": "double[]", "fs": "float[]"}}]}
            """
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(schema)))
        try store.write { tx in
            for value in [5, Double.nan, 1] {
                try tx.insert("M", ["g": 1, "d": .double(value), "f": .float(Float(value)), "ds": [], "fs": []])
            }
            try tx.insert("M", ["g": 2, "ds": [.double(5), .double(.nan), .double(1)], "fs": [.float(.nan), .float(5), .float(1)]])
            try tx.insert("M", ["g": 3, "d": .double(.nan), "ds": [.double(.nan)], "fs": []])
        }
        return store
    }

    @Test func sumsAndAveragesSkipNaN() throws {
        let store = try Self.store()
        try store.read { snapshot in
            for prefersIndexes in [false, true] {
                let executor = QueryExecutor(snapshot: snapshot, prefersIndexes: prefersIndexes)
                for (text, expected) in [("sum M.d", Value.double(6)), ("avg M.d", .double(3)), ("sum M.f", .double(6)), ("avg M.f", .double(3)),
                                         ("sum M.d where g == 1", .double(6)), ("avg M.d where d > 0", .double(3)),
                                         ("avg M.d where g == 3", .null), ("sum M.d where g == 3", .double(0))] {
                    guard case .value(let value) = try executor.answer(text, arguments: []).answer else { Issue.record("\(text): not a value"); continue }
                    #expect(value == expected, "\(text), prefersIndexes \(prefersIndexes)")
                }
            }
            let results = try snapshot.objects("M", where: "g == 1")
            #expect(try results.sum(of: "d") == .double(6))
            #expect(try results.average(of: "d") == .double(3))
            #expect(try results.average(of: "f") == .double(3))
            #expect(try snapshot.rows("M where g == 1 GROUP(g) SELECT(@sum.d, @avg.d, @sum.f, @avg.f)").map(\.values)
                    == [[.double(6), .double(3), .double(6), .double(3)]])
            #expect(try snapshot.rows("M where g > 1 SORT(g) SELECT(ds.@sum, ds.@avg, fs.@avg)").map(\.values)
                    == [[.double(6), .double(3), .double(3)], [.double(0), .null, .null]])
            #expect(try snapshot.aggregate("count M where ds.@avg == 3") == .int(1))
            #expect(try snapshot.aggregate("count M where fs.@sum == 6") == .int(1))
        }
    }
}
