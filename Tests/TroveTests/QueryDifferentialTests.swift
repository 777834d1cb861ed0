import Foundation
import Testing
@testable import Trove

/// The key property of the query engine: for thousands of random predicates over random data
/// (links, lists, inverse relationships, many nulls, Unicode strings), the planner and the
/// compiled evaluator return exactly what a plain reference evaluator finds by decoding every
/// object. Run against a store without indexes, one with indexes, and the indexed store with
/// the planner told to use every index it can.
@Suite struct QueryDifferentialTests {
    struct Engine {
        let store: Store
        let prefersIndexes: Bool
        let label: String
    }

    static func engines(seed: UInt64) throws -> [Engine] {
        let plain = try QueryFixtures.store(indexed: false, seed: seed)
        let indexed = try QueryFixtures.store(indexed: true, seed: seed)
        return [Engine(store: plain, prefersIndexes: false, label: "no indexes"),
                Engine(store: indexed, prefersIndexes: false, label: "indexes"),
                Engine(store: indexed, prefersIndexes: true, label: "every index")]
    }

    /// Runs `body` for each of `rounds` rounds, with a generator seeded from `seed`, `stride` and
    /// the round (so that a failure's seed and round rebuild it), the reference, and a snapshot of
    /// each engine held throughout. `body` records each failure and counts it in `failures`;
    /// the rounds stop once more than ten have failed.
    static func compare(seed: UInt64, stride: UInt64, rounds: Int,
                        _ body: (_ round: Int, _ generator: inout QueryPredicateGenerator, _ reference: ReferenceStore,
                                 _ engines: [(engine: Engine, snapshot: Snapshot)], _ failures: inout Int) throws -> Void) throws {
        let engines = try Self.engines(seed: seed)
        let reference = try engines[0].store.read { try ReferenceStore($0) }
        let snapshots = try engines.map { try $0.store.beginRead() }
        defer { snapshots.forEach { $0.end() } }
        let pairs = zip(engines, snapshots).map { (engine: $0, snapshot: $1) }
        var failures = 0
        for round in 0..<rounds {
            var generator = QueryPredicateGenerator(seed: seed &* stride &+ UInt64(round))
            // The generator may draw an argument for an operand it then writes as a literal:
            // these tests compare answers; QueryArgumentCountTests holds the count of arguments.
            try QueryParameters.allowingExtraArguments { try body(round, &generator, reference, pairs, &failures) }
            if failures > 10 { break }
        }
    }

    @Test(arguments: [UInt64(11), 12])
    func randomPredicatesAgreeWithTheReferenceEvaluator(seed: UInt64) throws {
        var selective = 0, indexPlans = 0
        let rounds = 1500
        try Self.compare(seed: seed, stride: 1_000_003, rounds: rounds) { _, generator, reference, engines, failures in
            let predicate = generator.predicate()
            let text = "Person where \(predicate.ast())"
            let expected = try reference.filter("Person", predicate)
            if !expected.isEmpty && expected.count < reference.order["Person"]!.count { selective += 1 }
            for (engine, snapshot) in engines {
                let got: [UInt64]
                do {
                    let (results, plan) = try QueryExecutor(snapshot: snapshot, prefersIndexes: engine.prefersIndexes)
                        .run(text, arguments: generator.arguments)
                    got = results.keys
                    if engine.prefersIndexes && !plan.indexes.isEmpty { indexPlans += 1 }
                } catch {
                    Issue.record("\(engine.label): \(text) \(generator.arguments) threw \(error)")
                    failures += 1
                    continue
                }
                if got != expected {
                    Issue.record("\(engine.label): \(text) \(generator.arguments)\n  got \(got)\n  expected \(expected)")
                    failures += 1
                }
            }
        }
        // The test is only as good as its predicates: most must select some objects but not
        // all, and many must run on indexes.
        #expect(selective > rounds / 3)
        #expect(indexPlans > rounds / 10)
    }

    @Test(arguments: [UInt64(21), 22])
    func randomStatementsSortDistinctOffsetAndLimitLikeTheReference(seed: UInt64) throws {
        try Self.compare(seed: seed, stride: 7_000_003, rounds: 400) { _, generator, reference, engines, failures in
            let predicate = generator.predicate(depth: 1)
            let (sort, distinct, offset, limit) = generator.clauses()
            let text = QueryPredicateGenerator.statement("Person", predicate, sort: sort, distinct: distinct, offset: offset, limit: limit)
            let expected = try reference.query("Person", predicate, sort: sort, distinct: distinct, offset: offset, limit: limit)
            for (engine, snapshot) in engines {
                let got = try QueryExecutor(snapshot: snapshot, prefersIndexes: engine.prefersIndexes)
                    .run(text, arguments: generator.arguments).results.keys
                if got != expected {
                    Issue.record("\(engine.label): \(text) \(generator.arguments)\n  got \(got)\n  expected \(expected)")
                    failures += 1
                }
            }
        }
    }

