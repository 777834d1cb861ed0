import Foundation
import Testing
@testable import Trove

/// A query with GROUP run again without arguments reuses its binding (model, predicate, keys,
/// items, SORT): it answers for the snapshot it runs on, binds again for another schema with
/// the same names, explains as before, and neither its errors nor a run with arguments are kept.
@Suite struct GroupedQueryCacheTests: SalesStoreSuite {
    static let model = "GroupedSale"

    private static func isGrouped(_ text: String, _ snapshot: Snapshot) -> Bool {
        if case .grouped? = ParsedQueryCache.shared.binding(text, layout: snapshot.layout) { return true }
        return false
    }

    @Test func aRepeatedGroupReusesItsBinding() throws {
        let store = try Self.store(#""int?""#)
        try store.write { tx in
            for i in 1...4 { try tx.insert("GroupedSale", ["id": .int(Int64(i)), "region": i % 2 == 0 ? "north" : "south", "amount": .int(Int64(i))]) }
        }
        let text = "GroupedSale where amount > 1 GROUP(region) SELECT(region, @sum.amount AS total) SORT(total DESC)"
        try store.read { (snapshot) throws in
            let first = try Self.values(snapshot.rows(text))
            #expect(first == [["north", 6], ["south", 3]])
            // The first run kept its binding to this layout; the second takes it.
            #expect(Self.isGrouped(text, snapshot))
            #expect(try Self.values(snapshot.rows(text)) == first)
        }
    }

    @Test func writesBetweenRunsShowInTheNextRows() throws {
        let store = try Self.store(#""int?""#)
        // Streamed from the index (the key and @count), scanned (no predicate), and from the
        // objects a predicate finds.
        let statements = ["GroupedSale GROUP(region)", "GroupedSale GROUP(region) SELECT(region, @avg.amount AS mean) SORT(mean DESC) LIMIT(2)",
                          "GroupedSale where amount > 10 GROUP(amount) SELECT(@count, amount) OFFSET(1)"]
        var answers: [[[[Value]]]] = []
        for round in 0..<3 {
            try store.write { (tx) throws in
                try tx.insert("GroupedSale", ["id": .int(Int64(round)), "region": "north", "amount": .int(Int64(10 * round + 5))])
                try tx.insert("GroupedSale", ["id": .int(Int64(100 + round)), "region": round == 1 ? "east" : "south", "amount": .null])
            }
            answers.append(try store.read { snapshot in try statements.map { try Self.values(snapshot.rows($0)) } })
        }
        #expect(answers[0] == [[["north", 1], ["south", 1]], [["north", 5.0], ["south", .null]], []])
        #expect(answers[1] == [[["east", 1], ["north", 2], ["south", 1]], [["north", 10.0], ["east", .null]], []])
        #expect(answers[2] == [[["east", 1], ["north", 3], ["south", 2]], [["north", 15.0], ["east", .null]], [[1, 25]]])
        try store.write { tx in _ = try tx.deleteAll("GroupedSale") }
        #expect(try store.read { snapshot in try statements.map { try Self.values(snapshot.rows($0)) } } == [[], [], []])
    }

    @Test func anotherSchemaWithTheSameNamesBindsAgain() throws {
        let ints = try Self.store(#""int""#)
        let doubles = try Self.store(#""double""#)
        let strings = try Self.store(#""string""#)
        try ints.write { tx in for i in 1...3 { try tx.insert("GroupedSale", ["id": .int(Int64(i)), "region": "r", "amount": .int(Int64(i))]) } }
        try doubles.write { tx in for i in 1...3 { try tx.insert("GroupedSale", ["id": .int(Int64(i)), "region": "r", "amount": .double(Double(i) / 2)]) } }
        try strings.write { tx in try tx.insert("GroupedSale", ["id": 1, "region": "r", "amount": "a"]) }
        let text = "GroupedSale GROUP(region) SELECT(region, @sum.amount)"
        for _ in 0..<2 {
            #expect(try ints.read { try Self.values($0.rows(text)) } == [["r", 6]])
            #expect(try doubles.read { try Self.values($0.rows(text)) } == [["r", 3.0]])
            // Not bound for this schema: the error each time, never another schema's rows.
            #expect(throws: QueryError.self) { try strings.read { try $0.rows(text) } }
        }
    }

    @Test func explainAndArgumentsAfterACachedRun() throws {
        let store = try Self.store(#""int""#)
        try store.write { tx in for i in 1...5 { try tx.insert("GroupedSale", ["id": .int(Int64(i)), "region": .string("r\(i % 2)"), "amount": .int(Int64(i))]) } }
        let text = "GroupedSale where amount > 1 GROUP(region) SELECT(region, @max.amount) OFFSET(1)"
        try store.read { (snapshot) throws in
            #expect(try Self.values(snapshot.rows(text)) == [["r1", 5]])
            let plan = try snapshot.explain(text)
            #expect(plan.description.contains("GROUP region"))
            #expect(plan.description.contains("OFFSET 1 groups"))
            #expect(plan.actualRows == 1)
            let withArguments = "GroupedSale where amount > $0 GROUP(region)"
            for _ in 0..<2 {
                #expect(throws: QueryError.self) { try snapshot.rows(withArguments) }
                #expect(try Self.values(snapshot.rows(withArguments, arguments: [3])) == [["r0", 1], ["r1", 1]])
                #expect(!Self.isGrouped(withArguments, snapshot))
            }
        }
    }
}
