import Foundation
import Testing
@testable import Trove
import TestRandom

/// The plans that answer questions from an index (aggregates from its keys or ends, counts
/// from its entries, groups from its runs, pages in its order) against the plain scan path:
/// the same random data (nulls, Unicode and cut strings, empty models) in a
/// store without indexes and one with, the planner left alone and told to use every index.
@Suite struct QuestionPlanDifferentialTests {
    static func schema(indexed: Bool) throws -> Schema {
        let i = indexed ? "true" : "false"
        return try schemaFromJSON("""
        {"schemaVersion": 0, "models": [
          {"name": "Reading", "primaryKey": "id", "properties": {
            "id": "int",
            "n": {"type": "int?", "indexed": \(i)},
            "small": {"type": "int8", "indexed": \(i)},
            "d": "double?",
            "f": "float?",
            "t": {"type": "date?", "indexed": \(i)},
            "s": {"type": "string?", "indexed": \(i)},
            "code": {"type": "string", "indexed": \(i)},
            "b": {"type": "bool", "indexed": \(i)},
            "m": "decimal?",
            "u": {"type": "uuid?", "indexed": \(i)},
            "plain": "int?"}},
          {"name": "Empty", "primaryKey": "id", "properties": {
            "id": "int", "n": {"type": "int?", "indexed": \(i)}, "s": {"type": "string?", "indexed": \(i)}}}
        ]}
        """)
    }

