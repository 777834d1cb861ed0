import Foundation
import Testing
@testable import Trove

/// `min` and `max` skip NaN wherever it comes among the values, in every form that takes
/// them: statements (planned as usual and with every index preferred), `Results`, group
/// aggregates, list aggregates in SELECT and in predicates. The expected values are Swift's
/// `min()`/`max()` over the same numbers without their NaNs.
@Suite("min and max skip NaN")
struct MinMaxNaNTests {
    /// Each group's doubles, NaN first, last, in the middle, alone and absent.
    static let groups: [Int64: [Double]] = [
        1: [.nan, 3, -2, 7],
        2: [5, .nan, -1, .nan],
        3: [4, 9, .nan],
        4: [.nan],
        5: [2, 8],
        6: [-.nan, 6, 1],
    ]

    static func store() throws -> Store {
        let schema = """
            {"models": [{"name": "M", "properties": {"g": {"type": "int", "indexed": true}, "d": "double?", "f": "float?", "ds": "double[]"}}]}
            """
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(schema)))
        try store.write { tx in
            for (g, values) in groups.sorted(by: { $0.key < $1.key }) {
                for value in values {
                    try tx.insert("M", ["g": .int(g), "d": .double(value), "f": .float(Float(value)),
                                        "ds": .list([])])
                }
                try tx.insert("M", ["g": .int(g), "ds": .list(values.map(Value.double))])
            }
        }
        return store
    }

    /// The least and greatest of `values` without NaN, null when none is left.
    static func expected(_ values: [Double]) -> (min: Value, max: Value) {
        let numbers = values.filter { !$0.isNaN }
        return (numbers.min().map(Value.double) ?? .null, numbers.max().map(Value.double) ?? .null)
    }

    /// The value of an aggregate statement and its plan.
    static func value(_ executor: QueryExecutor, _ text: String) throws -> (value: Value?, plan: QueryPlan) {
        let (answer, plan) = try executor.answer(text, arguments: [])
        guard case .value(let value) = answer else { return (nil, plan) }
        return (value, plan)
    }

    static func float(_ value: Value) -> Value {
        if case .double(let d) = value { return .float(Float(d)) }
        return value
    }

    @Test(arguments: groups.keys.sorted())
    func minAndMaxSkipNaNInEveryForm(_ g: Int64) throws {
        let (least, greatest) = Self.expected(Self.groups[g]!)
        let store = try Self.store()
        try store.read { snapshot in
            #expect(try snapshot.aggregate("min M.d where g == \(g)") == least)
            #expect(try snapshot.aggregate("max M.d where g == \(g)") == greatest)
            for prefersIndexes in [false, true] {
                let executor = QueryExecutor(snapshot: snapshot, prefersIndexes: prefersIndexes)
                #expect(try Self.value(executor, "min M.d where g == \(g)").value == least)
                #expect(try Self.value(executor, "max M.d where g == \(g)").value == greatest)
            }
            let results = try snapshot.objects("M", where: "g == \(g)")
            #expect(try results.min(of: "d") == least)
            #expect(try results.max(of: "d") == greatest)
            #expect(try snapshot.aggregate("min M.f where g == \(g)") == Self.float(least))
            #expect(try snapshot.aggregate("max M.f where g == \(g)") == Self.float(greatest))
            let grouped = try snapshot.rows("M where g == \(g) AND ds.@count == 0 GROUP(g) SELECT(@min.d, @max.d, @min.f, @max.f)")
            #expect(grouped.map(\.values) == [[least, greatest, Self.float(least), Self.float(greatest)]])
            let lists = try snapshot.rows("M where g == \(g) AND ds.@count > 0 SELECT(ds.@min, ds.@max)")
            #expect(lists.map(\.values) == [[least, greatest]])
            if case .double(let top) = greatest {
                #expect(try snapshot.aggregate("count M where g == \(g) AND ds.@max == \(top)") == .int(1))
            }
        }
    }
}
