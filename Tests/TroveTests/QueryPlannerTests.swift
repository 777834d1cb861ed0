import Foundation
import Testing
@testable import Trove

/// `explain` shows the access path the planner chose (primary key, index, union of lookups,
/// scan) with estimated, examined and returned rows; every plan returns what a scan returns.
@Suite struct QueryPlannerTests {
    static func plan(_ statement: String, store: Store) throws -> QueryPlan {
        try store.read { try $0.explain(statement) }
    }

    @Test func equalityOnThePrimaryKeyIsALookup() throws {
        let plan = try Self.plan("Person where id == 2", store: try QueryFixtures.smallStore())
        #expect(plan.access == .primaryKey(property: "id"))
        #expect(plan.estimatedRows == 1)
        #expect(plan.actualRows == 1)
        #expect(plan.description.contains("SEARCH Person USING PRIMARY KEY id (id == 2)"))
        let many = try Self.plan("Person where id IN {1, 2, 999}", store: try QueryFixtures.store(indexed: true))
        #expect(many.access == .primaryKey(property: "id"))
        #expect(many.estimatedRows == 3)
        #expect(many.actualRows == 2)
    }

    @Test func theMostSelectiveIndexOfAConjunctionIsUsed() throws {
        let store = try QueryFixtures.smallStore()
        let plan = try Self.plan("Person where age > 30 AND name == 'Bob' AND nick == nil", store: store)
        #expect(plan.access == .index(property: "name"))
        #expect(plan.examinedRows == 1)
        #expect(plan.description.contains("SEARCH Person USING INDEX name"))
        #expect(plan.description.contains("FILTER"))
    }

    @Test func aDisjunctionOfIndexedTermsIsAUnion() throws {
        let store = try QueryFixtures.store(indexed: true, seed: 5)
        let statement = "Person where name == 'Bob' OR id == 3 OR (age == 7 AND nick != nil)"
        let plan = try Self.plan(statement, store: store)
        #expect(plan.access == .union([.index(property: "name"), .primaryKey(property: "id"), .index(property: "age")]))
        #expect(plan.indexes == ["name", "id", "age"])
        #expect(plan.description.contains("UNION OF 3 LOOKUPS"))
        let viaScan = try QueryFixtures.store(indexed: false, seed: 5).read { try $0.query(statement).ids }
        #expect(try store.read { try $0.query(statement).ids } == viaScan)
        #expect(plan.actualRows == viaScan.count)
    }

    @Test func unindexedOrUnselectivePredicatesScan() throws {
        let store = try QueryFixtures.smallStore()
        #expect(try Self.plan("Person where nick CONTAINS 'a'", store: store).isScan)
        #expect(try Self.plan("Person where name == 'Bob' OR nick == 'ada'", store: store).isScan)
        #expect(try Self.plan("Person where age == 36", store: try QueryFixtures.smallStore(indexed: false)).isScan)
        let all = try Self.plan("Person", store: store)
        #expect(all.isScan)
        #expect(all.estimatedRows == 4)
    }

    @Test func aComparisonThroughAToOneLinkStartsFromTheLinkedObjects() throws {
        // 120 people, 60 dogs, 8 vets: few vets match, and the backlink index leads to their dogs.
        let store = try QueryFixtures.store(indexed: true, seed: 11)
        let statement = "Dog where vet.name == 'vet3'"
        let plan = try Self.plan(statement, store: store)
        #expect(plan.access == .backlinks(link: "vet"))
        #expect(plan.description.contains("SEARCH Dog USING BACKLINKS OF vet"))
        let viaScan = try QueryFixtures.store(indexed: false, seed: 11).read { s in
            try s.objects("Dog").filter { try $0.object("vet")?.string("name") == "vet3" }.map { try $0.int("id")! }
        }
        #expect(try store.read { try $0.query(statement).map { try $0.int("id")! } } == viaScan)
        #expect(plan.examinedRows == viaScan.count)
        // Alone, the comparison is decided by the backlinks; with another condition each candidate is checked.
        #expect(plan.description.contains("(decided by the index)"))
        let combined = "Dog where vet.name == 'vet3' AND id > 30"
        let combinedPlan = try Self.plan(combined, store: store)
        #expect(combinedPlan.access == .backlinks(link: "vet"))
        #expect(!combinedPlan.description.contains("(decided by the index)"))
        let combinedViaScan = try QueryFixtures.store(indexed: false, seed: 11).read { try $0.query(combined).map { try $0.int("id")! } }
        #expect(try store.read { try $0.query(combined).map { try $0.int("id")! } } == combinedViaScan)
        // A comparison that is true on null must not skip objects whose link is null.
        let nullable = try Self.plan("Dog where vet.name != 'vet3'", store: store)
        #expect(nullable.access != .backlinks(link: "vet"))
        let missing = try Self.plan("Dog where vet.name == nil", store: store)
        #expect(missing.access != .backlinks(link: "vet"))
    }

