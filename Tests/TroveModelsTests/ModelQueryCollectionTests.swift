import Testing
import Trove
import TroveModels

/// The lists of a `where:` closure as Realm Swift spells them: aggregates of a list's property
/// or of a list of numbers, `ALL`/`ANY`/`NONE` of a closure over an element, and the subquery
/// count; each the query text a person would write, selecting what that text selects.
@Suite struct ModelQueryCollectionTests {
    func ids<C: ModelConditionConvertible<Person>>(_ store: Store, _ query: (ModelQuery<Person, Person>) -> C) throws -> [Int] {
        try store.read { try $0.objects(Person.self, where: query).map(\.id) }
    }

    func text<C: ModelConditionConvertible<Person>>(_ query: (ModelQuery<Person, Person>) -> C) throws -> String {
        try query(ModelQuery()).modelCondition().queryText().text
    }

    /// ``peopleStore()`` with scores: Ann [5, 9], Bob [2], Cid none, Dee [7, 7, 1].
    func store() throws -> Store {
        let store = try peopleStore()
        try store.write { tx in
            for (id, scores) in [(1, [5, 9]), (2, [2]), (4, [7, 7, 1])] {
                var person = try #require(try tx.object(Person.self, primaryKey: id))
                person.scores = scores
                try tx.upsert(person)
            }
        }
        return store
    }

    @Test func aggregatesOfAListsPropertyAndOfAListOfNumbers() throws {
        let store = try store()
        #expect(try ids(store) { $0.dogs.age.avg > 3 } == [1, 2])
        #expect(try ids(store) { $0.dogs.age.sum >= 4 } == [1, 2, 4])
        #expect(try ids(store) { $0.dogs.age.min < 3 } == [4])
        #expect(try ids(store) { $0.dogs.age.max == 7 } == [1, 2])
        #expect(try ids(store) { $0.scores.sum > 8 } == [1, 4])
        #expect(try ids(store) { $0.scores.avg >= 5 } == [1, 4])
        #expect(try ids(store) { $0.scores.max < 8 } == [2, 4])
        #expect(try ids(store) { $0.scores.min == 1 } == [4])
        #expect(try ids(store) { $0.scores.count == 0 } == [3])
        #expect(try text { $0.dogs.age.avg > 3 } == "Person where dogs.@avg.age > $0")
        #expect(try text { $0.dogs.age.sum >= 4 && $0.scores.max < 8 } == "Person where dogs.@sum.age >= $0 AND scores.@max < $1")
        #expect(try text { $0.scores.min == 1 } == "Person where scores.@min == $0")
    }

    @Test func allAnyAndNoneOfAClosureOverAnElement() throws {
        let store = try store()
        #expect(try ids(store) { $0.dogs.allSatisfy { $0.age > 2 } } == [1, 2, 3])
        #expect(try ids(store) { !$0.dogs.contains(where: { $0.age > 5 }) } == [3, 4])
        #expect(try ids(store) { $0.dogs.contains(where: { $0.name == "Rex" }) } == [1, 4])
        #expect(try ids(store) { $0.dogs.contains(where: { $0.age > 2 && $0.isGood }) } == [1, 4])
        #expect(try ids(store) { $0.dogs.allSatisfy { $0.isGood && $0.age > 2 } } == [3])
        #expect(try ids(store) { $0.scores.allSatisfy { $0 >= 5 } } == [1, 3])
        #expect(try ids(store) { $0.scores.contains(where: { $0 > 3 && $0 < 6 }) } == [1])
        #expect(try text { $0.dogs.allSatisfy { $0.age > 2 } } == "Person where ALL dogs.age > $0")
        #expect(try text { !$0.dogs.contains(where: { $0.age > 5 }) } == "Person where NONE dogs.age > $0")
        #expect(try text { $0.dogs.contains(where: { $0.name == "Rex" }) } == "Person where ANY dogs.name == $0")
        #expect(try text { $0.scores.allSatisfy { $0 >= 5 } } == "Person where ALL scores >= $0")
        #expect(try text { $0.dogs.contains(where: { $0.age > 2 && $0.isGood }) }
                == "Person where SUBQUERY(dogs, $x0, $x0.age > $0 AND $x0.isGood == $1).@count > 0")
        #expect(try text { $0.scores.contains(where: { $0 > 3 && $0 < 6 }) }
                == "Person where SUBQUERY(scores, $x0, $x0 > $0 AND $x0 < $1).@count > 0")
        #expect(try text { $0.dogs.allSatisfy { $0.isGood && $0.age > 2 } }.hasPrefix("Person where SUBQUERY(dogs, $x0, NOT"))
    }

    @Test func aConditionsCountIsRealmsSubquery() throws {
        let store = try store()
        #expect(try ids(store) { ($0.dogs.age > 2 && $0.dogs.isGood).count > 0 } == [1, 4])
        #expect(try ids(store) { ($0.dogs.age > 0).count >= 2 && $0.age > 20 } == [1])
        let condition = ModelQuery<Person, Person>().dogs.age > 2 && ModelQuery<Person, Person>().dogs.isGood
        let query = try (condition.count > 0).queryText()
        #expect(query.text == "Person where SUBQUERY(dogs, $x0, $x0.age > $0 AND $x0.isGood == $1).@count > $2")
        #expect(query.arguments == [.int(2), .bool(true), .int(0)])
    }

    @Test func aListFormOnWhatIsNoListIsAnErrorNamingIt() throws {
        let store = try store()
        #expect(throws: ModelQueryError.self) { try ids(store) { $0.age.sum > 3 } }
        #expect(throws: ModelQueryError.self) { try ids(store) { ($0.age > 3).count > 0 } }
        #expect(throws: ModelQueryError.self) { try ids(store) { $0.dogs.owners.age.avg > 3 } }
        #expect(throws: ModelQueryError.self) { try ids(store) { ($0.dogs.age > 3 && $0.age > 3).count > 0 } }
    }
}