    /// `Results.sorted(by:)`, `distinct(by:)`, `offset(_:)` and `prefix(limit:)` over the objects a
    /// predicate found refine them as the statement's clauses would.
    @Test(arguments: [UInt64(31)])
    func refinedResultsAgreeWithTheReference(seed: UInt64) throws {
        try Self.compare(seed: seed, stride: 5_000_011, rounds: 200) { _, generator, reference, engines, failures in
            let predicate = generator.predicate(depth: 1)
            let (sort, distinct, offset, limit) = generator.clauses()
            let expected = try reference.query("Person", predicate, sort: sort, distinct: distinct, offset: offset, limit: limit)
            for (engine, snapshot) in engines {
                var results = try snapshot.objects("Person", where: predicate.ast().description, arguments: generator.arguments)
                if !sort.isEmpty { results = try results.sorted(by: sort.map { SortKey($0.0.joined(separator: "."), ascending: $0.1) }) }
                if !distinct.isEmpty { results = try results.distinct(by: distinct.map { $0.joined(separator: ".") }) }
                results = results.offset(offset)
                if let limit { results = results.prefix(limit: limit) }
                if results.keys != expected {
                    Issue.record("\(engine.label): \(predicate.ast()) \(sort) \(distinct) \(String(describing: limit))\n  got \(results.keys)\n  expected \(expected)")
                    failures += 1
                }
            }
        }
    }

    /// Projections, the aggregate statements and grouped queries: every engine answers what
    /// the reference finds, on the first run and on a rerun (which reuses a cached binding when
    /// the statement has no arguments). Failures name the seed and round that rebuild them.
    @Test(arguments: [UInt64(71), 72])
    func randomQuestionsAgreeWithTheReference(seed: UInt64) throws {
        var forms: [String: Int] = [:], answered = 0
        let rounds = 250
        try Self.compare(seed: seed, stride: 9_000_011, rounds: rounds) { round, generator, reference, engines, failures in
            let question = generator.question()
            let text = question.text
            let expected = try question.answer(reference)
            forms[question.formName, default: 0] += 1
            if case .rows(let rows) = expected, !rows.rows.isEmpty { answered += 1 }
            if case .value(let value) = expected, !value.isNull { answered += 1 }
            for (engine, snapshot) in engines {
                for run in 1...(generator.arguments.isEmpty ? 2 : 1) {
                    let got: QueryAnswer
                    do {
                        got = try QueryExecutor(snapshot: snapshot, prefersIndexes: engine.prefersIndexes)
                            .answer(text, arguments: generator.arguments).answer
                    } catch {
                        Issue.record("seed \(seed) round \(round) \(engine.label) run \(run): \(text) \(generator.arguments) threw \(error)")
                        failures += 1
                        break
                    }
                    if let difference = Self.difference(got, expected) {
                        Issue.record("seed \(seed) round \(round) \(engine.label) run \(run): \(text) \(generator.arguments)\n\(difference)")
                        failures += 1
                        break
                    }
                }
            }
        }
        // Every form is asked, and most questions have something to answer.
        for form in ["projection", "count", "sum", "avg", "min", "max", "group"] { #expect(forms[form, default: 0] > rounds / 30, "\(forms)") }
        #expect(answered > rounds * 2 / 3)
    }

    /// What differs between the engine's answer and the reference's, or nil. Numbers compare
    /// by value (an integer average may be a double; sums of doubles in another order round
    /// apart), so do rows' names, and a projected row's object.
    static func difference(_ got: QueryAnswer, _ expected: RefQuestion.Answer) -> String? {
        switch (got, expected) {
        case (.value(let value), .value(let want)):
            return ReferenceStore.same(value, want) ? nil : "  got      \(value)\n  expected \(want)"
        case (.rows(let rows), .rows(let want)):
            if rows.columns != want.names || rows.rows.contains(where: { $0.names != want.names }) {
                return "  got columns      \(rows.columns)\n  expected columns \(want.names)"
            }
            let objects = rows.rows.compactMap { row -> UInt64? in if case .object(let o) = row.identity { o.key } else { nil } }
            if let wanted = want.objects, objects != wanted {
                return "  got objects      \(objects)\n  expected objects \(wanted)"
            }
            if rows.rows.count != want.rows.count {
                return "  got \(rows.rows.count) rows, expected \(want.rows.count)\n  got      \(rows.rows.map(\.values))\n  expected \(want.rows)"
            }
            for (i, (a, b)) in zip(rows.rows, want.rows).enumerated()
            where a.values.count != b.count || !zip(a.values, b).allSatisfy({ ReferenceStore.same($0, $1) }) {
                return "  row \(i) of \(want.rows.count):\n  got      \(a.values)\n  expected \(b)"
            }
            return nil
        case (.objects, _), (.value, _), (.rows, _):
            return "  got      \(got)\n  expected \(expected)"
        }
    }

    @Test func printedPredicatesParseBackToTheSameTree() throws {
        for round in 0..<500 {
            var generator = QueryPredicateGenerator(seed: UInt64(round))
            let ast = generator.predicate().ast()
            #expect(try QueryParser.parsePredicate(ast.description) == ast)
        }
    }
}