    @Test func offsetOnKeysTheIndexDecidesSkipsWithoutReadingObjects() throws {
        let indexed = try QueryFixtures.store(indexed: true, seed: 5)
        let plain = try QueryFixtures.store(indexed: false, seed: 5)
        let statement = "Person where level IN {1, 2, 3} OFFSET(3) LIMIT(4)"
        let plan = try Self.plan(statement, store: indexed)
        #expect(plan.access == .index(property: "level"))
        #expect(plan.description.contains("OFFSET 3 (skips index entries, reads no object)"))
        #expect(plan.description.contains("LIMIT 4 (stops early)"))
        let everyone = try plain.read { try $0.query("Person where level IN {1, 2, 3}").keys }
        #expect(everyone.count > 7)
        #expect(try indexed.read { try $0.query(statement).keys } == Array(everyone.dropFirst(3).prefix(4)))
        #expect(try plain.read { try $0.query(statement).keys } == Array(everyone.dropFirst(3).prefix(4)))
        // Past the end, and a sorted page.
        #expect(try indexed.read { try $0.query("Person where level IN {1, 2, 3} OFFSET(100000)").count } == 0)
        let sorted = try Self.plan("Person SORT(age DESC) OFFSET(2) LIMIT(3)", store: plain)
        #expect(sorted.description.contains("SORT age DESC (top 5)"))
        #expect(sorted.actualRows == 3)
    }

    @Test func anAlwaysFalsePredicateReadsNothing() throws {
        let plan = try Self.plan("Person where age > 3 AND FALSEPREDICATE", store: try QueryFixtures.smallStore())
        #expect(plan.access == .none)
        #expect(plan.examinedRows == 0)
        #expect(plan.actualRows == 0)
    }

    @Test func limitWithoutSortStopsEarly() throws {
        let plan = try Self.plan("Person where active == false LIMIT(1)", store: try QueryFixtures.smallStore(indexed: false))
        #expect(plan.examinedRows == 2)
        #expect(plan.actualRows == 1)
        #expect(plan.description.contains("LIMIT 1 (stops early)"))
        let sorted = try Self.plan("Person SORT(age DESC) LIMIT(2)", store: try QueryFixtures.smallStore(indexed: false))
        #expect(sorted.description.contains("SORT age DESC (top 2)"))
        // On an index the order is the index's: the walk stops after two entries and the one
        // that shows the second value's run of equal values is complete.
        let onIndex = try Self.plan("Person SORT(age DESC) LIMIT(2)", store: try QueryFixtures.smallStore())
        #expect(onIndex.description.contains("SORT age DESC (the index's order: nothing sorted)"))
        #expect(onIndex.examinedRows == 3)
    }

