import Foundation
import Testing
@testable import Trove

/// An aggregate statement run again without arguments reuses its binding: it answers for the
/// snapshot it runs on (writes between the runs show), for the schema of each store (another
/// schema with the same names binds again), and its errors are never kept.
@Suite struct AggregateStatementCacheTests {
    static func store(_ amount: String) throws -> Store {
        try Store(configuration: .inMemory(schema: try schemaFromJSON("""
        {"schemaVersion": 0, "models": [{"name": "CachedSale", "primaryKey": "id", "properties": {
          "id": "int", "region": {"type": "string", "indexed": true}, "amount": \(amount)}}]}
        """)))
    }

    @Test func writesBetweenRunsShowInTheNextAnswer() throws {
        let store = try Self.store(#"{"type": "int?", "indexed": true}"#)
        let statements = ["min CachedSale.amount", "max CachedSale.amount", "sum CachedSale.amount", "avg CachedSale.amount where amount > 1",
                          "count CachedSale where region == 'north'", "sum CachedSale.amount where region == 'north'"]
        var answers: [[Value]] = []
        for round in 0..<3 {
            try store.write { tx in
                try tx.insert("CachedSale", ["id": .int(Int64(round)), "region": "north", "amount": .int(Int64(10 * round - 5))])
                try tx.insert("CachedSale", ["id": .int(Int64(100 + round)), "region": "south", "amount": .null])
            }
            answers.append(try store.read { snapshot in try statements.map { try snapshot.aggregate($0) } })
        }
        #expect(answers[0] == [.int(-5), .int(-5), .int(-5), .null, .int(1), .int(-5)])
        #expect(answers[1] == [.int(-5), .int(5), .int(0), .double(5), .int(2), .int(0)])
        #expect(answers[2] == [.int(-5), .int(15), .int(15), .double(10), .int(3), .int(15)])
        // The same statements in one snapshot, run twice, answer the same.
        try store.read { (snapshot) throws in
            for statement in statements {
                let first = try snapshot.aggregate(statement)
                #expect(try snapshot.aggregate(statement) == first)
            }
        }
    }

    @Test func anotherSchemaWithTheSameNamesBindsAgain() throws {
        let indexed = try Self.store(#"{"type": "int?", "indexed": true}"#)
        let doubles = try Self.store(#""double""#)
        let strings = try Self.store(#""string""#)
        try indexed.write { tx in for i in 1...3 { try tx.insert("CachedSale", ["id": .int(Int64(i)), "region": "r", "amount": .int(Int64(i))]) } }
        try doubles.write { tx in for i in 1...3 { try tx.insert("CachedSale", ["id": .int(Int64(i)), "region": "r", "amount": .double(Double(i) / 2)]) } }
        try strings.write { tx in try tx.insert("CachedSale", ["id": 1, "region": "r", "amount": "a"]) }
        for _ in 0..<2 {
            #expect(try indexed.read { try $0.aggregate("max CachedSale.amount") } == .int(3))
            #expect(try doubles.read { try $0.aggregate("max CachedSale.amount") } == .double(1.5))
            #expect(try indexed.read { try $0.aggregate("sum CachedSale.amount") } == .int(6))
            #expect(try doubles.read { try $0.aggregate("sum CachedSale.amount") } == .double(3))
            // Not bound for this schema: the error each time, never another schema's answer.
            #expect(throws: QueryError.self) { try strings.read { try $0.aggregate("sum CachedSale.amount") } }
        }
    }

    @Test func aStatementNeedingArgumentsFailsEachTimeWithoutThem() throws {
        let store = try Self.store(#""int""#)
        for _ in 0..<2 {
            #expect(throws: QueryError.self) { try store.read { try $0.aggregate("sum CachedSale.amount where amount > $0") } }
            #expect(try store.read { try $0.aggregate("sum CachedSale.amount where amount > $0", arguments: [0]) } == .int(0))
        }
    }
}
