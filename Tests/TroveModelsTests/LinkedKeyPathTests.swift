#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Testing
import Trove
import TroveModels

@Model struct Crew {
    @Attribute(.primaryKey) var id: Int
    var name: String
    var rank: Int?
    var mentor: Mentor?
}

@Model struct Mentor {
    @Attribute(.primaryKey) var id: Int
    var name: String
    var guild: Guild?
}

@Model struct Guild {
    @Attribute(.primaryKey) var id: Int
    var motto: String
}

@Model struct Venture {
    @Attribute(.primaryKey) var id: Int
    var title: String
    var budget: Double?
    var lead: Crew?
    var crew: [Crew] = []
}

@Model struct Chore {
    @Attribute(.primaryKey) var id: Int
    var name: String
    var venture: Venture?
    var estimate: Int = 0
}

/// A model whose table is listed by hand: it has no key paths from an optional of it.
struct Ledger: PersistentModel, Codable {
    var id: Int
    var total: Int
    static let modelProperties: [ModelProperty<Ledger>] = [.init("id", \Ledger.id, primaryKey: true), .init("total", \Ledger.total)]
}

@Model struct Invoice {
    @Attribute(.primaryKey) var id: Int
    var ledger: Ledger?
}

/// Sort and section key paths through optional to-one links (`\Chore.venture?.title`) name
/// the dotted path the string form takes, and so order and group exactly as it does, objects
/// whose link is null included.
@Suite struct LinkedKeyPathTests {
    /// Chores whose venture is null, whose venture's lead is null, whose lead's mentor is null,
    /// and ties, so that null ordering and the later sort keys all count.
    func choreStore() throws -> Store {
        let store = try Store(configuration: .inMemory(schema: Schema(Chore.self, Invoice.self)))
        let smiths = Guild(id: 1, motto: "forge")
        let ida = Crew(id: 1, name: "Ida", rank: 2)
        let joe = Crew(id: 2, name: "Joe", mentor: Mentor(id: 1, name: "Ola"))
        let kim = Crew(id: 3, name: "Kim", rank: 1, mentor: Mentor(id: 2, name: "Max", guild: smiths))
        let apollo = Venture(id: 1, title: "Apollo", budget: 10, lead: kim)
        let zephyr = Venture(id: 2, title: "Zephyr", lead: joe)
        let gemini = Venture(id: 3, title: "Gemini", budget: 5)
        let atlas = Venture(id: 4, title: "Apollo", budget: 7, lead: ida)
        try store.write { tx in
            try tx.insert(Chore(id: 1, name: "paint", venture: zephyr, estimate: 3))
            try tx.insert(Chore(id: 2, name: "sweep", estimate: 1))
            try tx.insert(Chore(id: 3, name: "weld", venture: apollo, estimate: 5))
            try tx.insert(Chore(id: 4, name: "bolt", venture: gemini, estimate: 2))
            try tx.insert(Chore(id: 5, name: "mop", estimate: 4))
            try tx.insert(Chore(id: 6, name: "drill", venture: atlas, estimate: 3))
            try tx.insert(Chore(id: 7, name: "cut", venture: zephyr, estimate: 1))
            try tx.insert(Invoice(id: 1, ledger: Ledger(id: 1, total: 3)))
        }
        return store
    }

    /// Each typed sort key beside the dotted path it must sort as.
    static var sorts: [(ModelSortDescriptor<Chore>, String)] {[
        (.init(\.venture?.title), "venture.title ASC"),
        (.init(\.venture?.title, order: .reverse), "venture.title DESC"),
        (.init(\.venture?.budget), "venture.budget ASC"),
        (.init(\.venture?.budget, order: .reverse), "venture.budget DESC"),
        (.init(\.venture?.lead?.name), "venture.lead.name ASC"),
        (.init(\.venture?.lead?.rank, order: .reverse), "venture.lead.rank DESC"),
        (.init(\.venture?.lead?.mentor?.name), "venture.lead.mentor.name ASC"),
        (.init(\.venture?.lead?.mentor?.guild?.motto, order: .reverse), "venture.lead.mentor.guild.motto DESC"),
    ]}

    @Test(arguments: sorts.indices) func aSortThroughLinksOrdersAsItsStringForm(_ index: Int) throws {
        let store = try choreStore()
        let (key, text) = Self.sorts[index]
        try store.read { s in
            for sortBy in [[key], [key, .init(\.estimate, order: .reverse)], [.init(\.estimate), key]] {
                let typed = try s.objects(Chore.self, sortBy: sortBy + [.init(\.id)]).map(\.id)
                let keys = sortBy.count == 1 ? text : sortBy[0].keyPath == key.keyPath ? "\(text), estimate DESC" : "estimate ASC, \(text)"
                let written = try s.query("Chore SORT(\(keys), id ASC)").map { Int(try $0.int("id") ?? -1) }
                #expect(typed == written, "\(keys)")
                #expect(Set(typed) == Set(1...7))
            }
        }
    }

