import Foundation
import Testing
@testable import Trove

/// A date's index key is its seconds as an order-preserving double, exactly: the keys decide
/// ranges of dates, so no record is read to check them, and a NaN date (which the Swift API
/// can store) falls outside every range, as no comparison accepts it.
@Suite struct DateRangeIndexTests {
    static func date(_ seconds: Double) -> Value { .date(Date(timeIntervalSince1970: seconds)) }

    /// The differential's data plus dates at the edges: NaN of either sign, the infinities, -0.
    static func store(indexed: Bool) throws -> Store {
        let store = try QuestionPlanDifferentialTests.store(indexed: indexed, seed: 11, count: 300, unicode: false)
        let edges: [Double] = [.nan, -.nan, .infinity, -.infinity, -0.0, 0]
        try store.write { tx in
            for (i, seconds) in edges.enumerated() {
                let t = Date(timeIntervalSinceReferenceDate: seconds)
                try tx.insert("Reading", ["id": .int(Int64(2000 + i)), "small": 0, "code": "c0", "b": false, "t": .date(t)])
            }
        }
        return store
    }

    static let statements: [(String, [Value])] = [
        ("Reading where t > $0", [date(7200)]),
        ("Reading where t >= $0", [date(7200)]),
        ("Reading where t < $0", [date(36000)]),
        ("Reading where t <= $0", [date(36000)]),
        ("Reading where t BETWEEN {$0, $1}", [date(3600), date(40000)]),
        ("Reading where t > $0 AND t < $1", [date(0), date(20000)]),
        ("Reading where t >= $0", [.date(Date(timeIntervalSinceReferenceDate: 0))]),
        ("Reading where t > $0", [.date(Date(timeIntervalSinceReferenceDate: -.infinity))]),
        ("Reading where t < $0", [.date(Date(timeIntervalSinceReferenceDate: .infinity))]),
        ("Reading where t <= $0", [.date(Date(timeIntervalSinceReferenceDate: .infinity))]),
        ("Reading where t < $0", [.date(Date(timeIntervalSinceReferenceDate: .nan))]),
        ("Reading where t >= $0", [.date(Date(timeIntervalSinceReferenceDate: .nan))]),
        ("Reading where t BETWEEN {$0, $1}", [date(0), .date(Date(timeIntervalSinceReferenceDate: .nan))]),
    ]

    @Test func dateRangesAgreeWithTheScanAndAreDecidedByTheKeys() throws {
        let plain = try Self.store(indexed: false), indexed = try Self.store(indexed: true)
        for (text, arguments) in Self.statements {
            let expected = try plain.read { try $0.query(text, arguments: arguments).ids.sorted() }
            let count = try plain.read { try $0.aggregate("count " + text, arguments: arguments) }
            try indexed.read { snapshot in
                for prefersIndexes in [false, true] {
                    let executor = QueryExecutor(snapshot: snapshot, prefersIndexes: prefersIndexes)
                    let (results, plan) = try executor.run(text, arguments: arguments)
                    #expect(results.ids.sorted() == expected, "\(text) \(arguments) \(prefersIndexes)")
                    let (answer, countPlan) = try executor.answer("count " + text, arguments: arguments)
                    guard case .value(let counted) = answer else { Issue.record("count: not a value"); continue }
                    #expect(counted == count, "count \(text) \(arguments)")
                    if prefersIndexes, !expected.isEmpty {
                        #expect(plan.isDecidedByIndex, "\(text)\n\(plan)")
                        #expect(countPlan.steps.contains("COUNT (from the index entries, reads no object)"), "\(countPlan)")
                    }
                }
            }
        }
    }

    /// A page in the index's order over a date range skips entries and reads no record to check them.
    @Test func explainShowsADateRangeDecidedByTheIndex() throws {
        let store = try Self.store(indexed: true)
        try store.read { snapshot in
            let page = try snapshot.explain("Reading where t > '1970-01-01T02:00:00Z' SORT(t) OFFSET(5) LIMIT(5)")
            #expect(page.isDecidedByIndex)
            #expect(page.steps.contains { $0.hasPrefix("SEARCH Reading USING INDEX t") && $0.hasSuffix("in SORT order)") }, "\(page)")
            #expect(page.steps.contains { $0.hasPrefix("FILTER") && $0.hasSuffix("(decided by the index)") }, "\(page)")
            #expect(page.steps.contains("OFFSET 5 (skips index entries, reads no object)"), "\(page)")
            let count = try snapshot.explain("count Reading where t >= '1970-01-01T03:00:00Z'")
            #expect(count.steps.contains("COUNT (from the index entries, reads no object)"), "\(count)")
        }
    }
}
