import Testing
import Trove
import TroveModels

/// The lists of a `where:` closure as Realm Swift spells them: aggregates of a list's property
/// or of a list of numbers, `ALL`/`ANY`/`NONE` of a closure over an element, and the subquery
/// count; each the query text a person would write, selecting what that text selects.
@Suite struct ModelQueryCollectionTests: WhereClosureQueries {
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

    /// The objects of `model` the query text selects.
    func ids(_ store: Store, _ model: String, _ text: String) throws -> [Int] {
        try store.read { try $0.objects(model, where: text).map { Int(try $0.int("id") ?? -1) } }
    }

    /// A null element under `ALL` and `NONE` (Bob's and Dee's nicknames; every `verified`)
    /// and an aggregate of an empty list (Cid's dogs) select what the query text selects.
    @Test func nullElementsAndEmptyListsSelectWhatTheQueryTextSelects() throws {
        let store = try store()
        try store.write { tx in
            var ann = try #require(try tx.object(Person.self, primaryKey: 1))
            ann.verified = true
            try tx.upsert(ann)
        }
        func dogs(_ query: (ModelQuery<Dog, Dog>) -> ModelCondition<Dog>) throws -> [Int] {
            try store.read { try $0.objects(Dog.self, where: query).map(\.id) }
        }
        #expect(try dogs { $0.owners.allSatisfy { $0.nickname == "annie" } } == ids(store, "Dog", "ALL owners.nickname == 'annie'"))
        #expect(try dogs { $0.owners.allSatisfy { $0.nickname != "annie" } } == ids(store, "Dog", "ALL owners.nickname != 'annie'"))
        #expect(try dogs { $0.owners.allSatisfy { $0.nickname != "annie" } } == [3])
        #expect(try dogs { !$0.owners.contains(where: { $0.nickname == "annie" }) } == ids(store, "Dog", "NONE owners.nickname == 'annie'"))
        #expect(try dogs { !$0.owners.contains(where: { $0.nickname == nil }) } == ids(store, "Dog", "NONE owners.nickname == nil"))
        #expect(try dogs { $0.owners.allSatisfy { $0.verified } } == ids(store, "Dog", "ALL owners.verified == true"))
        #expect(try dogs { $0.owners.allSatisfy { !$0.verified } } == ids(store, "Dog", "ALL owners.verified != true"))
        #expect(try dogs { $0.owners.allSatisfy { !$0.verified } } == [3])
        #expect(try dogs { !$0.owners.contains(where: { $0.verified }) } == ids(store, "Dog", "NONE owners.verified == true"))

        #expect(try ids(store) { !($0.dogs.age.avg > 3) } == ids(store, "Person", "NOT (dogs.@avg.age > 3)"))
        #expect(try ids(store) { !($0.dogs.age.avg > 3) } == [3, 4])
        #expect(try ids(store) { $0.dogs.age.avg <= 3 } == ids(store, "Person", "dogs.@avg.age <= 3"))
        #expect(try ids(store) { !($0.dogs.age.max < 5) } == ids(store, "Person", "NOT (dogs.@max.age < 5)"))
    }

