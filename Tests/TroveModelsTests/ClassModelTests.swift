#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Testing
import Trove
import TroveModels

/// `@Model final class` models: what struct models do, with instances that are detached
/// values. The contract tests run over `Person` and its class twin `PersonObject`.
@Suite struct ClassModelTests {
    enum Kind: CaseIterable, Sendable { case structModel, classModel }

    func run(_ kind: Kind, _ body: (any DifferentialPerson.Type) throws -> Void) rethrows {
        try body(kind == .structModel ? Person.self : PersonObject.self)
    }

    /// Insert, read, upsert, get-or-create and delete through the typed API.
    func writesAndReads<P: DifferentialPerson>(_ model: P.Type) throws {
        let store = try Store(configuration: .inMemory(schema: Schema(P.self)))
        let ann = P(Person(id: 1, name: "Ann", age: 31, nickname: "annie", bestFriend: Dog(id: 1, name: "Rex"), dogs: [Dog(id: 2, name: "Fido")], tags: ["a"]))
        try store.write { tx in try tx.insert(ann) }
        #expect(throws: StoreError.self) { try store.write { tx in try tx.insert(ann) } }
        let read = try #require(try store.read { try $0.object(P.self, primaryKey: 1) })
        #expect(read[keyPath: P.name] == "Ann" && read[keyPath: P.nickname] == "annie" && read[keyPath: P.tags] == ["a"])
        #expect(read[keyPath: P.bestFriend].map { $0[keyPath: P.petName] } == "Rex")
        #expect(read[keyPath: P.dogs].map { $0[keyPath: P.petName] } == ["Fido"])

        try store.write { tx in try tx.upsert(P(Person(id: 1, name: "Anna"))) }
        #expect(try store.read { try $0.object(P.self, primaryKey: 1)?[keyPath: P.name] } == "Anna")
        let created = try store.write { tx in try tx.getOrCreate(P.self, primaryKey: 7) }
        #expect(created[keyPath: P.id] == 7 && created[keyPath: P.age] == 0)
        #expect(try store.write { tx in try tx.getOrCreate(P(Person(id: 7, name: "other"))) }[keyPath: P.name] == created[keyPath: P.name])
        #expect(try store.write { tx in try tx.delete(created) })
        #expect(try store.read { try $0.fetchCount(FetchDescriptor<P>()) } == 1)
    }

    @Test(arguments: Kind.allCases) func typedWritesAndReads(_ kind: Kind) throws {
        try run(kind) { try writesAndReads($0) }
    }

    /// A partial update writes what the closure changed: not a change made to the value before
    /// the call, and not over a property another write changed since the value was read.
    func partialUpdateWritesTheClosuresChanges<P: DifferentialPerson>(_ model: P.Type) throws {
        let store = try peopleStore()
        var bob = try #require(try store.read { try $0.object(P.self, primaryKey: 2) })
        try store.write { tx in try tx.update("Person", primaryKey: 2, ["age": 60]) }
        bob[keyPath: P.writableNickname] = "not written"
        let updated = try store.write { tx in try tx.update(bob) { $0[keyPath: P.writableName] = "Robert" } }
        #expect(updated[keyPath: P.name] == "Robert")
        let stored = try #require(try store.read { try $0.object("Person", primaryKey: 2) })
        #expect(try stored.string("name") == "Robert" && stored.int("age") == 60 && stored.string("nickname") == nil)
    }

    @Test(arguments: Kind.allCases) func partialUpdatesWriteTheClosuresChanges(_ kind: Kind) throws {
        try run(kind) { try partialUpdateWritesTheClosuresChanges($0) }
    }

    @Test func aClassModelDerivesItsStructTwinsSchema() throws {
        #expect(try Schema(PersonObject.self) == Schema(Person.self))
        #expect(try Schema(PersonObject.self).jsonText == Schema(Person.self).jsonText)
    }