    static let doubles: [Double] = [-2.5, -0.0, 0, 0.1, 1, 1.5, 7.25, 100, -1e300]
    static let strings = ["ada", "Ada", "bob", "zed", "", "école", "e\u{301}cole", "naïve", "a b", String(repeating: "L", count: 420)]
    static let asciiStrings = ["ada", "Ada", "bob", "zed", "", "a b", "mid"]
    static let uuids = ["E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "00000000-0000-0000-0000-000000000001"].map { UUID(uuidString: $0)! }

    /// The same objects for the same seed; `unicode` mixes non-ASCII and cut strings into `s`.
    static func store(indexed: Bool, seed: UInt64, count: Int, unicode: Bool) throws -> Store {
        let store = try Store(configuration: .inMemory(schema: try schema(indexed: indexed)))
        var rng = SplitMix64(seed: seed)
        try store.write { tx in
            for id in 0..<count {
                func maybe(_ value: Value) -> Value { rng.chance(25) ? .null : value }
                try tx.insert("Reading", [
                    "id": .int(Int64(id * 7 % 1000)),
                    "n": maybe(.int(Int64(rng.int(40) - 10))),
                    "small": .int(Int64(rng.int(9) - 4)),
                    "d": maybe(.double(rng.pick(doubles))),
                    "f": maybe(.float(Float(rng.pick(doubles.dropLast())))),
                    "t": maybe(.date(Date(timeIntervalSince1970: Double(rng.int(20)) * 3600.5))),
                    "s": maybe(.string(rng.pick(unicode ? strings : asciiStrings))),
                    "code": .string("c\(rng.int(12))"),
                    "b": .bool(rng.chance(50)),
                    "m": maybe(.decimal(Decimal(rng.int(50)) / 4)),
                    "u": maybe(.uuid(rng.pick(uuids))),
                    "plain": maybe(.int(Int64(rng.int(30)))),
                ])
            }
        }
        return store
    }

    struct Engine {
        let snapshot: Snapshot
        let prefersIndexes: Bool
        let label: String
    }

    /// Runs `body` with the engines over one data set: no indexes first (the reference).
    static func withEngines(seed: UInt64, count: Int, unicode: Bool, _ body: ([Engine]) throws -> Void) throws {
        let plain = try store(indexed: false, seed: seed, count: count, unicode: unicode)
        let indexed = try store(indexed: true, seed: seed, count: count, unicode: unicode)
        let snapshots = [try plain.beginRead(), try indexed.beginRead()]
        defer { snapshots.forEach { $0.end() } }
        try body([Engine(snapshot: snapshots[0], prefersIndexes: false, label: "no indexes"),
                  Engine(snapshot: snapshots[1], prefersIndexes: false, label: "indexes"),
                  Engine(snapshot: snapshots[1], prefersIndexes: true, label: "every index")])
    }

    /// What a statement answers, as text that tells -0 from 0 and NaN from null.
    static func answer(_ text: String, _ engine: Engine) throws -> (text: String, plan: QueryPlan) {
        let (answer, plan) = try QueryExecutor(snapshot: engine.snapshot, prefersIndexes: engine.prefersIndexes).answer(text, arguments: [])
        switch answer {
        case .value(let value): return ("\(value)", plan)
        case .rows(let rows): return (rows.columns.description + rows.map { "\($0.values) \($0.identity)" }.description, plan)
        case .objects(let results): return (results.keys.description, plan)
        }
    }

    /// Runs each statement on every engine and expects the answers of the first; returns how
    /// many plans had a step holding each of `markers`.
    @discardableResult
    static func expectAgreement(_ statements: [String], _ engines: [Engine], markers: [String],
                                tolerance: (String) -> Bool = { _ in false }) throws -> [String: Int] {
        var onIndexes: [String: Int] = [:]
        var failures = 0
        for text in statements {
            let expected = try answer(text, engines[0]).text
            for engine in engines.dropFirst() {
                let (got, plan) = try answer(text, engine)
                for marker in markers where plan.steps.contains(where: { $0.contains(marker) }) { onIndexes[marker, default: 0] += 1 }
                if got == expected { continue }
                if tolerance(text), let x = Double(got), let y = Double(expected), abs(x - y) <= 1e-9 * max(1, abs(y)) { continue }
                Issue.record("\(engine.label): \(text)\n  got      \(got)\n  expected \(expected)\n\(plan)")
                failures += 1
            }
            if failures > 10 { break }
        }
        return onIndexes
    }

    static let predicates: [String?] = [
        nil, "n > 5", "n >= -3 AND n < 12", "n == 7", "n IN {1, 2, 30}", "n == nil", "n BETWEEN {0, 4}",
        "d > 0", "d <= 0", "d == 0", "d == nil", "f < 1", "t > '1970-01-01T20:00:00Z'", "small > 0", "small == -4",
        "s == 'bob'", "s BEGINSWITH 'a'", "code == 'c3'", "code IN {'c1', 'c2', 'c5'}", "b == true", "m > 3",
        "plain > 10", "n > 5 AND plain > 10", "n == 7 OR s == 'ada'", "id > 500", "id BETWEEN {100, 300}", "FALSEPREDICATE",
    ]

    static func clause(_ predicate: String?) -> String { predicate.map { " where \($0)" } ?? "" }

    @Test(arguments: [(UInt64(41), 300, false), (42, 300, true), (43, 0, false), (44, 1, true)])
    func aggregatesAndCountsAgreeWithTheScan(seed: UInt64, count: Int, unicode: Bool) throws {
        try Self.withEngines(seed: seed, count: count, unicode: unicode) { engines in
            var statements: [String] = []
            for predicate in Self.predicates {
                statements.append("count Reading" + Self.clause(predicate))
                for function in ["sum", "avg", "min", "max"] {
                    for property in ["n", "small", "d", "f", "m", "id", "plain"] + (function.count == 3 && function.hasPrefix("m") ? ["t"] : []) {
                        statements.append("\(function) Reading.\(property)" + Self.clause(predicate))
                    }
                }
            }
            statements += ["count Empty", "count Empty where n > 1", "sum Empty.n", "avg Empty.n", "min Empty.n where n > 3", "max Empty.id"]
            // Doubles summed in index order round apart from key order.
            let markers = ["from the index entries", "adds the index keys", "reads one end of the index"]
            let used = try Self.expectAgreement(statements, engines, markers: markers) { $0.hasPrefix("sum") || $0.hasPrefix("avg") }
            if count > 1 { for marker in markers { #expect(used[marker, default: 0] > 20, "\(marker): \(used)") } }
        }
    }

    @Test(arguments: [(UInt64(51), 300, false), (52, 300, true), (53, 0, false), (54, 2, true)])
    func groupsAgreeWithTheScan(seed: UInt64, count: Int, unicode: Bool) throws {
        try Self.withEngines(seed: seed, count: count, unicode: unicode) { engines in
            var rng = SplitMix64(seed: seed)
            var statements: [String] = []
            for key in ["n", "small", "d", "f", "t", "s", "code", "b", "u", "m", "id", "plain"] {
                for predicate in Self.predicates where rng.chance(40) || predicate == nil {
                    var text = "Reading" + Self.clause(predicate) + " GROUP(\(key))"
                    switch rng.int(3) {
                    case 0: break
                    case 1: text += " SELECT(\(key), @count AS c)"
                    default: text += " SELECT(@count, \(key) AS k, @sum.n, @avg.d, @min.t, @max.f)"
                    }
                    if rng.chance(30) { text += rng.chance(50) ? " SORT(@count DESC)" : " SORT(\(key) DESC)" }
                    if rng.chance(30) { text += " OFFSET(\(rng.int(4)))" }
                    if rng.chance(40) { text += " LIMIT(\(rng.int(5)))" }
                    statements.append(text)
                }
            }
            statements += ["Empty GROUP(n)", "Empty GROUP(s) SELECT(s, @count) LIMIT(2)"]
            let used = try Self.expectAgreement(statements, engines, markers: ["in GROUP order"])
            if count > 1 { #expect(used["in GROUP order", default: 0] > 20, "\(used)") }
        }
    }

    @Test(arguments: [(UInt64(61), 300, false), (62, 300, true), (63, 0, false)])
    func pagesAndProjectionsAgreeWithTheScan(seed: UInt64, count: Int, unicode: Bool) throws {
        try Self.withEngines(seed: seed, count: count, unicode: unicode) { engines in
            var rng = SplitMix64(seed: seed)
            var statements: [String] = []
            for key in ["id", "n", "small", "d", "f", "t", "s", "code", "b", "u", "m", "plain"] {
                for _ in 0..<8 {
                    var text = "Reading SORT(\(key) \(rng.chance(50) ? "ASC" : "DESC"))"
                    if rng.chance(60) { text += " OFFSET(\(rng.int(count + 5)))" }
                    if rng.chance(70) { text += " LIMIT(\(rng.int(40)))" }
                    if rng.chance(50) { text += " SELECT(id AS i, \(key), s AS name)" }
                    statements.append(text)
                }
            }
            statements += ["Empty SORT(n) OFFSET(3) LIMIT(2)", "Empty SORT(id DESC) SELECT(id)",
                           "Reading where n > 3 LIMIT(5) SELECT(s, n)", "Reading SELECT(code, d)"]
            let used = try Self.expectAgreement(statements, engines, markers: ["in SORT order"])
            if count > 1 { #expect(used["in SORT order", default: 0] > statements.count / 2, "\(used)") }
        }
    }

    /// Predicates on the SORT key: the index's keys decide most of them, and then the walk of
    /// its ranges gives the page (OFFSET skipping entries); the others take the general path.
    static let sortKeyPredicates: [String: [String]] = [
        "id": ["id > 500", "id BETWEEN {100, 300}", "id == 7", "id IN {7, 14, 21, 700}", "id >= 100 AND id < 400"],
        "n": ["n > 5", "n >= -3 AND n < 12", "n == 7", "n IN {1, 2, 30}", "n == nil", "n BETWEEN {0, 4}", "n < 3", "n > 5 AND n > 8"],
        "small": ["small > 0", "small == -4", "small <= 1", "small IN {-4, 4}"],
        "t": ["t > '1970-01-01T20:00:00Z'", "t == nil", "t == '1970-01-01T01:00:00.5Z'"],
        "s": ["s == 'bob'", "s BEGINSWITH 'a'", "s > 'b'", "s >= 'a' AND s < 'n'", "s == nil", "s IN {'ada', 'zed'}"],
        "code": ["code == 'c3'", "code IN {'c1', 'c2', 'c5'}", "code > 'c5'", "code BEGINSWITH 'c1'"],
        "b": ["b == true", "b == false"],
        "u": ["u == nil", "u == 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'"],
        "d": ["d > 0", "d == 0"],
        "plain": ["plain > 10"],
    ]

    @Test(arguments: [(UInt64(71), 300, false), (72, 300, true), (73, 0, false), (74, 3, true)])
    func filteredPagesInIndexOrderAgreeWithTheScan(seed: UInt64, count: Int, unicode: Bool) throws {
        try Self.withEngines(seed: seed, count: count, unicode: unicode) { engines in
            var rng = SplitMix64(seed: seed)
            var statements: [String] = []
            for (key, predicates) in Self.sortKeyPredicates.sorted(by: { $0.key < $1.key }) {
                // A predicate on another property leaves the order to the general path.
                for predicate in predicates + ["code == 'c4'", "n > 5 AND plain > 10"] {
                    for _ in 0..<3 {
                        var text = "Reading where \(predicate) SORT(\(key) \(rng.chance(50) ? "ASC" : "DESC"))"
                        if rng.chance(70) { text += " OFFSET(\(rng.int(count / 2 + 5)))" }
                        if rng.chance(70) { text += " LIMIT(\(rng.int(30)))" }
                        if rng.chance(40) { text += " SELECT(id AS i, \(key))" }
                        statements.append(text)
                    }
                }
            }
            let used = try Self.expectAgreement(statements, engines, markers: ["in SORT order", "skips index entries"])
            if count > 1 {
                #expect(used["in SORT order", default: 0] > statements.count / 3, "\(used)")
                #expect(used["skips index entries", default: 0] > 20, "\(used)")
            }
        }
    }

    @Test func aPageOfAPredicateTheIndexDecidesSkipsEntriesAndReadsNoRecord() throws {
        let store = try Self.store(indexed: true, seed: 7, count: 400, unicode: false)
        let plain = try Self.store(indexed: false, seed: 7, count: 400, unicode: false)
        // Backwards, the run of equal values the page ends in is read whole, to turn it around.
        for (text, examined) in [("Reading where n > 5 SORT(n) OFFSET(50) LIMIT(5)", 55...55),
                                 ("Reading where n > 5 SORT(n DESC) OFFSET(50) LIMIT(5)", 55...75),
                                 ("Reading where id >= 100 AND id < 900 SORT(id) OFFSET(40) LIMIT(3) SELECT(id, n)", 43...43)] {
            let (answer, plan) = try store.read { try Self.answer(text, Engine(snapshot: $0, prefersIndexes: false, label: "indexes")) }
            let expected = try plain.read { try Self.answer(text, Engine(snapshot: $0, prefersIndexes: false, label: "no indexes")).text }
            #expect(answer == expected, "\(text)")
            // The entries skipped and taken, and no other: no record is read for them.
            #expect(examined.contains(plan.examinedRows), "\(text)\n\(plan)")
            #expect(plan.isDecidedByIndex)
            #expect(plan.steps.contains { $0.hasSuffix("in SORT order)") }, "\(plan)")
            #expect(plan.steps.contains { $0.hasPrefix("FILTER") && $0.hasSuffix("(decided by the index)") }, "\(plan)")
            #expect(plan.steps.contains { $0.hasSuffix("(the index's order: nothing sorted)") }, "\(plan)")
            #expect(plan.steps.contains { $0.hasSuffix("(skips index entries, reads no object)") }, "\(plan)")
        }
        try store.read { snapshot in
            let page = try snapshot.explain("Reading where n > 5 SORT(n) OFFSET(50) LIMIT(5)")
            #expect(page.steps == ["SEARCH Reading USING INDEX n (n > 5, in SORT order)", "FILTER n > 5 (decided by the index)",
                                   "SORT n ASC (the index's order: nothing sorted)", "OFFSET 50 (skips index entries, reads no object)",
                                   "LIMIT 5 (stops early)"])
            // Keys that do not decide the predicate (doubles may hold NaN) leave it to the general path.
            #expect(try snapshot.explain("Reading where d > 0 SORT(d) OFFSET(5) LIMIT(5)").steps.allSatisfy { !$0.contains("in SORT order") })
        }
    }

    @Test func explainNamesEachIndexPlan() throws {
        let store = try Self.store(indexed: true, seed: 7, count: 200, unicode: false)
        try store.read { snapshot in
            func steps(_ text: String) throws -> String { try snapshot.explain(text).steps.joined(separator: "\n") }
            #expect(try steps("count Reading where n == 7").contains("COUNT (from the index entries, reads no object)"))
            #expect(try steps("count Reading").contains("COUNT Reading (the count its objects tree keeps, reads no record)"))
            #expect(try steps("min Reading.n").contains("MIN n (reads one end of the index: its first non-null entry)"))
            #expect(try steps("max Reading.t where t > '1970-01-01T02:00:00Z'").contains("MAX t (reads one end of the index: its last non-null entry)"))
            #expect(try steps("avg Reading.n").contains("AVG n (adds the index keys, reads no object)"))
            #expect(try steps("sum Reading.n where n > 3").contains("SEARCH Reading USING INDEX n (n > 3)"))
            let group = try steps("Reading GROUP(code) SELECT(code, @count)")
            #expect(group.contains("SCAN Reading USING INDEX code (in GROUP order)"))
            #expect(group.contains("GROUP code (the index's runs of equal keys: nothing hashed or sorted, reads no object)"))
            let page = try snapshot.explain("Reading SORT(id) OFFSET(50) LIMIT(5) SELECT(id, n)")
            #expect(page.steps.contains("OFFSET 50 (skips index entries, reads no object)"))
            #expect(page.steps.contains("SORT id ASC (the index's order: nothing sorted)"))
            #expect(page.steps.contains { $0.hasPrefix("SELECT id, n (decodes only the selected properties)") })
            #expect(page.examinedRows == 55)
            // One end of the index: past the nulls to the first value.
            let minimum = try snapshot.explain("min Reading.n")
            #expect(minimum.examinedRows == 1)
            #expect(try snapshot.explain("max Reading.t").examinedRows == 1)
        }
    }
}