    @Test func theNullLinksSortAsNullValues() throws {
        let store = try choreStore()
        try store.read { s in
            // Sweep and mop have no venture: their title is null, first ascending, last descending.
            let ascending = try s.objects(Chore.self, sortBy: [.init(\.venture?.title), .init(\.id)])
            #expect(try ascending.map(\.id) == [2, 5, 3, 6, 4, 1, 7])
            let descending = try s.objects(Chore.self, sortBy: [.init(\.venture?.title, order: .reverse), .init(\.id)])
            #expect(try descending.map(\.id) == [1, 7, 4, 3, 6, 2, 5])
        }
    }

    @Test func everyTypedSortTakesTheKeyPath() throws {
        let store = try choreStore()
        let descriptor = FetchDescriptor<Chore>(predicate: #Predicate { $0.estimate > 1 }, sortBy: [.init(\.venture?.lead?.name), .init(\.id)], fetchLimit: 4)
        #expect(try descriptor.queryText().text == "Chore where estimate > $0 SORT(venture.lead.name ASC, id ASC) LIMIT(4)")
        try store.read { s in
            #expect(try s.fetch(descriptor).map(\.id) == [4, 5, 6, 1])
            let built = try s.objects(Chore.self, where: { $0.estimate > 1 }, sortBy: [.init(\.venture?.lead?.name), .init(\.id)], limit: 4)
            #expect(try built.map(\.id) == [4, 5, 6, 1])
        }
        let live = try LiveResults(store: store, descriptor)
        #expect(try live.values(as: Chore.self).map(\.id) == [4, 5, 6, 1])
    }

    @Test func aControllerSectionsByAKeyPathThroughLinksAsByItsDottedPath() throws {
        let store = try choreStore()
        try expectSections(store, \.venture?.title, as: "venture.title")
        try expectSections(store, \.venture?.budget, as: "venture.budget")
        try expectSections(store, \.venture?.lead?.name, as: "venture.lead.name")
        try expectSections(store, \.venture?.lead?.rank, as: "venture.lead.rank")
        try expectSections(store, \.venture?.lead?.mentor?.name, as: "venture.lead.mentor.name")
        try expectSections(store, \.venture?.lead?.mentor?.guild?.motto, as: "venture.lead.mentor.guild.motto")
    }

    /// Sections by `keyPath` are those by `dotted`, keys and elements, with the null section.
    func expectSections<S>(_ store: Store, _ keyPath: KeyPath<Chore, S>, as dotted: String,
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
        let descriptor = FetchDescriptor<Chore>(sortBy: [.init(\.venture?.lead?.name), .init(\.id)])
        let typed = try ResultsController(store: store, descriptor, sectionedBy: keyPath, queue: DispatchQueue(label: "typed"))
        let written = try ResultsController(store: store, descriptor, sectionKeyPath: dotted, queue: DispatchQueue(label: "written"))
        try typed.performFetch()
        try written.performFetch()
        #expect(typed.sections.map(\.key) == written.sections.map(\.key), sourceLocation: sourceLocation)
        #expect(typed.sections.map { $0.elements.map(\.id) } == written.sections.map { $0.elements.map(\.id) }, sourceLocation: sourceLocation)
        #expect(typed.sections.contains { $0.key == .null }, sourceLocation: sourceLocation)
        #expect(typed.sections.flatMap(\.elements).count == 7, sourceLocation: sourceLocation)
    }

    @Test func aKeyPathThatNamesNoStoredPropertyIsRefused() throws {
        let store = try choreStore()
        try store.read { s in
            #expect(throws: ModelQueryError.self) { try s.objects(Chore.self, sortBy: [.init(\.venture?.title.count)]).count }
            #expect(throws: ModelQueryError.self) { try s.objects(Chore.self, sortBy: [.init(\.venture?.crew.count)]).count }
            #expect(throws: ModelQueryError.self) { try s.objects(Invoice.self, sortBy: [.init(\.ledger?.total)]).count }
        }
        let isModelQueryError: (any Error) -> Bool = { $0 is ModelQueryError }
        #expect(performing: { try ResultsController(store: store, FetchDescriptor<Chore>(), sectionedBy: \.venture?.lead) }, throws: isModelQueryError)
        #expect(performing: { try ResultsController(store: store, FetchDescriptor<Chore>(), sectionedBy: \.venture?.crew) }, throws: isModelQueryError)
        #expect(performing: { try ResultsController(store: store, FetchDescriptor<Chore>(), sectionedBy: \.venture?.title.first) }, throws: isModelQueryError)
    }
}
