import Dispatch
import Testing
import Trove
import TroveModels

@Model struct Street: Sendable {
    @Attribute(.primaryKey) var id: Int
    var city: String
    var zip: Int
}

/// A class that links to its own model and to a struct model. Its links are `var`s, whose key
/// paths are reference-writable; `@unchecked Sendable` for a `ResultsController`, which
/// hands the instances it maps to no one else here.
@Model final class Tutor: @unchecked Sendable {
    @Attribute(.primaryKey) var id: Int
    var name: String
    var mentor: Tutor?
    var address: Street?

    init(id: Int, name: String, mentor: Tutor? = nil, address: Street? = nil) {
        self.id = id
        self.name = name
        self.mentor = mentor
        self.address = address
    }
}

@Model final class Steward: @unchecked Sendable {
    @Attribute(.primaryKey) var id: Int
    var address: Street?

    init(id: Int, address: Street? = nil) {
        self.id = id
        self.address = address
    }
}

/// A struct model that links to a class model, which links to a struct model.
@Model struct Errand: Sendable {
    @Attribute(.primaryKey) var id: Int
    var owner: Steward?
}

/// Key paths that cross a class link and go on into a struct model (`\Tutor.mentor?.address?.city`,
/// `\Errand.owner?.address?.city`) name their dotted paths in sorts, sections, aggregates and
/// SELECT, as key paths through struct links do.
@Suite struct ClassLinkKeyPathTests {
    func store() throws -> Store {
        let store = try Store(configuration: .inMemory(schema: Schema(Tutor.self, Errand.self)))
        let oslo = Street(id: 1, city: "Oslo", zip: 150), bergen = Street(id: 2, city: "Bergen", zip: 5003)
        let ann = Tutor(id: 1, name: "Ann", address: oslo)
        let bob = Tutor(id: 2, name: "Bob", address: bergen)
        let cid = Tutor(id: 3, name: "Cid")
        try store.write { tx in
            try tx.insert(ann)
            try tx.insert(bob)
            try tx.insert(cid)
            try tx.insert(Tutor(id: 4, name: "Dee", mentor: bob))
            try tx.insert(Tutor(id: 5, name: "Eve", mentor: ann))
            try tx.insert(Tutor(id: 6, name: "Fay", mentor: cid))
            try tx.insert(Errand(id: 1, owner: Steward(id: 1, address: oslo)))
            try tx.insert(Errand(id: 2, owner: Steward(id: 2, address: bergen)))
            try tx.insert(Errand(id: 3, owner: Steward(id: 3)))
            try tx.insert(Errand(id: 4))
        }
        return store
    }

    @Test func aSortThroughAClassIntoAStructOrdersAsItsDottedPath() throws {
        let store = try store()
        try store.read { s in
            let tutors = try s.objects(Tutor.self, sortBy: [.init(\.mentor?.address?.city, order: .reverse), .init(\.id)])
            #expect(try tutors.map(\.id) == s.query("Tutor SORT(mentor.address.city DESC, id ASC)").map { Int(try $0.int("id") ?? -1) })
            #expect(try tutors.map(\.id) == [5, 4, 1, 2, 3, 6])
            let errands = try s.objects(Errand.self, sortBy: [.init(\.owner?.address?.city), .init(\.id)])
            #expect(try errands.map(\.id) == [3, 4, 2, 1])
        }
    }

    @Test func aggregatesAndSelectThroughAClassIntoAStruct() throws {
        let store = try store()
        try store.read { s in
            let tutors = try s.objects(Tutor.self)
            #expect(try tutors.max(\.mentor?.address?.zip) == 5003 && tutors.sum(\.mentor?.address?.zip) == 5153)
            let rows: [(Int, String?)] = try tutors.select(\.id, \.mentor?.address?.city)
            #expect(rows.map(\.1) == [nil, nil, nil, "Bergen", "Oslo", nil])
            let errands = try s.objects(Errand.self)
            #expect(try errands.min(\.owner?.address?.zip) == 150)
            let cities: [String?] = try errands.select(\.owner?.address?.city)
            #expect(cities == ["Oslo", "Bergen", nil, nil])
        }
    }

    @Test func sectionsThroughAClassIntoAStruct() throws {
        let store = try store()
        let tutors = try ResultsController(store: store, FetchDescriptor<Tutor>(sortBy: [.init(\.id)]),
                                           sectionedBy: \.mentor?.address?.city, queue: DispatchQueue(label: "tutors"))
        let written = try ResultsController(store: store, FetchDescriptor<Tutor>(sortBy: [.init(\.id)]),
                                            sectionKeyPath: "mentor.address.city", queue: DispatchQueue(label: "written"))
        try tutors.performFetch()
        try written.performFetch()
        #expect(tutors.sections.map(\.key) == written.sections.map(\.key))
        #expect(tutors.sections.map { $0.elements.map(\.id) } == written.sections.map { $0.elements.map(\.id) })
        #expect(tutors.sections.count == 3)
        let errands = try ResultsController(store: store, FetchDescriptor<Errand>(sortBy: [.init(\.id)]),
                                            sectionedBy: \.owner?.address?.city, queue: DispatchQueue(label: "errands"))
        try errands.performFetch()
        #expect(errands.sections.map { $0.elements.map(\.id) }.sorted { $0[0] < $1[0] } == [[1], [2], [3, 4]])
    }
}
