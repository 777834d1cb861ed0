#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import Trove
import TroveModels

/// A model with optional properties, one of them indexed, for `??` in `#Predicate`.
@Model struct Sensor {
    @Attribute(.primaryKey) var id: Int
    @Attribute(.indexed) var reading: Int?
    var floor: Int = 0
    var ceiling: Int?
    var label: String?
}

/// A model linking to a `Sensor`, for `??` inside a link's `flatMap`.
@Model struct SensorMount {
    @Attribute(.primaryKey) var id: Int
    var sensor: Sensor?
}

/// `(x ?? c) op y` in a `#Predicate` selects what Foundation's evaluation of it selects, folds
/// to `x op y` or `x == nil OR x op y` when `y` is a constant, and is planned on `x`'s index as
/// the query text it prints.
@Suite struct NilCoalescingPredicateTests {
    static let sensors: [Sensor] = (1...12).map { id in
        Sensor(id: id, reading: id % 3 == 0 ? nil : id, floor: id % 4,
              ceiling: id % 4 == 0 ? nil : id % 5, label: [nil, "alpha", "beta", "zeta"][id % 4])
    }

    func store(_ sensors: [Sensor] = sensors) throws -> Store {
        let store = try Store(configuration: .inMemory(schema: try Schema(Sensor.self)))
        try store.write { tx in for g in sensors { try tx.insert(g) } }
        return store
    }

    /// The ids the store selects, after checking them against Foundation's evaluation.
    func ids(_ store: Store, _ predicate: Predicate<Sensor>, sourceLocation: SourceLocation = #_sourceLocation) throws -> [Int] {
        let selected = try store.read { try $0.objects(Sensor.self, where: predicate).map(\.id) }
        let expected = try Self.sensors.filter { try predicate.evaluate($0) }.map(\.id)
        #expect(selected == expected, sourceLocation: sourceLocation)
        return selected
    }

    func text(_ predicate: Predicate<Sensor>) throws -> String {
        String(try FetchDescriptor(predicate: predicate).queryText().text.trimmingPrefix("Sensor where "))
    }

    @Test func aDefaultThatFailsTheComparisonFoldsToTheComparisonAlone() throws {
        let store = try store()
        #expect(try ids(store, #Predicate { ($0.reading ?? 0) > 2 }) == [4, 5, 7, 8, 10, 11])
        #expect(try text(#Predicate { ($0.reading ?? 0) > 2 }) == "reading > $0")
        #expect(try ids(store, #Predicate { 2 >= ($0.reading ?? 10) }) == [1, 2])
        #expect(try text(#Predicate { 2 >= ($0.reading ?? 10) }) == "$0 >= reading")
    }

    @Test func aDefaultThatPassesTheComparisonAddsTheNullCase() throws {
        let store = try store()
        #expect(try ids(store, #Predicate { ($0.reading ?? 5) > 2 }) == [3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
        #expect(try text(#Predicate { ($0.reading ?? 5) > 2 }) == "reading == nil OR reading > $0")
    }

    @Test func notEqualKeepsTheNullGuardWhereTheDefaultFails() throws {
        let store = try store()
        // A null `reading` is `!= 2` in a query, but `?? 2` makes it equal in Swift.
        #expect(try ids(store, #Predicate { ($0.reading ?? 2) != 2 }) == [1, 4, 5, 7, 8, 10, 11])
        #expect(try text(#Predicate { ($0.reading ?? 2) != 2 }) == "reading != nil AND reading != $0")
        #expect(try ids(store, #Predicate { ($0.reading ?? 0) != 2 }) == [1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
        #expect(try ids(store, #Predicate { ($0.reading ?? 0) == 2 }) == [2])
        #expect(try ids(store, #Predicate { ($0.reading ?? 2) == 2 }) == [2, 3, 6, 9, 12])
    }

