#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import Trove
import TroveModels

/// The store of ``peopleStore(indexed:)`` with `people` in place of its people (its dogs stay):
/// what the differential tests query.
func peopleStore(indexed: Bool, holding people: [Person]) throws -> Store {
    let store = try peopleStore(indexed: indexed)
    try store.write { tx in
        _ = try tx.deleteAll("Person")
        for p in people { try tx.upsert(p) }
    }
    return store
}

/// A small store of people and dogs, written through the typed API.
func peopleStore(indexed: Bool = true) throws -> Store {
    var schema = try Schema(Person.self)
    if !indexed {
        schema = try Schema(schemaVersion: 0, models: schema.models.map { model in
            var model = model
            model.properties = model.properties.map { p in var p = p; p.isIndexed = false; return p }
            return model
        })
    }
    let store = try Store(configuration: .inMemory(schema: schema))
    let rex = Dog(id: 1, name: "Rex", age: 3)
    let fido = Dog(id: 2, name: "Fido", age: 7, isGood: false)
    let ace = Dog(id: 3, name: "Ace", age: 1)
    try store.write { tx in
        try tx.insert(Person(id: 1, name: "Ann", age: 31, nickname: "annie", score: 2.5, bestFriend: rex, dogs: [rex, fido], tags: ["a", "b"]))
        try tx.insert(Person(id: 2, name: "Bob", age: 25, bestFriend: fido, dogs: [fido], tags: []))
        try tx.insert(Person(id: 3, name: "Cid", age: 40, nickname: "c", score: 9, dogs: [], tags: ["b"]))
        try tx.insert(Person(id: 4, name: "Dee", age: 18, bestFriend: ace, dogs: [ace, rex], tags: ["c"]))
    }
    return store
}

/// A model that links to no other, for a store without `Person`.
@Model struct Lone {
    @Attribute(.primaryKey) var id: Int
}

@Suite struct TypedQueryTests {
    func ids(_ store: Store, _ predicate: Predicate<Person>) throws -> [Int] {
        try store.read { try $0.objects(Person.self, where: predicate).map(\.id) }
    }

    func text(_ predicate: Predicate<Person>) throws -> String {
        try FetchDescriptor(predicate: predicate).queryText().text
    }

    @Test func comparisonsAndBooleanOperatorsSelectWhatSwiftWould() throws {
        let store = try peopleStore()
        let minimum = 20
        #expect(try ids(store, #Predicate { $0.age > minimum && $0.name != "Cid" }) == [1, 2])
        #expect(try ids(store, #Predicate { $0.age < 20 || $0.score >= 9 }) == [3, 4])
        #expect(try ids(store, #Predicate { !($0.age <= 30) }) == [1, 3])
        #expect(try text(#Predicate { $0.age > minimum && $0.name != "Cid" }) == "Person where age > $0 AND name != $1")
    }

    @Test func optionalsCompareWithNilAndThroughLinks() throws {
        let store = try peopleStore()
        #expect(try ids(store, #Predicate { $0.nickname == nil }) == [2, 4])
        #expect(try ids(store, #Predicate { $0.bestFriend == nil }) == [3])
        #expect(try ids(store, #Predicate { $0.bestFriend?.name == "Rex" }) == [1])
        #expect(try ids(store, #Predicate { if let dog = $0.bestFriend { dog.isGood } else { false } }) == [1, 4])
        #expect(try ids(store, #Predicate { $0.bestFriend.flatMap { $0.isGood } ?? true }) == [1, 3, 4])
        #expect(try text(#Predicate { $0.bestFriend?.name == "Rex" }) == "Person where bestFriend.name == $0")
    }

    @Test func stringsMatchByContainsAndPrefix() throws {
        let store = try peopleStore()
        #expect(try ids(store, #Predicate { $0.name.contains("e") }) == [4])
        #expect(try ids(store, #Predicate { $0.name.starts(with: "B") }) == [2])
        #expect(try ids(store, #Predicate { $0.name.count == 3 && !$0.name.isEmpty }) == [1, 2, 3, 4])
        let fragment = "ÉE"
        #expect(try ids(store, #Predicate { $0.name.localizedStandardContains(fragment) }) == [4])
        #expect(try text(#Predicate { $0.name.localizedStandardContains(fragment) }) == "Person where name CONTAINS[cd] $0")
        #expect(try #Predicate<Person> { $0.name.localizedStandardContains(fragment) }.evaluate(Person(id: 0, name: "dée")))
    }