    @Test func aClassModelsUpdateChangesAnInstanceOfTheStoredObject() throws {
        let store = try peopleStore()
        let bob = try #require(try store.read { try $0.object(PersonObject.self, primaryKey: 2) })
        try store.write { tx in try tx.update("Person", primaryKey: 2, ["age": 60]) }
        let updated = try store.write { tx in try tx.update(bob) { $0.age += 1; $0.bestFriend?.age = 8 } }
        // The closure saw the stored age; the caller's instance is left as it was read.
        #expect(updated.age == 61 && updated !== bob && bob.age == 25)
        #expect(try store.read { try $0.object(PersonObject.self, primaryKey: 2)?.age } == 61)
        #expect(try store.read { try $0.object(DogObject.self, primaryKey: 2)?.age } == 8)
        // An update that changes nothing writes nothing, and one of an object that is gone fails.
        let gone = PersonObject(id: 99, name: "Gone")
        #expect(performing: { try store.write { tx in try tx.update(gone) { $0.age = 1 } } },
                throws: { ($0 as? StoreError).map { "\($0)".contains("Person") } ?? false })
    }

    @Test func readsOfALinkedObjectAreSeparateInstances() throws {
        let store = try peopleStore()
        try store.read { s in
            // Ann and Dee both own Rex: two instances, and a change to one is in no other read.
            let ann = try #require(try s.object(PersonObject.self, primaryKey: 1))
            let dee = try #require(try s.object(PersonObject.self, primaryKey: 4))
            let annsRex = try #require(ann.dogs.first { $0.id == 1 })
            let deesRex = try #require(dee.dogs.first { $0.id == 1 })
            #expect(annsRex !== deesRex)
            annsRex.name = "changed"
            #expect(deesRex.name == "Rex")
            #expect(try s.object(PersonObject.self, primaryKey: 1)?.bestFriend?.name == "Rex")
            #expect(try s.objects(PersonObject.self, where: { $0.bestFriend.name == "Rex" }).map(\.bestFriend?.name) == ["Rex"])
        }
    }

    @Test func typedQueriesSortsAndAggregatesOfAClassModel() throws {
        let store = try peopleStore()
        try store.read { s in
            let minimum = 20
            #expect(try s.objects(PersonObject.self, where: { $0.age > minimum && $0.dogs.name == "Fido" }, sortBy: [.init(\.name)]).map(\.name) == ["Ann", "Bob"])
            #expect(try s.objects(PersonObject.self, where: #Predicate { $0.age > minimum && $0.dogs.contains { $0.name == "Fido" } }).map(\.name) == ["Ann", "Bob"])
            #expect(try s.objects(PersonObject.self, sortBy: [.init(\.bestFriend?.name, order: .reverse), .init(\.name)], limit: 3).map(\.name) == ["Ann", "Bob", "Dee"])
            let all = try s.objects(PersonObject.self)
            #expect(try all.sum(\.age) == 114 && all.max(\.bestFriend?.age) == 7 && all.average(\.score) == 2.875)
            let rows: [(String, String?)] = try all.select(\.name, \.bestFriend?.name)
            #expect(rows.map(\.1) == ["Rex", "Fido", nil, "Ace"])
            #expect(try s.explain(FetchDescriptor<PersonObject>(where: { $0.name == "Ann" })).description.contains("name"))
            #expect(try s.objects(PersonObject.self, where: { $0.name == "Ann" }).first?.dogs.first?.owners.map(\.name) == [])
            #expect(try s.objects(DogObject.self, where: { $0.id == 1 }).first?.owners.map(\.name).sorted() == ["Ann", "Dee"])
        }
    }

    @Test func everyScalarTypeRoundTripsInAClassModel() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Sample.self)))
        let sample = Sample()
        sample.flag = true; sample.small = -8; sample.medium = 1 << 20; sample.large = 1 << 40
        sample.single = 1.5; sample.double = -2.25; sample.text = "é"; sample.when = Date(timeIntervalSince1970: 86_400)
        sample.bytes = Data([1, 2, 3]); sample.amount = Decimal(string: "12.34")!; sample.other = UUID()
        sample.maybeText = "x"; sample.maybeWhen = sample.when; sample.maybeBytes = Data([9]); sample.maybeAmount = 1
        sample.readings = [1, 2.5]
        try store.write { tx in try tx.insert(sample); try tx.insert(Sample()) }
        let read = try #require(try store.read { try $0.object(Sample.self, primaryKey: sample.id) })
        #expect(read.flag && read.small == -8 && read.medium == 1 << 20 && read.large == 1 << 40 && read.single == 1.5 && read.double == -2.25)
        #expect(read.text == "é" && read.when == sample.when && read.bytes == Data([1, 2, 3]) && read.amount == Decimal(string: "12.34")!)
        #expect(read.other == sample.other && read.maybeText == "x" && read.maybeWhen == sample.when && read.maybeBytes == Data([9]))
        #expect(read.maybeAmount == 1 && read.maybeFlag == nil && read.readings == [1, 2.5])
        #expect(try store.read { try $0.objects(Sample.self, where: { $0.maybeText == nil }).count } == 1)
    }

    @Test func aClassModelLinksToItsOwnModelButACycleOfInstancesIsNotWritten() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Node.self)))
        try store.write { tx in try tx.insert(Node(id: 1, next: Node(id: 2, next: Node(id: 3)))) }
        #expect(try store.read { try $0.object(Node.self, primaryKey: 1)?.next?.next?.id } == 3)
        #expect(try store.read { try $0.objects(Node.self, where: { $0.next.next.id == 3 }).map(\.id) } == [1])
        let a = Node(id: 10), b = Node(id: 11, next: a)
        a.next = b
        #expect(performing: { try store.write { tx in try tx.insert(a) } },
                throws: { "\($0)".contains("cycle") })
        #expect(try store.read { try $0.object(Node.self, primaryKey: 10) } == nil)
    }

    @Test func liveResultsAndObserversTakeClassModels() async throws {
        let store = try peopleStore()
        let live = try LiveResults(store: store, FetchDescriptor<PersonObject>(where: { $0.age < 30 }))
        #expect(try live.values(as: PersonObject.self).map(\.id) == [2, 4])
        try await store.write { tx in try tx.insert(PersonObject(id: 9, name: "Zoe", age: 5)) }
        _ = try live.refresh()
        #expect(try live.values(as: PersonObject.self).map(\.id) == [2, 4, 9])

        let observer = try ObjectObserver(store: store, PersonObject.self, primaryKey: 2, queue: DispatchQueue(label: "class-observer"))
        var changes = observer.changes.makeAsyncIterator()
        // A class instance is not `Sendable`: an `async` write hands none in or out.
        try await store.write { tx in
            let bob = try #require(try tx.object(PersonObject.self, primaryKey: 2))
            try tx.update(bob) { $0.age = 26; $0.tags = ["z"] }
        }
        let change = try #require(await changes.next())
        #expect(change.keyPaths(of: PersonObject.self) == [\PersonObject.age, \PersonObject.tags])
    }
}

