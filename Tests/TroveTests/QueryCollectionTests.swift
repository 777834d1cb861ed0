import Foundation
import Testing
@testable import Trove

/// Lists, linkingObjects, quantifiers, aggregates and subqueries, Realm's way, on the small
/// data set (people 1 Ada, 2 Bob, 3 Zoë, 4 straße; dogs 1 Rex, 2 Fido, 3 Élan).
@Suite struct QueryCollectionTests {
    static func ids(_ predicate: String, _ arguments: [Value] = []) throws -> [Int64] {
        try QueryOperatorTests.ids(predicate, arguments)
    }

    @Test func aBareComparisonOnAListMeansAny() throws {
        #expect(try Self.ids("ANY dogs.age > 5") == [1])
        #expect(try Self.ids("SOME dogs.age > 5") == [1])
        #expect(try Self.ids("dogs.age > 5") == [1])
        #expect(try Self.ids("ANY tags ==[c] 'math'") == [1, 3])
        #expect(try Self.ids("dogs.owners.name == 'Zoë'") == [1, 3])
    }

    @Test func allAndNoneAreTrueOnAnEmptyListAndAnyIsFalse() throws {
        #expect(try Self.ids("ALL dogs.age > 2") == [1, 2, 4])
        #expect(try Self.ids("NONE dogs.age > 2") == [2, 4])
        #expect(try Self.ids("ANY dogs.age >= 0") == [1, 3])
        #expect(try Self.ids("ALL tags == 'nothing'") == [2, 4])
    }

    @Test func valueInListPropertyIsTrueWhenAnElementEqualsIt() throws {
        #expect(try Self.ids("'math' IN tags") == [1])
        #expect(try Self.ids("10 IN scores") == [2])
        #expect(try Self.ids("nil IN scores") == [2])
        #expect(try Self.ids("$0 IN scores", [3]) == [1])
        #expect(try Self.ids("name IN tags") == [])
    }

    @Test func linksInsideListsCanBeNil() throws {
        #expect(try Self.ids("ANY dogs.vet == nil") == [1, 3])
        #expect(try Self.ids("dogs.vet.rating == 5") == [1, 3])
    }

    @Test func linkingObjectsAreLists() throws {
        #expect(try Self.ids("fans.name == 'Zoë'") == [2])
        #expect(try Self.ids("fans.@count == 0") == [4])
        let store = try QueryFixtures.smallStore()
        #expect(try store.read { try $0.objects("Dog", where: "owners.@count == 2").ids } == [1])
    }

    @Test func aggregatesOfEmptyListsAreZeroOrNil() throws {
        #expect(try Self.ids("scores.@count == 0") == [3, 4])
        #expect(try Self.ids("scores.@sum == 0") == [3, 4])
        #expect(try Self.ids("scores.@avg == nil") == [3, 4])
        #expect(try Self.ids("scores.@min == nil") == [3, 4])
        #expect(try Self.ids("scores.@max == nil") == [3, 4])
        #expect(try Self.ids("dogs.@sum.age == 0") == [2, 4])
        #expect(try Self.ids("dogs.@min.weight == nil") == [2, 4])
    }

    @Test func aggregatesSkipNullElements() throws {
        #expect(try Self.ids("scores.@max == 10") == [2])
        #expect(try Self.ids("scores.@avg == 10") == [2])
        #expect(try Self.ids("scores.@avg == 2") == [1])
        #expect(try Self.ids("scores.@count == 2") == [2])
        #expect(try Self.ids("dogs.@min.weight == 10.5") == [1])
    }

    @Test func aggregatesOverLinkedObjects() throws {
        #expect(try Self.ids("dogs.@avg.age == 5") == [1])
        #expect(try Self.ids("dogs.@max.age == 3") == [3])
        #expect(try Self.ids("dogs.@min.weight == 4") == [3])
        #expect(try Self.ids("dogs.@sum.age > $0", [5]) == [1])
        #expect(try Self.ids("bestFriend.dogs.@count == 2") == [2, 4])
        #expect(try Self.ids("tags.@count >= 1") == [1, 3])
        #expect(try Self.ids("name.@size == 3") == [1, 2])
        #expect(try Self.ids("dogs.@count > level") == [2, 3])
    }

    @Test func subqueriesCountTheElementsThatMatch() throws {
        #expect(try Self.ids("SUBQUERY(dogs, $d, $d.age > 2 AND $d.weight != nil).@count > 0") == [1, 3])
        #expect(try Self.ids("SUBQUERY(dogs, $d, $d.age < 5).@count == 2") == [3])
        #expect(try Self.ids("SUBQUERY(scores, $s, $s >= 2).@count == 2") == [1])
        #expect(try Self.ids("SUBQUERY(dogs, $d, ANY $d.owners.name == 'Zoë').@count == 1") == [1])
        #expect(try Self.ids("SUBQUERY(dogs, $d, SUBQUERY($d.owners, $o, $o.age == 36).@count > 0).@count == 2") == [1])
        #expect(try Self.ids("SUBQUERY(tags, $t, $t BEGINSWITH[c] 'm').@count == 1") == [1, 3])
    }

    @Test func aQuantifierOnAPathThatCrossesNoListIsAnError() throws {
        let error = try #require(QueryBindingErrorTests.error { try $0.objects("Person", where: "ANY name == 'x'") })
        #expect(error.kind == .invalidQuantifier)
        #expect(error.column == 1)
    }
}
