import Foundation
import Testing
@testable import Trove

/// An aggregate statement run again without arguments reuses its binding: it answers for the
/// snapshot it runs on (writes between the runs show), for the schema of each store (another
/// schema with the same names binds again), and its errors are never kept. `min` and `max` of
/// an indexed integer or date read one end of the index then, and answer as the general path.
@Suite struct AggregateStatementCacheTests: SalesStoreSuite {
    static let model = "CachedSale"

    @Test func writesBetweenRunsShowInTheNextAnswer() throws {
        let store = try Self.store(#"{"type": "int?", "indexed": true}"#)
        let statements = ["min CachedSale.amount", "max CachedSale.amount", "sum CachedSale.amount", "avg CachedSale.amount where amount > 1",
                          "count CachedSale where region == 'north'", "sum CachedSale.amount where region == 'north'"]
        var answers: [[Value]] = []
        for round in 0..<3 {
            try store.write { (tx) throws in
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

    /// The statements whose cached binding reads an end of an index, and what the general path
    /// (`answer`, which keeps the plan) says of each.
    private static let ends = ["min CachedSale.amount", "max CachedSale.amount", "min CachedSale.id", "max CachedSale.id"]

    private static func endsAgree(_ snapshot: Snapshot) throws -> [Value] {
        try ends.map { statement in
            let general = try QueryExecutor(snapshot: snapshot).answer(statement, arguments: []).answer
            guard case .value(let expected) = general else { throw QueryError(.unexpectedToken, "not a value", at: .start, in: statement) }
            // Twice: the second run takes the cached binding's end of the index.
            for _ in 0..<2 { #expect(try snapshot.aggregate(statement) == expected, "\(statement)") }
            return expected
        }
    }

    @Test func indexEndsAnswerEmptyAllNullAndAfterWrites() throws {
        let store = try Self.store(#"{"type": "int?", "indexed": true}"#)
        #expect(try store.read { try Self.endsAgree($0) } == [.null, .null, .null, .null])
        try store.write { tx in for i in 1...3 { try tx.insert("CachedSale", ["id": .int(Int64(i)), "region": "r", "amount": .null]) } }
        #expect(try store.read { try Self.endsAgree($0) } == [.null, .null, .int(1), .int(3)])
        try store.write { (tx) throws in
            try tx.insert("CachedSale", ["id": -7, "region": "r", "amount": .int(Int64.min)])
            try tx.insert("CachedSale", ["id": 9, "region": "r", "amount": .int(Int64.max)])
            try tx.insert("CachedSale", ["id": 4, "region": "r", "amount": 0])
        }
        #expect(try store.read { try Self.endsAgree($0) } == [.int(Int64.min), .int(Int64.max), .int(-7), .int(9)])
        // Inside a write transaction, its own writes show.
        try store.write { (tx) throws in
            #expect(try tx.delete("CachedSale", primaryKey: 9))
            #expect(try tx.delete("CachedSale", primaryKey: -7))
            #expect(try Self.endsAgree(tx) == [.int(0), .int(0), .int(1), .int(4)])
        }
        #expect(try store.read { try Self.endsAgree($0) } == [.int(0), .int(0), .int(1), .int(4)])
        try store.write { tx in _ = try tx.deleteAll("CachedSale") }
        #expect(try store.read { try Self.endsAgree($0) } == [.null, .null, .null, .null])
    }

    @Test func indexEndsOfDatesAndOfAnotherSchema() throws {
        let dates = try Self.store(#"{"type": "date?", "indexed": true}"#)
        let plain = try Self.store(#""int?""#)
        let day = Date(timeIntervalSinceReferenceDate: 86_400)
        try dates.write { tx in
            try tx.insert("CachedSale", ["id": 1, "region": "r", "amount": .date(day)])
            try tx.insert("CachedSale", ["id": 2, "region": "r", "amount": .date(Date(timeIntervalSinceReferenceDate: -86_400))])
            try tx.insert("CachedSale", ["id": 3, "region": "r", "amount": .null])
        }
        try plain.write { tx in for i in 1...3 { try tx.insert("CachedSale", ["id": .int(Int64(i)), "region": "r", "amount": .int(Int64(10 * i))]) } }
        // The ends of an index answer where there is an index and no predicate.
        func end(_ store: Store, _ text: String) throws -> IndexEnd? {
            try store.read { snapshot in
                guard case .aggregate(let statement) = try QueryParser.parseStatement(text) else { return nil }
                return IndexEnd(try BoundAggregateStatement(statement, binder: QueryBinder(layout: snapshot.layout, arguments: [], statement: text)))
            }
        }
        #expect(try end(dates, "max CachedSale.amount") != nil)
        #expect(try end(dates, "min CachedSale.id") != nil)
        #expect(try end(plain, "max CachedSale.amount") == nil)
        #expect(try end(dates, "max CachedSale.amount where id > 1") == nil)
        for _ in 0..<2 {
            #expect(try dates.read { try Self.endsAgree($0) } == [.date(Date(timeIntervalSinceReferenceDate: -86_400)), .date(day), .int(1), .int(3)])
            // No index on amount: the same statements bind again and scan.
            #expect(try plain.read { try Self.endsAgree($0) } == [.int(10), .int(30), .int(1), .int(3)])
        }
    }
}
