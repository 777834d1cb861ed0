import Foundation
import Testing
@testable import Trove

/// Each comparison operator on each type, with nulls, modifiers and parameters, on a small
/// hand-made data set (people 1 Ada, 2 Bob, 3 Zoë, 4 straße), indexed and not.
@Suite struct QueryOperatorTests {
    static func ids(_ predicate: String, _ arguments: [Value] = [], indexed: Bool = true) throws -> [Int64] {
        let store = try QueryFixtures.smallStore(indexed: indexed)
        return try store.read { try $0.objects("Person", where: predicate, arguments: arguments).ids }
    }

    @Test(arguments: [true, false])
    func integerComparisonsTreatNullAsUnequalToEveryNumber(indexed: Bool) throws {
        #expect(try Self.ids("age == 36", indexed: indexed) == [1, 4])
        #expect(try Self.ids("age != 36", indexed: indexed) == [2, 3])
        #expect(try Self.ids("age < 36", indexed: indexed) == [3])
        #expect(try Self.ids("age <= 36", indexed: indexed) == [1, 3, 4])
        #expect(try Self.ids("age > 20", indexed: indexed) == [1, 4])
        #expect(try Self.ids("age >= 20.5", indexed: indexed) == [1, 4])
        #expect(try Self.ids("age < 20.5", indexed: indexed) == [3])
        #expect(try Self.ids("age == 20.0", indexed: indexed) == [3])
        #expect(try Self.ids("age == nil", indexed: indexed) == [2])
        #expect(try Self.ids("age != nil", indexed: indexed) == [1, 3, 4])
        #expect(try Self.ids("age BETWEEN {20, 36}", indexed: indexed) == [1, 3, 4])
        #expect(try Self.ids("age IN {20, 99, nil}", indexed: indexed) == [2, 3])
        #expect(try Self.ids("36 == age", indexed: indexed) == [1, 4])
        #expect(try Self.ids("30 < age", indexed: indexed) == [1, 4])
        #expect(try Self.ids("level >= -1 AND level < 3", indexed: indexed) == [2, 3])
    }

    @Test func aNonNullablePropertyEqualToNilMatchesNothing() throws {
        #expect(try Self.ids("level == nil") == [])
        #expect(try Self.ids("level != nil") == [1, 2, 3, 4])
    }

    @Test func floatingPointAndDecimalPropertiesCompareWithAnyNumber() throws {
        #expect(try Self.ids("score > 1") == [1, 3])
        #expect(try Self.ids("score == 3") == [3])
        #expect(try Self.ids("weight == 0.1") == [1])
        #expect(try Self.ids("balance > 10") == [1])
        #expect(try Self.ids("balance == '10.25'") == [1])
        #expect(try Self.ids("balance == 10.25") == [1])
        #expect(try Self.ids("score != 1.5") == [2, 3, 4])
        // Beyond float's range, as beyond an integer's: a number still, not an error.
        #expect(try Self.ids("weight < 1e39") == [1])
        #expect(try Self.ids("weight > -1e39 AND weight != 1e39") == [1])
        #expect(try Self.ids("weight == 1e39") == [])
    }

    @Test func datesCompareWithISO8601StringsAndDateArguments() throws {
        #expect(try Self.ids("born < '1900-01-01T00:00:00Z'") == [1])
        #expect(try Self.ids("born == '2001-01-01T00:00:00.5Z'") == [3])
        #expect(try Self.ids("born > $0", [.date(Date(timeIntervalSince1970: 0))]) == [3])
        #expect(try Self.ids("born > $0", ["1970-01-01T00:00:00Z"]) == [3])
        #expect(try Self.ids("born BETWEEN {'1800-01-01T00:00:00Z', '2100-01-01T00:00:00Z'}") == [1, 3])
    }

    @Test func boolUUIDAndDataTakeEquality() throws {
        #expect(try Self.ids("active == true") == [1, 3])
        #expect(try Self.ids("active != YES") == [2, 4])
        #expect(try Self.ids("token == 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'") == [1])
        #expect(try Self.ids("token != nil") == [1])
        #expect(try Self.ids("blob == 'AQID'") == [1])
        #expect(try Self.ids("blob == $0", [.data(Data([1, 2, 3]))]) == [1])
    }