    @Test(arguments: [
        "Person where age == 5", "Person where name BEGINSWITH 'Ro'", "Person where level IN {2, -4}",
        "Person where age BETWEEN {10, 12} AND active == true", "Person where age < 3", "Person where age > 56.5",
        "Person where born == '1970-01-02T00:00:00.5Z'", "Person where token == 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F' AND age < 10",
        "Person where nick == 'école' OR name == 'école'", "Person where name == $0",
    ])
    func selectiveIndexedPredicatesUseTheirIndexAndAgreeWithAScan(statement: String) throws {
        let long = String(repeating: "L", count: 450) + "1"
        let indexed = try QueryFixtures.store(indexed: true, seed: 5)
        let plain = try QueryFixtures.store(indexed: false, seed: 5)
        let arguments: [Value] = statement.contains("$0") ? [.string(long)] : []
        let plan = try indexed.read { try $0.explain(statement, arguments: arguments) }
        #expect(!plan.indexes.isEmpty, "\(plan)")
        let viaIndex = try indexed.read { try $0.query(statement, arguments: arguments).ids }
        let viaScan = try plain.read { try $0.query(statement, arguments: arguments).ids }
        #expect(viaIndex == viaScan)
        #expect(plan.actualRows == viaScan.count)
    }

    @Test func estimatesCountIndexEntriesOverTheRange() throws {
        let store = try QueryFixtures.store(indexed: true, seed: 5)
        let plan = try store.read { try $0.explain("Person where level == 2") }
        let matching = try store.read { try $0.objects("Person", where: "level == 2").count }
        #expect(plan.estimatedRows == matching)
        #expect(plan.examinedRows == matching)
    }
}

@Suite struct ParsedQueryCacheTests {
    @Test func cachedStatementsParseAlikeAcrossEvictionAndErrorsAreNeverCached() throws {
        let cache = ParsedQueryCache(capacity: 2)
        let a = try cache.query("Person where age > 3")
        #expect(try cache.query("Person where age > 3") == a)
        _ = try cache.query("Dog")
        _ = try cache.query("Vet")
        #expect(try cache.query("Person where age > 3") == a)
        #expect(throws: QueryError.self) { _ = try cache.query("Person where") }
        #expect(throws: QueryError.self) { _ = try cache.query("Person where") }
    }

    /// Texts are kept by their bytes: `MATCHES` meets names as stored, so a pattern spelt
    /// with U+00E9 and one spelt `e` + U+0301 (one `String` to `==`) match different names,
    /// however the statement runs and in either order.
    @Test(arguments: [true, false])
    func canonicallyEquivalentSpellingsOfAStatementAreKeptApart(composedFirst: Bool) throws {
        // A model of each run's own, so that no other test's statement is in the shared cache.
        let model = "Spelling\(composedFirst ? "C" : "D")"
        let schema = try Schema(jsonData: Array(#"{"models": [{"name": "\#(model)", "properties": {"name": "string", "n": "int"}}]}"#.utf8),
                                fileName: "spellings")
        let store = try Store(configuration: .inMemory(schema: schema))
        let (composed, decomposed) = ("\u{E9}", "e\u{301}")
        try store.write { tx in
            _ = try tx.insert(model, ["name": .string(composed + "a"), "n": 1])
            _ = try tx.insert(model, ["name": .string(decomposed + "b"), "n": 2])
        }
        let spellings: [(String, n: Int64)] = [(composed, 1), (decomposed, 2)]
        for (spelling, n) in composedFirst ? spellings : spellings.reversed() {
            func ns(_ results: Results) throws -> [Int64?] { try results.map { try $0.int("n") } }
            let pattern = "name MATCHES '\(spelling).*'"
            let (queried, filtered, maximum, rows) = try store.read { snapshot in
                (try ns(snapshot.query("\(model) where \(pattern)")), try ns(snapshot.objects(model, where: pattern)),
                 try snapshot.aggregate("max \(model).n where \(pattern)"),
                 try snapshot.rows("\(model) where \(pattern) SELECT(n)").rows.map { $0["n"] })
            }
            #expect(queried == [n], "\(pattern)")
            #expect(filtered == [n], "\(pattern)")
            #expect(maximum == .int(n), "\(pattern)")
            #expect(rows == [.int(n)], "\(pattern)")
        }
        // Both patterns in one predicate: compiled once each.
        let both = "name MATCHES '\(composed).*' OR name MATCHES '\(decomposed).*'"
        #expect(try store.read { try $0.objects(model, where: both).count } == 2)
    }
}
