#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import Trove
import TroveModels

@Model struct Visit {
    @Attribute(.primaryKey) var id: Int
    var at: Date
    var fee: Double?
    var minutes: Int?
}

@Model struct Patient {
    @Attribute(.primaryKey) var id: Int
    var born: Date?
    var rating: Int?
    var visits: [Visit] = []
    var checkups: [Date] = []
    var readings: [Double?] = []
}

/// The aggregates of dates and of optional numbers, which the query language has (`min` and
/// `max` of dates; every aggregate skipping nulls): a `where:` closure's list aggregates and a
/// ``ModelResults``' aggregates give what their query text gives.
@Suite struct DateAndOptionalAggregateTests {
    static func day(_ n: Int) -> Date { Date(timeIntervalSince1970: Double(n) * 86_400) }

    /// Ann: visits on days 1 (fee 10, 30 min) and 5 (no fee, no minutes); Bob: one on day 3
    /// (fee 4); Cid: none; Dee: visits on days 2 (no fee, 20 min) and 9 (fee 7). Checkups and
    /// readings likewise, with nulls among the readings.
    func store() throws -> Store {
        let store = try Store(configuration: .inMemory(schema: try Schema(Patient.self)))
        let v1 = Visit(id: 1, at: Self.day(1), fee: 10, minutes: 30)
        let v2 = Visit(id: 2, at: Self.day(5), fee: nil, minutes: nil)
        let v3 = Visit(id: 3, at: Self.day(3), fee: 4, minutes: nil)
        let v4 = Visit(id: 4, at: Self.day(2), fee: nil, minutes: 20)
        let v5 = Visit(id: 5, at: Self.day(9), fee: 7, minutes: nil)
        try store.write { tx in
            try tx.insert(Patient(id: 1, born: Self.day(100), rating: 4, visits: [v1, v2], checkups: [Self.day(1), Self.day(5)], readings: [1.5, nil, 2.5]))
            try tx.insert(Patient(id: 2, born: nil, rating: nil, visits: [v3], checkups: [Self.day(3)], readings: [nil]))
            try tx.insert(Patient(id: 3, born: Self.day(50), rating: 2, visits: [], checkups: [], readings: []))
            try tx.insert(Patient(id: 4, born: Self.day(200), rating: nil, visits: [v4, v5], checkups: [Self.day(2), Self.day(9)], readings: [4]))
        }
        return store
    }

    func ids(_ store: Store, _ query: (ModelQuery<Patient, Patient>) -> ModelCondition<Patient>) throws -> [Int] {
        try store.read { try $0.objects(Patient.self, where: query).map(\.id) }
    }

    func ids(_ store: Store, _ text: String, _ arguments: [Value]) throws -> [Int] {
        try store.read { try $0.objects("Patient", where: text, arguments: arguments).map { Int(try $0.int("id") ?? -1) } }
    }

    /// Each closure, its query text and its parameters.
    static let cases: [(closure: @Sendable (ModelQuery<Patient, Patient>) -> ModelCondition<Patient>, text: String, arguments: [Value])] = [
        ({ $0.visits.at.min < day(2) }, "visits.@min.at < $0", [.date(day(2))]),
        ({ $0.visits.at.max >= day(5) }, "visits.@max.at >= $0", [.date(day(5))]),
        ({ $0.visits.fee.sum > 5 }, "visits.@sum.fee > $0", [.double(5)]),
        ({ $0.visits.fee.avg == 7 }, "visits.@avg.fee == $0", [.double(7)]),
        ({ $0.visits.fee.min < 8 }, "visits.@min.fee < $0", [.double(8)]),
        ({ $0.visits.fee.max > 5 }, "visits.@max.fee > $0", [.double(5)]),
        ({ $0.visits.minutes.sum >= 20 }, "visits.@sum.minutes >= $0", [.int(20)]),
        ({ $0.visits.minutes.avg > 25 }, "visits.@avg.minutes > $0", [.double(25)]),
        ({ $0.checkups.min <= day(2) }, "checkups.@min <= $0", [.date(day(2))]),
        ({ $0.checkups.max > day(4) }, "checkups.@max > $0", [.date(day(4))]),
        ({ $0.readings.sum > 3 }, "readings.@sum > $0", [.double(3)]),
        ({ $0.readings.avg < 3 }, "readings.@avg < $0", [.double(3)]),
        ({ $0.readings.max == 4 }, "readings.@max == $0", [.double(4)]),
        ({ !($0.visits.at.max > day(4)) }, "NOT visits.@max.at > $0", [.date(day(4))]),
    ]

    @Test(arguments: cases.indices) func aListAggregateSelectsWhatItsQueryTextSelects(_ index: Int) throws {
        let (closure, text, arguments) = Self.cases[index]
        let store = try store()
        let query = try closure(ModelQuery()).queryText()
        #expect(query.text == "Patient where " + text)
        #expect(query.arguments == arguments)
        let selected = try ids(store, closure)
        #expect(selected == (try ids(store, text, arguments)))
        try store.read { s in
            let typed = try s.explain(Patient.self, where: closure)
            let written = try s.explain("Patient where " + text, arguments: arguments)
            #expect(typed.description == written.description)
            #expect(typed.description.contains("FILTER " + text), "\(typed)")
        }
    }

    @Test func theAggregatesSelectTheObjectsTheirValuesSay() throws {
        let store = try store()
        #expect(try ids(store) { $0.visits.at.min < Self.day(2) } == [1])
        #expect(try ids(store) { $0.visits.at.max >= Self.day(5) } == [1, 4])
        #expect(try ids(store) { $0.visits.fee.sum > 5 } == [1, 4])
        #expect(try ids(store) { $0.visits.minutes.avg > 25 } == [1])
        #expect(try ids(store) { $0.readings.sum > 3 } == [1, 4])
        #expect(try ids(store) { $0.checkups.max > Self.day(4) } == [1, 4])
    }

    @Test func theResultsAggregatesOfDatesAndOptionalNumbersAreTheQueryLanguages() throws {
        let store = try store()
        try store.read { s in
            let patients = try s.objects(Patient.self)
            let dynamic = try s.objects("Patient")
            #expect(try patients.min(\.born) == Self.day(50))
            #expect(try patients.max(\.born) == Self.day(200))
            #expect(try dynamic.min(of: "born") == .date(Self.day(50)))
            #expect(try patients.sum(\.rating) == 6)
            #expect(try patients.average(\.rating) == 3)
            #expect(try patients.min(\.rating) == 2)
            #expect(try patients.max(\.rating) == 4)
            #expect(try dynamic.sum(of: "rating") == .int(6))
            let visits = try s.objects(Visit.self)
            #expect(try visits.min(\.at) == Self.day(1))
            #expect(try visits.max(\.at) == Self.day(9))
            #expect(try visits.sum(\.fee) == 21)
            #expect(try visits.average(\.fee) == 7)
            #expect(try visits.sum(\.minutes) == 50)
            let none = try s.objects(Patient.self, where: { $0.id > 10 })
            #expect(try none.sum(\.rating) == 0)
            #expect(try none.average(\.rating) == nil)
            #expect(try none.min(\.born) == nil)
        }
    }
}
