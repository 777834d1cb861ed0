#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Testing
import Trove
import TroveModels

@Suite struct TypedLiveTests {
    @Test func liveResultsOfATypedFetchFollowCommits() throws {
        let store = try peopleStore()
        let live = try LiveResults(store: store, FetchDescriptor<Person>(predicate: #Predicate { $0.age < 30 }))
        #expect(try live.values(as: Person.self).map(\.id) == [2, 4])
        try store.write { tx in try tx.insert(Person(id: 9, name: "Zoe", age: 5)) }
        _ = try live.refresh()
        #expect(try live.values(as: Person.self).map(\.id) == [2, 4, 9])
    }

    @Test func liveResultsAndAControllerOfATypedFetchKeepItsOffsetAndLimit() throws {
        let store = try peopleStore()
        let page = FetchDescriptor<Person>(sortBy: [.init(\.name)], fetchOffset: 1, fetchLimit: 2)
        let live = try LiveResults(store: store, page)
        #expect(try live.values(as: Person.self).map(\.name) == ["Bob", "Cid"])
        try store.write { tx in try tx.insert(Person(id: 9, name: "Ava", age: 5)) }
        #expect(try live.values(as: Person.self).map(\.name) == ["Ava", "Bob"])
        let controller = try ResultsController(store: store, page, queue: DispatchQueue(label: "typed-page"))
        try controller.performFetch()
        #expect(controller.sections.map { $0.elements.map(\.name) } == [["Ava", "Bob"]])
    }

    @Test func aResultsControllerSectionsTypedValuesByKeyPath() throws {
        let store = try peopleStore()
        let controller = try ResultsController(
            store: store, FetchDescriptor<Person>(predicate: #Predicate { $0.age > 20 }, sortBy: [.init(\.name)]),
            sectionedBy: \.nickname, queue: DispatchQueue(label: "typed-controller"))
        try controller.performFetch()
        #expect(controller.sections.map { $0.elements.map(\.name) } == [["Bob"], ["Ann"], ["Cid"]])
    }

    @Test func aResultsControllerRefusesToSectionByALinkNamingTheStringForm() throws {
        let store = try peopleStore()
        let namesTheStringForm: (any Error) -> Bool = { $0 is ModelQueryError && "\($0)".contains("sectionKeyPath") }
        #expect(performing: {
            try ResultsController(store: store, FetchDescriptor<Person>(), sectionedBy: \.bestFriend)
        }, throws: namesTheStringForm)
        #expect(performing: {
            try ResultsController(store: store, FetchDescriptor<Person>(), sectionedBy: \.bestFriend?.owners)
        }, throws: namesTheStringForm)
    }

    @Test func aResultsControllerSectionsTypedValuesByALinkedObjectsProperty() throws {
        let store = try peopleStore()
        let controller = try ResultsController(
            store: store, FetchDescriptor<Person>(sortBy: [.init(\.name)]), sectionKeyPath: "bestFriend.name",
            queue: DispatchQueue(label: "typed-controller"))
        try controller.performFetch()
        #expect(controller.sections.map(\.key) == [.null, "Ace", "Fido", "Rex"])
        #expect(controller.sections.map { $0.elements.map(\.name) } == [["Cid"], ["Dee"], ["Bob"], ["Ann"]])
    }

    @Test func anObjectObserverTellsTheKeyPathsACommitChanged() async throws {
        let store = try peopleStore()
        let observer = try ObjectObserver(store: store, Person.self, primaryKey: 2, queue: DispatchQueue(label: "typed-observer"))
        var changes = observer.changes.makeAsyncIterator()
        let bob = try #require(try await store.read { try $0.object(Person.self, primaryKey: 2) })
        try await store.write { tx in try tx.update(bob) { $0.age = 26; $0.tags = ["z"] } }
        let change = try #require(await changes.next())
        #expect(change.keyPaths(of: Person.self) == [\Person.age, \Person.tags])
    }
}
