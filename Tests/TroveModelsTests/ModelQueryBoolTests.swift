import Testing
import Trove
import TroveModels

/// A `Bool` or `Bool?` property alone is a condition of a `where:` closure, as in Realm Swift:
/// true when the property is true (a null one is not), the same statement as `== true`.
@Suite struct ModelQueryBoolTests: WhereClosureQueries {
    func store() throws -> Store {
        let store = try peopleStore()
        try store.write { tx in
            for (id, active, verified) in [(1, true, true), (2, false, false), (3, true, nil)] as [(Int, Bool, Bool?)] {
                var person = try #require(try tx.object(Person.self, primaryKey: id))
                person.isActive = active
                person.verified = verified
                try tx.upsert(person)
            }
        }
        return store
    }

    @Test func aBoolPropertyAloneIsTrueWhenTrue() throws {
        let store = try store()
        #expect(try ids(store) { $0.isActive } == [1, 3])
        #expect(try ids(store) { !$0.isActive } == [2, 4])
        #expect(try ids(store) { $0.isActive && $0.age > 35 } == [3])
        #expect(try ids(store) { $0.age > 35 && $0.isActive } == [3])
        #expect(try ids(store) { $0.age < 20 || $0.isActive } == [1, 3, 4])
        #expect(try ids(store) { $0.isActive || $0.verified } == [1, 3])
        #expect(try ids(store) { $0.bestFriend.isGood } == [1, 4])
        #expect(try ids(store) { $0.dogs.isGood && !$0.isActive } == [4])
        #expect(try text { $0.isActive } == "Person where isActive == $0")
        #expect(try text { $0.isActive } == (try text { $0.isActive == true }))
        #expect(try text { !$0.isActive } == "Person where isActive == $0")
        #expect(try ModelQuery<Person, Person>().isActive.modelCondition().queryText().arguments == [.bool(true)])
        #expect(try (!ModelQuery<Person, Person>().isActive).queryText().arguments == [.bool(false)])
        #expect(try text { $0.isActive && $0.age > 3 } == "Person where isActive == $0 AND age > $1")
        #expect(try store.read { try $0.fetch(FetchDescriptor<Person>(where: { $0.isActive })).map(\.id) } == [1, 3])
    }

    @Test func anOptionalBoolAloneIsTrueOnlyWhenTrue() throws {
        let store = try store()
        #expect(try ids(store) { $0.verified } == [1])
        // The opposite of `$0.verified`: false or null.
        #expect(try ids(store) { !$0.verified } == [2, 3, 4])
        #expect(try ids(store) { $0.verified == false } == [2])
        #expect(try text { $0.verified } == "Person where verified == $0")
        #expect(try text { !$0.verified } == "Person where NOT verified == $0")
    }

    /// The people the query text selects.
    func ids(_ store: Store, _ text: String) throws -> [Int] {
        try store.read { try $0.objects("Person", where: text).map { Int(try $0.int("id") ?? -1) } }
    }

    /// `!` of a `Bool` through a link or a list is the opposite of the property alone: Cid, who
    /// has no best friend and no dogs, is selected by the negation; Ann, whose dogs are mixed,
    /// by `$0.dogs.isGood` alone.
    @Test func theNegationOfABoolThroughALinkOrAListIsItsOpposite() throws {
        let store = try store()
        #expect(try ids(store) { !$0.bestFriend.isGood } == ids(store, "NOT (bestFriend.isGood == true)"))
        #expect(try ids(store) { !$0.bestFriend.isGood } == [2, 3])
        #expect(try ids(store) { $0.dogs.isGood } == [1, 4])
        #expect(try ids(store) { !$0.dogs.isGood } == ids(store, "NONE dogs.isGood == true"))
        #expect(try ids(store) { !$0.dogs.isGood } == [2, 3])
        #expect(try text { !$0.dogs.isGood } == (try text { !$0.dogs.contains(where: { $0.isGood }) }))
        // Of one element, as of the object itself: a quantified comparison, no subquery.
        #expect(try text { $0.dogs.allSatisfy { !$0.isGood } } == "Person where ALL dogs.isGood != $0")
        #expect(try ids(store) { $0.dogs.allSatisfy { !$0.isGood } } == ids(store, "ALL dogs.isGood == false"))
        #expect(try ids(store) { $0.dogs.contains(where: { !$0.isGood }) } == ids(store, "ANY dogs.isGood == false"))
        #expect(try ids(store) { !$0.dogs.contains(where: { !$0.isGood }) } == ids(store, "NONE dogs.isGood == false"))
        #expect(try ids(store) { $0.dogs.allSatisfy { !$0.isGood && $0.age > 5 } } == ids(store, "ALL dogs.isGood == false AND ALL dogs.age > 5"))
    }

    @Test func aBoolPropertyAloneRunsAsItsQueryText() throws {
        let store = try store()
        try store.read { s in
            let typed = try s.explain(Person.self, where: { $0.isActive })
            let text = try s.explain("Person where isActive == $0", arguments: [.bool(true)])
            #expect(typed.description == text.description)
        }
    }
}