    @Test func stringOperatorsWithModifiers() throws {
        #expect(try Self.ids("name == 'Ada'") == [1])
        #expect(try Self.ids("name ==[c] 'ADA'") == [1])
        #expect(try Self.ids("name ==[c] 'STRASSE'") == [4])
        #expect(try Self.ids("name ==[d] 'Zoe'") == [3])
        #expect(try Self.ids("name ==[cd] 'zoe'") == [3])
        #expect(try Self.ids("name != 'Ada'") == [2, 3, 4])
        #expect(try Self.ids("name BEGINSWITH 'A'") == [1])
        #expect(try Self.ids("name BEGINSWITH[c] 'a'") == [1])
        #expect(try Self.ids("name ENDSWITH 'ë'") == [3])
        #expect(try Self.ids("name ENDSWITH[d] 'e'") == [3, 4])
        #expect(try Self.ids("name CONTAINS 'o'") == [2, 3])
        #expect(try Self.ids("name CONTAINS[c] 'SS'") == [4])
        #expect(try Self.ids("name LIKE '?o*'") == [2, 3])
        #expect(try Self.ids("name LIKE[c] 'a*'") == [1])
        #expect(try Self.ids("name MATCHES '[A-Z][a-z]+'") == [1, 2])
        #expect(try Self.ids("name MATCHES[c] 'b.b'") == [2])
        #expect(try Self.ids("name < 'B'") == [1])
        #expect(try Self.ids("name >= 'Z'") == [3, 4])
        #expect(try Self.ids("name IN {'Bob', 'Zoë'}") == [2, 3])
        #expect(try Self.ids("name IN[c] {'bob', 'ZOË'}") == [2, 3])
        #expect(try Self.ids("nick == nil") == [2, 4])
        #expect(try Self.ids("nick BEGINSWITH 'z'") == [3])
        #expect(try Self.ids("nick != 'zoe'") == [1, 2, 4])
    }

    @Test func canonicallyEquivalentSpellingsAreEqual() throws {
        #expect(try Self.ids("name == 'Zoe\u{308}'") == [3])
        #expect(try Self.ids("name BEGINSWITH 'Zoe\u{308}'") == [3])
    }

    @Test func logicalOperatorsAndConstantPredicates() throws {
        #expect(try Self.ids("TRUEPREDICATE") == [1, 2, 3, 4])
        #expect(try Self.ids("FALSEPREDICATE") == [])
        #expect(try Self.ids("NOT age == 36") == [2, 3])
        #expect(try Self.ids("age == 36 AND active == true") == [1])
        #expect(try Self.ids("age == 36 || name == 'Bob'") == [1, 2, 4])
        #expect(try Self.ids("!(age == 36 OR age == nil) AND TRUEPREDICATE") == [3])
        #expect(try Self.ids("age == 36 AND FALSEPREDICATE OR name == 'Bob'") == [2])
    }

    @Test func keyPathsThroughToOneLinksReadNullLinksAsNil() throws {
        #expect(try Self.ids("bestFriend.name == 'Ada'") == [2])
        #expect(try Self.ids("bestFriend.age == nil") == [1, 3])
        #expect(try Self.ids("bestFriend.bestFriend.name == 'Ada'") == [3])
        #expect(try Self.ids("bestFriend == nil") == [1])
        #expect(try Self.ids("bestFriend != nil") == [2, 3, 4])
        #expect(try Self.ids("age == bestFriend.age") == [])
        #expect(try Self.ids("level > bestFriend.level") == [3, 4])
    }

    @Test func parametersAreTypedByThePropertyTheyMeet() throws {
        #expect(try Self.ids("age == $0", [36]) == [1, 4])
        #expect(try Self.ids("age == $0", ["36"]) == [1, 4])
        #expect(try Self.ids("name == $0", ["age == 36"]) == [])
        #expect(try Self.ids("active == $0", ["true"]) == [1, 3])
        #expect(try Self.ids("age IN $0", [[20, 36]]) == [1, 3, 4])
        #expect(try Self.ids("age == $0", [nil]) == [2])
        #expect(try Self.ids("dogs.@count > $0", ["1"]) == [1, 3])
    }

    @Test func objectsArgumentsAreVariadic() throws {
        let store = try QueryFixtures.smallStore()
        let ids = try store.read { try $0.objects("Person", where: "age == $0 AND name BEGINSWITH[c] $1", 36, "s").ids }
        #expect(ids == [4])
    }
}
