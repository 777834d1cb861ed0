import Foundation
import Testing
@testable import Trove

/// A query with SELECT run again without arguments reuses its binding (model, predicate, SORT,
/// items): it answers for the snapshot it runs on, binds again for another schema with the
/// same names, explains as before, and its errors are never kept.
@Suite struct ProjectedQueryCacheTests: SalesStoreSuite {
    static let model = "PagedSale"

    @Test func writesBetweenRunsShowInTheNextRows() throws {
        let store = try Self.store(#""int?""#)
        let page = "PagedSale SORT(id) OFFSET(1) LIMIT(2) SELECT(region, amount)"
        let filtered = "PagedSale where amount > 10 SORT(a DESC) SELECT(amount AS a, id)"
        var answers: [[[Value]]] = []
        for round in 0..<3 {
            try store.write { (tx) throws in
                // Keys inserted out of primary-key order: the page's objects are not in key order.
                try tx.insert("PagedSale", ["id": .int(Int64(10 - round)), "region": "north", "amount": .int(Int64(10 * round + 5))])
                try tx.insert("PagedSale", ["id": .int(Int64(20 + round)), "region": "south", "amount": .null])
            }
            try store.read { (snapshot) throws in
                let first = try Self.values(snapshot.rows(page))
                #expect(try Self.values(snapshot.rows(page)) == first)
                answers.append(first)
                answers.append(try Self.values(snapshot.rows(filtered)))
            }
        }
        #expect(answers[0] == [["south", .null]])
        #expect(answers[1] == [])
        #expect(answers[2] == [["north", 5], ["south", .null]])
        #expect(answers[3] == [[15, 9]])
        #expect(answers[4] == [["north", 15], ["north", 5]])
        #expect(answers[5] == [[25, 8], [15, 9]])
        try store.write { tx in _ = try tx.delete("PagedSale", primaryKey: 9) }
        #expect(try store.read { try Self.values($0.rows(page)) } == [["north", 5], ["south", .null]])
        #expect(try store.read { try Self.values($0.rows(filtered)) } == [[25, 8]])
    }

    @Test func anotherSchemaWithTheSameNamesBindsAgain() throws {
        let ints = try Self.store(#""int""#)
        let strings = try Self.store(#""string""#)
        let noAmount = try Store(configuration: .inMemory(schema: try schemaFromJSON("""
        {"schemaVersion": 0, "models": [{"name": "PagedSale", "primaryKey": "id", "properties": {"id": "int", "region": "string"}}]}
        """)))
        try ints.write { tx in for i in 1...3 { try tx.insert("PagedSale", ["id": .int(Int64(i)), "region": "r", "amount": .int(Int64(i))]) } }
        try strings.write { tx in for i in 1...3 { try tx.insert("PagedSale", ["id": .int(Int64(i)), "region": "r", "amount": .string("s\(i)")]) } }
        let page = "PagedSale SORT(amount DESC) LIMIT(2) SELECT(amount)"
        for _ in 0..<2 {
            #expect(try ints.read { try Self.values($0.rows(page)) } == [[3], [2]])
            #expect(try strings.read { try Self.values($0.rows(page)) } == [["s3"], ["s2"]])
            // Not bound for this schema: the error each time, never another schema's rows.
            #expect(throws: QueryError.self) { try noAmount.read { try $0.rows(page) } }
        }
    }

    @Test func explainAndArgumentsAfterACachedRun() throws {
        let store = try Self.store(#""int""#)
        try store.write { tx in for i in 1...5 { try tx.insert("PagedSale", ["id": .int(Int64(i)), "region": "r", "amount": .int(Int64(i))]) } }
        let page = "PagedSale SORT(id) OFFSET(1) LIMIT(2) SELECT(id)"
        try store.read { (snapshot) throws in
            #expect(try Self.values(snapshot.rows(page)) == [[2], [3]])
            let plan = try snapshot.explain(page)
            #expect(plan.description.contains("SELECT id"))
            #expect(plan.description.contains("OFFSET 1"))
            #expect(plan.actualRows == 2)
            for _ in 0..<2 {
                #expect(throws: QueryError.self) { try snapshot.rows("PagedSale where amount > $0 SELECT(id)") }
                #expect(try Self.values(snapshot.rows("PagedSale where amount > $0 SELECT(id)", arguments: [3])) == [[4], [5]])
            }
        }
    }
}

/// `Results.select` keeps the binding `Snapshot.rows` keeps for the same statement text, so a
/// repeated call (and the typed `select`, which calls it) neither parses nor binds again.
@Suite struct ResultsSelectCacheTests {
    @Test func aRepeatedSelectReusesTheStatementsBinding() throws {
        let store = try ProjectedQueryCacheTests.store(#""int?""#)
        try store.write { tx in
            for i in 1...3 { try tx.insert("PagedSale", ["id": .int(Int64(i)), "region": .string("r\(i)"), "amount": i == 2 ? .null : .int(Int64(10 * i))]) }
        }
        // Items no other test selects, so that the first call binds them afresh.
        let text = "PagedSale SELECT(amount AS cachedAmount, region)"
        try store.read { (snapshot) throws in
            let results = try snapshot.objects("PagedSale").sorted(by: "id")
            #expect(ParsedQueryCache.shared.binding(text, layout: snapshot.layout) == nil)
            let first = try results.select("amount AS cachedAmount", "region")
            guard case .projected(let kept)? = ParsedQueryCache.shared.binding(text, layout: snapshot.layout) else {
                Issue.record("select kept no binding for \(text)")
                return
            }
            #expect(kept.projection.columns == ["cachedAmount", "region"])
            #expect(first.rows.map(\.values) == [[10, "r1"], [.null, "r2"], [30, "r3"]])
            #expect(try results.select("amount AS cachedAmount", "region").rows.map(\.values) == first.rows.map(\.values))
            // The statement of the same text runs the kept binding over every object.
            #expect(Set(try snapshot.rows(text).rows.map(\.values)) == Set(first.rows.map(\.values)))
            // A select without items keeps nothing: the plain query still answers objects.
            #expect(try results.select([String]()).columns.isEmpty)
            #expect(ParsedQueryCache.shared.binding("PagedSale", layout: snapshot.layout) == nil)
        }
    }
}