    /// One predicate shape, captured values with either outcome: each query has its own text,
    /// not the one the first outcome cached.
    @Test func capturedValuesThatChangeTheFoldChangeTheQuery() throws {
        let store = try store()
        func above(_ bound: Int, orElse fallback: Int) throws -> [Int] {
            try ids(store, #Predicate { ($0.reading ?? fallback) > bound })
        }
        #expect(try above(2, orElse: 0) == [4, 5, 7, 8, 10, 11])
        #expect(try above(2, orElse: 9) == [3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
        #expect(try above(2, orElse: 0) == [4, 5, 7, 8, 10, 11])
        #expect(try above(10, orElse: 20) == [3, 6, 9, 11, 12])
    }

    /// `n ?? 3` on the other side is `n` when `n` is not nil, for the cached query as for a
    /// fresh one: with `n = -1` the default 0 passes `0 > n` and null readings are selected.
    @Test func aCapturedOptionalWithADefaultFoldsAsItsValue() throws {
        let store = try store()
        func above(_ n: Int?) throws -> [Int] {
            try ids(store, #Predicate { ($0.reading ?? 0) > (n ?? 3) })
        }
        #expect(try above(5) == [7, 8, 10, 11])
        #expect(try above(-1) == Array(1...12))
        #expect(try above(5) == [7, 8, 10, 11])
        #expect(try above(nil) == [4, 5, 7, 8, 10, 11])
    }

    /// `link.flatMap { $0.p ?? c }` is nil where the link is nil, which no `??` fold gives: it
    /// is refused, naming the form, rather than matching objects without the link.
    @Test func aDefaultInsideALinksFlatMapIsRefused() throws {
        let store = try Store(configuration: .inMemory(schema: try Schema(SensorMount.self)))
        try store.write { tx in
            try tx.insert(SensorMount(id: 1, sensor: Sensor(id: 1, label: nil)))
            try tx.insert(SensorMount(id: 2, sensor: nil))
        }
        #expect {
            try store.read { _ = try $0.objects(SensorMount.self, where: #Predicate { $0.sensor.flatMap { $0.label ?? "y" } == "y" }) }
        } throws: { error in
            let message = String(describing: error)
            return message.contains("flatMap") && message.contains("??") && message.contains("!= nil")
        }
        // The `??` outside the link gives the default where the link is nil, as in Swift.
        let outside = #Predicate<SensorMount> { ($0.sensor?.label ?? "y") == "y" }
        let selected = try store.read { try $0.objects(SensorMount.self, where: outside).map(\.id) }
        #expect(selected == [1, 2])
        #expect(try outside.evaluate(SensorMount(id: 2, sensor: nil)))
    }

    @Test func aPropertyOnTheOtherSideComparesTheDefaultPerObject() throws {
        let store = try store()
        let floorBelow = try ids(store, #Predicate { ($0.reading ?? 3) > $0.floor })
        #expect(floorBelow == [4, 5, 6, 7, 8, 9, 10, 11, 12])
        let general = try text(#Predicate { ($0.reading ?? 3) > $0.floor })
        #expect(general
            == "reading != nil AND reading > floor OR reading == nil AND $0 > floor")
        _ = try ids(store, #Predicate { ($0.reading ?? 0) < ($0.ceiling ?? 3) })
        _ = try ids(store, #Predicate { ($0.reading ?? 4) >= ($0.ceiling ?? 3) })
    }

    @Test func stringsCoalesceForContainsAndStartsWith() throws {
        let store = try store()
        #expect(try ids(store, #Predicate { ($0.label ?? "").contains("ta") }) == [2, 3, 6, 7, 10, 11])
        #expect(try ids(store, #Predicate { ($0.label ?? "zz").starts(with: "z") }) == [3, 4, 7, 8, 11, 12])
        #expect(try ids(store, #Predicate { ($0.label ?? "none") == "alpha" }) == [1, 5, 9])
        #expect(try ids(store, #Predicate { ($0.label ?? "ALPHA").localizedStandardContains("alp") }) == [1, 4, 5, 8, 9, 12])
    }

    @Test func theFoldedFormUsesTheIndexAsTheQueryTextDoes() throws {
        let many = (1...1_200).map { Sensor(id: $0, reading: $0 % 10 == 0 ? nil : $0) }
        let store = try store(many)
        try store.read { s in
            let folded = try s.explain(FetchDescriptor(predicate: #Predicate<Sensor> { ($0.reading ?? 0) > 1_150 }))
            #expect(folded.indexes == ["reading"])
            #expect(folded.indexes == (try s.explain("Sensor where reading > 1150")).indexes)
            let withNulls = try s.explain(FetchDescriptor(predicate: #Predicate<Sensor> { ($0.reading ?? 2_000) > 1_150 }))
            #expect(withNulls.indexes == (try s.explain("Sensor where reading == nil OR reading > 1150")).indexes)
            #expect(withNulls.actualRows == 120 + 45)
            // One index lookup for the nulls, one for the range, as for the query text.
            #expect(withNulls.description.contains("UNION OF 2 LOOKUPS"))
        }
    }

    @Test func whatCannotBeTranslatedIsAnErrorNamingTheConstruct() throws {
        let store = try store()
        for predicate in [#Predicate<Sensor> { ($0.reading ?? $0.floor) > 1 }, #Predicate<Sensor> { ($0.ceiling ?? $0.floor) == 2 }] {
            #expect {
                try store.read { _ = try $0.objects(Sensor.self, where: predicate) }
            } throws: { error in
                let message = String(describing: error)
                return message.contains("??") && message.contains("a constant") && message.contains("== nil ||")
            }
        }
        let captured: [Int] = [1]
        #expect {
            try store.read { _ = try $0.objects(Sensor.self, where: #Predicate { captured.contains($0.reading ?? 0) }) }
        } throws: { error in
            String(describing: error).contains("takes a ?? expression")
        }
    }
}
