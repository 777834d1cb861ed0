import Foundation
import Testing
@testable import Trove

/// Arguments a statement does not use are an error at every entry point of the Swift API
/// that takes them, as too few are: `$0` written twice for two values would otherwise give a
/// wrong answer silently.
@Suite struct QueryArgumentCountTests {
    static func error(_ body: (Snapshot) throws -> Any) throws -> QueryError? {
        let store = try QueryFixtures.smallStore()
        do {
            _ = try store.read { try body($0) }
            return nil
        } catch let error as QueryError {
            return error
        }
    }

    @Test func morePositionalArgumentsThanThePredicateUsesAreRefused() throws {
        let error = try #require(try Self.error { try $0.objects("Person", where: "age > $0", 30, 5) })
        #expect(error.kind == .invalidParameter)
        #expect(error.message == "2 arguments given, but the query takes 1 ($0)")
        #expect(error.column == 7)
        #expect(error.description == "2 arguments given, but the query takes 1 ($0) at column 7\n  age > $0\n        ^")
        let three = try #require(try Self.error { try $0.objects("Person", where: "age > $1 OR age < $0", arguments: [1, 2, 3]) })
        #expect(three.message == "3 arguments given, but the query takes 2 ($0 and $1)")
        #expect(three.column == 7)
        let none = try #require(try Self.error { try $0.objects("Person", where: "age > 3", 5) })
        #expect(none.message == "1 argument given, but the query has no parameter ($0, $1, ...)")
        // A gap is no extra: $1 needs $0 given, used or not.
        #expect(try Self.error { try $0.objects("Person", where: "age > $1", 5, 30) } == nil)
        // A parameter inside a list or a subquery counts.
        #expect(try Self.error { try $0.objects("Person", where: "age IN {$0, $2}", 1, 2, 36) } == nil)
        #expect(try Self.error { try $0.objects("Person", where: "SUBQUERY(dogs, $d, $d.age > $0).@count > 0", 1) } == nil)
        let inSubquery = try #require(try Self.error { try $0.objects("Person", where: "SUBQUERY(dogs, $d, $d.age > $0).@count > 0", 1, 2) })
        #expect(inSubquery.message == "2 arguments given, but the query takes 1 ($0)")
    }

    /// The second run of a predicate takes its cached template: the count is checked there too.
    @Test func aCachedPredicateChecksItsArgumentsToo() throws {
        let store = try QueryFixtures.smallStore()
        try store.read { (s) throws in
            #expect(try s.objects("Person", where: "age > $0 AND level >= $1", 1, 0).count == 3)
            #expect(throws: QueryError.self) { try s.objects("Person", where: "age > $0 AND level >= $1", 1, 0, 9) }
            #expect(try s.objects("Person", where: "name == $0", "Ada").count == 1)
            #expect(throws: QueryError.self) { try s.objects("Person", where: "name == $0", "Ada", "Bob") }
            #expect(throws: QueryError.self) { try s.objects("Person", where: "name == $0", "Ada", "Bob") }
            #expect(try s.objects("Person").filter("age > $0", 30).count == 2)
            #expect(throws: QueryError.self) { try s.objects("Person").filter("age > $0", 30, 1) }
        }
    }

    @Test func everyStatementEntryPointRefusesExtras() throws {
        let statements: [(String, (Snapshot) throws -> Any)] = [
            ("query", { try $0.query("Person where age > $0 SORT(age)", arguments: [1, 2]) }),
            ("rows", { try $0.rows("Person where age > $0 SELECT(name)", arguments: [1, 2]) }),
            ("group", { try $0.rows("Person where age > $0 GROUP(active) SELECT(active, @count)", arguments: [1, 2]) }),
            ("aggregate", { try $0.aggregate("sum Person.age where age > $0", arguments: [1, 2]) }),
            ("aggregate without predicate", { try $0.aggregate("max Person.age", arguments: [1]) }),
            ("answer", { try $0.answer("Person where age > $0", arguments: [1, 2]) }),
            ("explain", { try $0.explain("Person where age > $0", arguments: [1, 2]) }),
            ("request", { try ResultsRequest("Person", where: "age > $0", [1, 2]).results(in: $0) }),
        ]
        for (name, run) in statements {
            let error = try Self.error(run)
            #expect(error?.kind == .invalidParameter, "\(name): \(String(describing: error))")
        }
        #expect(try Self.error { try $0.aggregate("max Person.age", arguments: [1]) }?.message
                    == "1 argument given, but the query has no parameter ($0, $1, ...)")
        // Each takes the arguments it uses.
        let store = try QueryFixtures.smallStore()
        try store.read { (s) throws in
            #expect(try s.query("Person where age > $0", arguments: [30]).count == 2)
            #expect(try s.rows("Person where age > $0 SELECT(name)", arguments: [30]).count == 2)
            #expect(try s.aggregate("sum Person.age where age > $0", arguments: [30]) == .int(72))
        }
    }

    /// `ResultsRequest("Person", [30])` reads as a filter but has no `where:`: its arguments
    /// are extras, refused wherever the request is evaluated.
    @Test func aRequestWithArgumentsAndNoPredicateIsRefused() throws {
        let error = try #require(try Self.error { try ResultsRequest("Person", [30]).results(in: $0) })
        #expect(error.kind == .invalidParameter)
        #expect(error.message == "1 argument given, but the query has no parameter ($0, $1, ...)")
        let store = try QueryFixtures.smallStore()
        #expect(throws: QueryError.self) { try LiveResults(store: store, request: ResultsRequest("Person", [30])) }
        let controller = ResultsController(store: store, request: ResultsRequest("Person", [30]), queue: DispatchQueue(label: "test"))
        #expect(throws: QueryError.self) { try controller.performFetch() }
        #expect(try LiveResults(store: store, request: ResultsRequest("Person")).count == 4)
    }

    @Test func aWriteWhereGivenExtrasFailsAndChangesNothing() throws {
        let store = try QueryFixtures.smallStore()
        #expect(throws: QueryError.self) {
            try store.write { tx in _ = try tx.update("Person", where: "age > $0", arguments: [30, 1], set: ["level": 9]) }
        }
        #expect(throws: QueryError.self) {
            try store.write { tx in _ = try tx.delete("Person", where: "age > $0", arguments: [30, 1]) }
        }
        #expect(try store.read { try $0.objects("Person", where: "level == 9").count } == 0)
        #expect(try store.read { try $0.count("Person") } == 4)
    }

    @Test func aRunThatAllowsExtrasTakesThem() throws {
        let store = try QueryFixtures.smallStore()
        let count = try QueryParameters.allowingExtraArguments {
            try store.read { try $0.objects("Person", where: "age > $0", 30, "unused").count }
        }
        #expect(count == 2)
        #expect(throws: QueryError.self) { try store.read { try $0.objects("Person", where: "age > $0", 30, "unused") } }
    }
}
