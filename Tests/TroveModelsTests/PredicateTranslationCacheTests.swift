#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import Trove
import TroveModels

/// A predicate is translated once per shape: these run one closure with different captured
/// values, and closures that differ only in what the cache key must tell apart.
@Suite struct PredicateTranslationCacheTests {
    func ids(_ store: Store, _ predicate: Predicate<Person>) throws -> [Int] {
        try store.read { try $0.objects(Person.self, where: predicate).map(\.id) }
    }

    func text(_ predicate: Predicate<Person>) throws -> String {
        try FetchDescriptor(predicate: predicate).queryText().text
    }

    func named(_ name: String) -> Predicate<Person> { #Predicate { $0.name == name } }

    @Test func aRepeatedPredicateSelectsByItsCurrentCapturedValues() throws {
        let store = try peopleStore()
        for _ in 0..<2 {
            #expect(try ids(store, named("Ann")) == [1])
            #expect(try ids(store, named("Cid")) == [3])
            #expect(try ids(store, named("Zed")) == [])
        }
        func between(_ low: Int, _ high: Int) -> Predicate<Person> { #Predicate { $0.age >= low && $0.age < high } }
        #expect(try ids(store, between(20, 35)) == [1, 2])
        #expect(try ids(store, between(35, 50)) == [3])
        #expect(try text(between(35, 50)) == "Person where age >= $0 AND age < $1")
    }

    @Test func predicatesThatDifferOnlyInAKeyPathOrAnOperatorAreTranslatedApart() throws {
        let store = try peopleStore()
        func over(_ keyPath: KeyPath<Person, Int>, _ value: Int) -> Predicate<Person> {
            keyPath == \Person.age ? #Predicate { $0.age > value } : #Predicate { $0.id > value }
        }
        #expect(try ids(store, over(\.age, 2)) == [1, 2, 3, 4])
        #expect(try ids(store, over(\.id, 2)) == [3, 4])
        #expect(try ids(store, over(\.age, 30)) == [1, 3])
        func under(_ value: Int) -> Predicate<Person> { #Predicate { $0.age < value } }
        #expect(try ids(store, under(30)) == [2, 4])
        #expect(try text(over(\.id, 2)) == "Person where id > $0")
        #expect(try text(under(2)) == "Person where age < $0")
    }

    @Test func capturedNilBoolsAndArraysChangeTheTranslation() throws {
        let store = try peopleStore()
        func nickname(_ nick: String?) -> Predicate<Person> { #Predicate { $0.nickname == nick } }
        #expect(try ids(store, nickname(nil)) == [2, 4])
        #expect(try ids(store, nickname("annie")) == [1])
        #expect(try ids(store, nickname(nil)) == [2, 4])
        #expect(try text(nickname(nil)) == "Person where nickname == nil")

        func goodFriend(_ good: Bool) -> Predicate<Person> { #Predicate { $0.bestFriend?.isGood == good } }
        #expect(try ids(store, goodFriend(true)) == [1, 4])
        #expect(try ids(store, goodFriend(false)) == ids(store, #Predicate { $0.bestFriend?.isGood == false }))
        #expect(try ids(store, goodFriend(false)) != ids(store, goodFriend(true)))

        func among(_ names: [String]) -> Predicate<Person> { #Predicate { names.contains($0.name) } }
        #expect(try ids(store, among([])) == [])
        #expect(try ids(store, among(["Bob"])) == [2])
        #expect(try ids(store, among(["Dee", "Ann"])) == [1, 4])
        #expect(try ids(store, among(["Cid"])) == [3])
    }

    @Test func closureVariablesAreToldApart() throws {
        let store = try peopleStore()
        func dogOlderThan(_ age: Int) -> Predicate<Person> { #Predicate { $0.dogs.contains { dog in dog.age > age } } }
        #expect(try ids(store, dogOlderThan(5)) == [1, 2])
        #expect(try ids(store, dogOlderThan(2)) == [1, 2, 4])
        let everyDogGood = #Predicate<Person> { $0.dogs.allSatisfy { dog in dog.isGood } }
        #expect(try ids(store, everyDogGood) == [3, 4])
        #expect(try ids(store, everyDogGood) == [3, 4])
    }

    /// Predicates of one expression type, taken in turn: each is checked against the shape the
    /// type had last, and a difference anywhere must send it to its own translation.
    @Test func predicatesOfOneExpressionTypeInTurnNeverGetAnotherShapesTranslation() throws {
        let store = try peopleStore()
        func over(_ keyPath: KeyPath<Person, Int>, _ value: Int) -> Predicate<Person> {
            keyPath == \Person.age ? #Predicate { $0.age > value } : #Predicate { $0.id > value }
        }
        func under(_ value: Int) -> Predicate<Person> { #Predicate { $0.age < value } }
        // The same key path, written at another call site: equal, not identical.
        func older(_ value: Int) -> Predicate<Person> { #Predicate { $0.age > value } }
        func nickname(_ nick: String?) -> Predicate<Person> { #Predicate { $0.nickname == nick } }
        func goodFriend(_ good: Bool) -> Predicate<Person> { #Predicate { $0.bestFriend?.isGood == good } }
        func among(_ names: [String]) -> Predicate<Person> { #Predicate { names.contains($0.name) } }
        func olderDog(inner: Bool) -> Predicate<Person> {
            inner ? #Predicate { p in p.dogs.contains { a in p.dogs.contains { b in b.age > a.age } } }
                : #Predicate { p in p.dogs.contains { a in p.dogs.contains { b in a.age > b.age } } }
        }
        // Told apart only by which closure each variable belongs to (queries refuse such
        // correlated subqueries, but the texts differ).
        let olderDogTexts = try [true, false].map { try text(olderDog(inner: $0)) }
        #expect(olderDogTexts[0] != olderDogTexts[1])
        for _ in 0..<3 {
            #expect(try ids(store, over(\.age, 30)) == [1, 3])
            #expect(try ids(store, over(\.id, 30)) == [])
            #expect(try ids(store, under(30)) == [2, 4])
            #expect(try ids(store, older(30)) == [1, 3])
            #expect(try ids(store, over(\.id, 2)) == [3, 4])
            #expect(try ids(store, older(24)) == [1, 2, 3])
            #expect(try ids(store, nickname("c")) == [3])
            #expect(try ids(store, nickname(nil)) == [2, 4])
            #expect(try ids(store, goodFriend(false)) == [2])
            #expect(try ids(store, goodFriend(true)) == [1, 4])
            #expect(try ids(store, among(["Bob", "Cid"])) == [2, 3])
            #expect(try ids(store, among(["Dee"])) == [4])
            #expect(try ids(store, among([])) == [])
            #expect(try [true, false].map { try text(olderDog(inner: $0)) } == olderDogTexts)
        }
    }

    /// Predicates of two models can have one expression type (a constant); each keeps its own.
    @Test func oneExpressionTypeOverTwoModelsIsTranslatedForEach() throws {
        let store = try peopleStore()
        for _ in 0..<2 {
            #expect(try ids(store, #Predicate<Person> { _ in true }) == [1, 2, 3, 4])
            #expect(try store.read { try $0.objects(Dog.self, where: #Predicate<Dog> { _ in true }).map(\.id) } == [1, 2, 3])
            #expect(try ids(store, #Predicate<Person> { _ in false }) == [])
        }
    }

    /// More expression types than the slots that publish known expressions, run in turn from
    /// two threads: each query selects what its own text does.
    @Test func manyExpressionTypesInTurnEachGetTheirOwnTranslation() async throws {
        let store = try peopleStore()
        let cases: [(Predicate<Person>, [Int])] = [
            (#Predicate { $0.name == "Bob" }, [2]),
            (#Predicate { $0.age > 30 }, [1, 3]),
            (#Predicate { $0.age >= 25 && $0.age < 40 }, [1, 2]),
            (#Predicate { $0.nickname == nil }, [2, 4]),
            (#Predicate { $0.name.starts(with: "D") }, [4]),
            (#Predicate { $0.score > 2 || $0.id == 2 }, [1, 2, 3]),
            (#Predicate { $0.tags.contains("b") }, [1, 3]),
            (#Predicate { $0.bestFriend?.name == "Ace" }, [4]),
        ]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask { () throws -> Void in
                    for round in 0..<20 {
                        for (predicate, expected) in round.isMultiple(of: 2) ? cases : Array(cases.reversed()) {
                            let found = try store.read { try $0.objects(Person.self, where: predicate).map(\.id) }
                            #expect(found == expected)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func aPredicateGivenAsItIsOrAsAnOptionalSelectsAlike() throws {
        let store = try peopleStore()
        let over20 = #Predicate<Person> { $0.age > 20 }
        let optional: Predicate<Person>? = over20
        let none: Predicate<Person>? = nil
        let found = try store.read { snapshot in
            [
                try snapshot.objects(Person.self, where: over20).map(\.id),
                try snapshot.objects(Person.self, where: optional).map(\.id),
                try snapshot.objects(Person.self, where: none).map(\.id),
                try snapshot.objects(Person.self, where: over20, sortBy: [.init(\.age, order: .reverse)], limit: 2).map(\.id),
                try snapshot.objects(Person.self, where: optional, sortBy: [.init(\.age)], offset: 1).map(\.id),
                try snapshot.objects(Person.self, where: none, sortBy: [.init(\.age)], limit: 1).map(\.id),
            ]
        }
        #expect(found == [[1, 2, 3], [1, 2, 3], [1, 2, 3, 4], [3, 1], [1, 3], [4]])
    }

    @Test func anUnsupportedConstructIsAnErrorEveryTime() throws {
        let store = try peopleStore()
        for _ in 0..<2 {
            #expect {
                try ids(store, #Predicate { $0.age + 1 > 30 })
            } throws: { error in
                String(describing: error).contains("Arithmetic")
            }
        }
    }
}