    @Test func listsAnswerContainsAnyAllCountAndIsEmpty() throws {
        let store = try peopleStore()
        #expect(try ids(store, #Predicate { $0.tags.contains("b") }) == [1, 3])
        #expect(try ids(store, #Predicate { $0.tags.isEmpty }) == [2])
        #expect(try ids(store, #Predicate { $0.dogs.count >= 2 }) == [1, 4])
        #expect(try ids(store, #Predicate { $0.dogs.contains { $0.age > 5 } }) == [1, 2])
        #expect(try ids(store, #Predicate { $0.dogs.allSatisfy { $0.isGood } }) == [3, 4])
        #expect(try ids(store, #Predicate { $0.tags.contains { $0.starts(with: "c") } }) == [4])
        let wanted = [2, 4, 9]
        #expect(try ids(store, #Predicate { wanted.contains($0.id) }) == [2, 4])
    }

    @Test func anUnsupportedConstructIsAnErrorNamingIt() throws {
        let store = try peopleStore()
        #expect {
            try ids(store, #Predicate { $0.age + 1 > 30 })
        } throws: { error in
            String(describing: error).contains("Arithmetic")
        }
    }

    @Test func aFetchOfAModelTheStoreLacksNamesTheModelNotAQueryText() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Lone.self)))
        try store.read { s in
            #expect(throws: StoreError.noSuchModel("Person")) { try s.objects(Person.self).count }
            #expect(throws: StoreError.noSuchModel("Person")) { try s.objects(Person.self, sortBy: [.init(\.name)], limit: 1).count }
            #expect(throws: StoreError.noSuchModel("Person")) { try s.explain(FetchDescriptor<Person>()) }
            #expect(throws: StoreError.noSuchModel("Person")) { try s.objects(Person.self, where: #Predicate { $0.age > 1 }).count }
        }
    }

    @Test func typedQueriesUseIndexesAndExplain() throws {
        let store = try peopleStore()
        let name = "Bob"
        let plan = try store.read { try $0.explain(FetchDescriptor<Person>(predicate: #Predicate { $0.name == name })) }
        #expect(!plan.isScan)
        #expect(plan.actualRows == 1)
    }

    @Test func sortOffsetLimitAndAggregates() throws {
        let store = try peopleStore()
        try store.read { s in
            let sorted = try s.objects(Person.self, sortBy: [.init(\.age, order: .reverse)], offset: 1, limit: 2)
            #expect(try sorted.map(\.id) == [1, 2])
            let byNickname = try s.objects(Person.self, sortBy: [.init(\.nickname), .init(\.name)])
            #expect(try byNickname.map(\.id) == [2, 4, 1, 3])
            let all = try s.objects(Person.self)
            #expect(try all.sum(\.age) == 114)
            #expect(try all.average(\.score) == 11.5 / 4)
            #expect(try all.min(\.age) == 18)
            #expect(try all.max(\.score) == 9)
            #expect(try s.fetchCount(FetchDescriptor<Person>(predicate: #Predicate { $0.age > 20 })) == 3)
        }
    }
}

/// What the suites of `where:` closures ask of a closure over ``Person``: the ids it selects
/// and the query text it stands for.
protocol WhereClosureQueries {}

extension WhereClosureQueries {
    func ids<C: ModelConditionConvertible<Person>>(_ store: Store, _ query: (ModelQuery<Person, Person>) -> C) throws -> [Int] {
        try store.read { try $0.objects(Person.self, where: query).map(\.id) }
    }

    func text<C: ModelConditionConvertible<Person>>(_ query: (ModelQuery<Person, Person>) -> C) throws -> String {
        try query(ModelQuery()).modelCondition().queryText().text
    }
}
