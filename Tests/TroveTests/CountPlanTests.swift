import Testing
@testable import Trove

/// A count reads no match's record: an index scan serving its whole predicate is read past the
/// scan's cost cap when its keys can decide, and kept while they leave fewer candidates unsure
/// than the cap (whose records alone are read); otherwise the count scans.
@Suite struct CountPlanTests {
    /// 200 cars: years 1960 to 1999, five of each; origins Japan and USA 80 each, Europe 40;
    /// names "a…" and "m…" 100 each, and `extra` more names.
    static func store(extra: [String] = []) throws -> Store {
        let schema = """
            {"models": [{"name": "Car", "properties": {"year": {"type": "int", "indexed": true}, "origin": {"type": "string", "indexed": true},
                                                       "name": {"type": "string", "indexed": true}}}]}
            """
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(schema)))
        try store.write { tx in
            for i in 0..<200 {
                let origin = ["Japan", "USA", "Japan", "USA", "Europe"][i % 5]
                try tx.insert("Car", ["year": .int(Int64(1960 + i % 40)), "origin": .string(origin), "name": .string("\(i % 2 == 0 ? "a" : "m")\(i)")])
            }
            for name in extra { try tx.insert("Car", ["year": 2000, "origin": "Mars", "name": .string(name)]) }
        }
        return store
    }

    static func count(_ text: String, _ store: Store) throws -> (Value?, QueryPlan) {
        try store.read { snapshot in
            let (answer, plan) = try QueryExecutor(snapshot: snapshot).answer(text, arguments: [])
            guard case .value(let value) = answer else { return (nil, plan) }
            return (value, plan)
        }
    }

    @Test func aRangeOrAnOrOfEqualitiesPastTheCapKeepsTheIndex() throws {
        let store = try Self.store()
        let (years, yearPlan) = try Self.count("count Car where year >= 1970 AND year < 1990", store)
        #expect(years == .int(100))
        #expect(yearPlan.access == .index(property: "year"), "\(yearPlan)")
        let (origins, originPlan) = try Self.count("count Car where origin == 'Japan' OR origin == 'USA'", store)
        #expect(origins == .int(160))
        #expect(originPlan.access == .union([.index(property: "origin"), .index(property: "origin")]), "\(originPlan)")
    }

    @Test func keysLeavingFewerUnsureThanTheCapKeepTheIndex() throws {
        // "mé" is not ASCII: its key leaves `name >= 'm'` unsure, and its record decides.
        let store = try Self.store(extra: ["mé", "é"])
        let (value, plan) = try Self.count("count Car where name >= 'm'", store)
        #expect(value == .int(102))
        #expect(plan.access == .index(property: "name"), "\(plan)")
    }

    @Test func keysLeavingTheCapUnsureScan() throws {
        let unsure = (0..<80).map { "é\($0)" }
        let store = try Self.store(extra: unsure)
        let (value, plan) = try Self.count("count Car where name >= 'm'", store)
        #expect(value == .int(180))
        #expect(plan.isScan, "\(plan)")
        let (either, orPlan) = try Self.count("count Car where name >= 'm' OR origin == 'Japan'", store)
        #expect(either == .int(220))
        #expect(orPlan.isScan, "\(orPlan)")
    }
}