/// A class model whose instances are `Sendable` (its properties are `let`s of `Sendable`
/// types), as a `ResultsController`'s elements must be: it maps on its queue.
@Model final class Ticket: Sendable {
    @Attribute(.primaryKey) let id: Int
    let title: String
    let project: String?

    init(id: Int, title: String, project: String? = nil) {
        self.id = id
        self.title = title
        self.project = project
    }
}

@Suite struct ClassModelControllerTests {
    @Test func aResultsControllerSectionsSendableClassModels() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Ticket.self)))
        try store.write { tx in
            for (id, title, project) in [(1, "b", "x"), (2, "a", nil), (3, "c", "x"), (4, "d", "y")] {
                try tx.insert(Ticket(id: id, title: title, project: project))
            }
        }
        let controller = try ResultsController(
            store: store, FetchDescriptor<Ticket>(where: { $0.id > 1 }, sortBy: [.init(\.title)]),
            sectionedBy: \.project, queue: DispatchQueue(label: "class-controller"))
        try controller.performFetch()
        #expect(controller.sections.map { $0.elements.map(\.title) } == [["a"], ["c"], ["d"]])
    }
}

/// DBRepo's user as a `@Model` class: the macro keeps the `init()` a repository hands out.
@Model final class Member: EntityType {
    @Attribute(.primaryKey) var username: String = ""
    @Attribute(.indexed) var isActive: Bool = false
    var logins: Int = 0
}

@Suite struct ClassModelRepositoryTests {
    func exercise(_ repo: some Repository & RepoQueryType,
                  where fetch: ((ModelQuery<Member, Member>) -> ModelCondition<Member>) throws -> [Member],
                  matching fetchMatching: (Predicate<Member>) throws -> [Member]) throws {
        try repo.beginWrite()
        let added = try ["ann", "bob", "cy"].enumerated().map { i, name in
            let member = try repo.addEntity(Member.self)
            member.username = name
            member.isActive = i != 1
            return member
        }
        try repo.endWrite()
        #expect(added.count == 3)
        #expect(try fetch { $0.isActive == true }.map(\.username).sorted() == ["ann", "cy"])
        let bob = try #require(try fetchMatching(#Predicate { $0.username == "bob" }).first)
        try repo.beginWrite()
        bob.logins = 5
        try repo.endWrite()
        #expect(try fetch { $0.logins > 1 }.map(\.username) == ["bob"])
        try repo.beginWrite()
        try repo.removeEntity(bob)
        try repo.endWrite()
        #expect(try fetch { $0.username == "bob" }.isEmpty)
    }

    @Test func aTroveRepositoryKeepsClassModels() throws {
        let repo = TroveRepository(store: try Store(configuration: .inMemory(schema: Schema(Member.self))))
        try exercise(repo, where: { try repo.fetch(Member.self, where: $0) }, matching: { try repo.fetch(Member.self, matching: $0) })
    }

    @Test func anInMemoryRepositoryKeepsClassModels() throws {
        let repo = InMemoryRepository()
        try exercise(repo, where: { try repo.fetch(Member.self, where: $0) }, matching: { try repo.fetch(Member.self, matching: $0) })
    }
}
