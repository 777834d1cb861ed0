#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Testing
import Trove
import TroveModels

/// A `where:` closure goes wherever a `#Predicate` does (fetch descriptors, counts, aggregates,
/// `explain`, live results, results controllers) and selects what the `#Predicate` selects.
@Suite struct WhereClosureEntryTests {
    /// Pairs of a closure and the `#Predicate` that says the same.
    static var pairs: [(label: String, closure: (ModelQuery<Person, Person>) -> ModelCondition<Person>, predicate: Predicate<Person>)] {
        [
            ("age > 20", { $0.age > 20 }, #Predicate { $0.age > 20 }),
            ("name == Bob", { $0.name == "Bob" }, #Predicate { $0.name == "Bob" }),
            ("nickname != nil && age < 35", { $0.nickname != nil && $0.age < 35 }, #Predicate { $0.nickname != nil && $0.age < 35 }),
            ("bestFriend.name == Rex || age >= 40", { $0.bestFriend.name == "Rex" || $0.age >= 40 },
             #Predicate { $0.bestFriend?.name == "Rex" || $0.age >= 40 }),
            ("!(name starts with A)", { !$0.name.starts(with: "A") }, #Predicate { !$0.name.starts(with: "A") }),
        ]
    }

    @Test func aFetchDescriptorWithAWhereClosureFetchesWhatItsPredicateDoes() throws {
        let store = try peopleStore()
        try store.read { s throws in
            for pair in Self.pairs {
                let byClosure = FetchDescriptor<Person>(where: pair.closure)
                let byPredicate = FetchDescriptor<Person>(predicate: pair.predicate)
                #expect(try s.fetch(byClosure).map(\.id) == s.fetch(byPredicate).map(\.id), "\(pair.label)")
                #expect(try s.fetchCount(byClosure) == s.fetchCount(byPredicate), "\(pair.label)")
                #expect(try s.fetch(byClosure).sum(\.age) == s.fetch(byPredicate).sum(\.age), "\(pair.label)")

                let sortedByClosure = FetchDescriptor<Person>(where: pair.closure, sortBy: [.init(\.name, order: .reverse)],
                                                              fetchOffset: 1, fetchLimit: 2)
                let sortedByPredicate = FetchDescriptor<Person>(predicate: pair.predicate, sortBy: [.init(\.name, order: .reverse)],
                                                                fetchOffset: 1, fetchLimit: 2)
                #expect(try s.fetch(sortedByClosure).map(\.id) == s.fetch(sortedByPredicate).map(\.id), "\(pair.label)")
                #expect(try s.fetchCount(sortedByClosure) == s.fetchCount(sortedByPredicate), "\(pair.label)")
            }
        }
    }

    @Test func aFetchDescriptorWithAWhereClosureRunsAsTheStringQueryItStandsFor() throws {
        let store = try peopleStore()
        let descriptor = FetchDescriptor<Person>(where: { $0.age > 20 && $0.name != "Bob" }, sortBy: [.init(\.age)], fetchLimit: 5)
        let (text, arguments) = try descriptor.queryText()
        #expect(text == "Person where age > $0 AND name != $1 SORT(age ASC) LIMIT(5)")
        #expect(arguments == [.int(20), .string("Bob")])
        try store.read { s throws in
            #expect(try s.fetch(descriptor).map(\.id) == s.query(text, arguments: arguments).map { Int(try $0.int("id") ?? -1) })
            #expect(try s.fetch(descriptor).map(\.id) == [1, 3])
            let plan = try s.explain(FetchDescriptor<Person>(where: { $0.name == "Bob" }))
            #expect(!plan.isScan)
            #expect(plan.actualRows == 1)
        }
    }

    @Test func aPredicateAndAConditionTogetherSelectWhatBothHoldFor() throws {
        let store = try peopleStore()
        var descriptor = FetchDescriptor<Person>(predicate: #Predicate { $0.age > 20 }, sortBy: [.init(\.id)])
        descriptor.condition = ModelQuery<Person, Person>().age < 35
        let (text, arguments) = try descriptor.queryText()
        #expect(text == "Person where age > $0 AND age < $1 SORT(id ASC)")
        #expect(arguments == [.int(20), .int(35)])
        try store.read { s throws in
            #expect(try s.fetch(descriptor).map(\.id) == [1, 2])
            descriptor.sortBy = []
            #expect(try s.fetch(descriptor).map(\.id) == [1, 2])
            #expect(try s.fetchCount(descriptor) == 2)
        }
    }

    @Test func aWhereClosureThatCannotRunThrowsThroughADescriptor() throws {
        let store = try peopleStore()
        try store.read { s throws in
            #expect(throws: ModelQueryError.self) { try s.fetch(FetchDescriptor<Person>(where: { $0.scratch > 1 })) }
            #expect(throws: ModelQueryError.self) { try s.fetch(FetchDescriptor<Person>(where: { $0.scratch > 1 }, fetchLimit: 1)) }
        }
    }

    @Test func liveResultsOfAWhereClosureFollowCommitsAsThoseOfItsPredicate() throws {
        let store = try peopleStore()
        let byClosure = try LiveResults(store: store, Person.self, where: { $0.age < 30 }, sortBy: [.init(\.name)])
        let byDescriptor = try LiveResults(store: store, FetchDescriptor<Person>(where: { $0.age < 30 }, sortBy: [.init(\.name)]))
        let byPredicate = try LiveResults(store: store, FetchDescriptor<Person>(predicate: #Predicate { $0.age < 30 }, sortBy: [.init(\.name)]))
        #expect(try byClosure.values(as: Person.self).map(\.id) == [2, 4])
        try store.write { tx in try tx.insert(Person(id: 9, name: "Abe", age: 5)) }
        for live in [byClosure, byDescriptor, byPredicate] { _ = try live.refresh() }
        #expect(try byClosure.values(as: Person.self).map(\.id) == [9, 2, 4])
        #expect(try byDescriptor.values(as: Person.self).map(\.id) == byPredicate.values(as: Person.self).map(\.id))
        #expect(try byClosure.values(as: Person.self).map(\.id) == byPredicate.values(as: Person.self).map(\.id))
    }

    @Test func aResultsControllerOfAWhereClosureSectionsAsThatOfItsPredicate() throws {
        let store = try peopleStore()
        let queue = DispatchQueue(label: "where-controller")
        let byClosure = try ResultsController(store: store, Person.self, where: { $0.age > 20 }, sortBy: [.init(\.name)],
                                              sectionedBy: \.nickname, queue: queue)
        let byDescriptor = try ResultsController(store: store, FetchDescriptor<Person>(where: { $0.age > 20 }, sortBy: [.init(\.name)]),
                                                 sectionedBy: \.nickname, queue: queue)
        let byPredicate = try ResultsController(store: store, FetchDescriptor<Person>(predicate: #Predicate { $0.age > 20 }, sortBy: [.init(\.name)]),
                                                sectionedBy: \.nickname, queue: queue)
        let unsectioned = try ResultsController(store: store, Person.self, where: { $0.age > 20 }, sortBy: [.init(\.name)], queue: queue)
        for controller in [byClosure, byDescriptor, byPredicate, unsectioned] { try controller.performFetch() }
        let sections = byPredicate.sections.map { $0.elements.map(\.name) }
        #expect(sections == [["Bob"], ["Ann"], ["Cid"]])
        #expect(byClosure.sections.map { $0.elements.map(\.name) } == sections)
        #expect(byDescriptor.sections.map { $0.elements.map(\.name) } == sections)
        #expect(unsectioned.sections.map { $0.elements.map(\.name) } == [["Ann", "Bob", "Cid"]])
    }
}