    /// A subquery's parameters come before those of what its count is compared with, in every
    /// form of comparison.
    @Test func aSubquerysParametersComeFirst() throws {
        let store = try store()
        let older = ModelQuery<Person, Person>().dogs.age > 2
        #expect(try (older.count == 1).queryText().arguments == [.int(2), .int(1)])
        #expect(try older.count.in([1, 2]).queryText().arguments == [.int(2), .list([.int(1), .int(2)])])
        #expect(try older.count.contains(1...2).queryText().arguments == [.int(2), .int(1), .int(2)])
        #expect(try (older.count < ModelQuery<Person, Person>().dogs.count).queryText().arguments == [.int(2)])
        #expect(try ids(store) { ($0.dogs.age > 2).count.contains(1...2) } == ids(store, "Person", "SUBQUERY(dogs, $d, $d.age > 2).@count BETWEEN {1, 2}"))
        #expect(try ids(store) { ($0.dogs.age > 2).count.in([2]) } == [1])
        #expect(try ids(store) { ($0.dogs.age > 2).count < $0.dogs.count } == [4])
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

    /// Inside an element's closure, a path through one more list is of that element's list:
    /// an aggregate there is one list's, and a comparison through two lists is `ANY`.
    @Test func anAggregateInAnElementsClosureIsOfThatElementsList() throws {
        let store = try store()
        let text = "SUBQUERY(dogs, $x0, $x0.owners.@avg.age > $0).@count > 0"
        #expect(try self.text { $0.dogs.contains(where: { $0.owners.age.avg > 24 }) } == "Person where " + text)
        let written = try store.read { try $0.objects("Person", where: text, arguments: [.double(24)]).map { Int(try $0.int("id") ?? -1) } }
        #expect(try ids(store) { $0.dogs.contains(where: { $0.owners.age.avg > 24 }) } == written)
        #expect(written == [1, 2, 4])
        #expect(try ids(store) { $0.dogs.owners.age > 30 } == ids(store, "Person", "ANY dogs.owners.age > 30"))
    }

    @Test func aPropertyThroughAListComparesWithOneOfTheObjectAsAnyOfIt() throws {
        let store = try store()
        #expect(try text { $0.dogs.age > $0.bestFriend.age } == "Person where ANY dogs.age > bestFriend.age")
        #expect(try ids(store) { $0.dogs.age > $0.bestFriend.age } == ids(store, "Person", "ANY dogs.age > bestFriend.age"))
        #expect(try ids(store) { $0.dogs.age > $0.bestFriend.age } == [1, 4])
        #expect(try text { $0.bestFriend.age < $0.dogs.age } == "Person where bestFriend.age < dogs.age")
        #expect(try ids(store) { $0.bestFriend.age < $0.dogs.age } == [1, 4])
        #expect(try ids(store) { $0.dogs.name == $0.bestFriend.name && $0.age > 20 } == [1, 2])
        #expect(try ids(store) { $0.dogs.owners.age >= $0.age } == ids(store, "Person", "ANY dogs.owners.age >= age"))
    }

    /// Each side through a list would be any of its values, and the query language quantifies
    /// one side only: the translation refuses it, naming the comparison, before any query runs.
    @Test func comparingTwoPathsThroughListsIsAnErrorNamingTheComparison() throws {
        let store = try store()
        func refusal(_ written: String) -> String {
            "where: \(written) compares two paths through lists; only one side of a comparison may cross a list (compare the other with a value, or with a property of the object)"
        }
        #expect(performing: { try ids(store) { $0.dogs.age > $0.dogs.age } }, throws: { "\($0)" == refusal("$0.dogs.age > $0.dogs.age") })
        #expect(performing: { try text { $0.dogs.age > $0.dogs.age } }, throws: { $0 is ModelQueryError })
        #expect(performing: { try ids(store) { $0.dogs.name == $0.dogs.owners.name } },
                throws: { "\($0)" == refusal("$0.dogs.name == $0.dogs.owners.name") })
        #expect(performing: { try ids(store) { $0.age > 3 && $0.dogs.owners.age <= $0.dogs.age } },
                throws: { "\($0)" == refusal("$0.dogs.owners.age <= $0.dogs.age") })
        // One side through a list, the other an aggregate of one: one value against each.
        #expect(try text { $0.dogs.age > $0.dogs.age.max } == "Person where ANY dogs.age > dogs.@max.age")
    }

    @Test func aClosureOverAListOfAnElementsListNestsInTheElementsClosure() throws {
        let store = try store()
        let text = "SUBQUERY(dogs, $x0, SUBQUERY($x0.owners, $x1, $x1.age > $0 AND $x1.name != $1).@count > 0).@count > 0"
        #expect(try self.text { $0.dogs.contains(where: { $0.owners.contains(where: { $0.age > 30 && $0.name != "Ann" }) }) } == "Person where " + text)
        #expect(try ids(store) { $0.dogs.contains(where: { $0.owners.contains(where: { $0.age > 30 && $0.name != "Ann" }) }) } == [])
        #expect(try ids(store) { $0.dogs.contains(where: { $0.owners.contains(where: { $0.age > 20 && $0.name != "Ann" }) }) } == [1, 2])
    }

    @Test func aListFormOnWhatIsNoListIsAnErrorNamingIt() throws {
        let store = try store()
        #expect(throws: ModelQueryError.self) { try ids(store) { ($0.age > 3).count > 0 } }
        #expect(throws: ModelQueryError.self) { try ids(store) { ($0.dogs.age > 3 && $0.age > 3).count > 0 } }
    }
}
