import Foundation
import Testing
@testable import Trove

/// SORT, DISTINCT and LIMIT in statements and on `Results`, on the small data set (people
/// 1 Ada 36, 2 Bob nil, 3 Zoë 20, 4 straße 36).
@Suite struct QuerySortingTests {
    static func ids(_ statement: String, indexed: Bool = true) throws -> [Int64] {
        try QueryFixtures.smallStore(indexed: indexed).read { try $0.query(statement).ids }
    }

    @Test(arguments: [true, false])
    func nullsSortFirstAscendingAndLastDescending(indexed: Bool) throws {
        #expect(try Self.ids("Person SORT(age)", indexed: indexed) == [2, 3, 1, 4])
        #expect(try Self.ids("Person SORT(age ASC)", indexed: indexed) == [2, 3, 1, 4])
        #expect(try Self.ids("Person SORT(age DESC)", indexed: indexed) == [1, 4, 3, 2])
        #expect(try Self.ids("Person where age != 20 SORT(age DESCENDING)", indexed: indexed) == [1, 4, 2])
    }

    @Test func laterKeysBreakTies() throws {
        #expect(try Self.ids("Person SORT(age DESC, name ASC)") == [1, 4, 3, 2])
        #expect(try Self.ids("Person SORT(age ASC, name DESC)") == [2, 3, 4, 1])
        #expect(try Self.ids("Person SORT(active DESC, level)") == [3, 1, 2, 4])
    }

    @Test func stringsSortByUnicodeScalars() throws {
        #expect(try Self.ids("Person SORT(name)") == [1, 2, 3, 4])
        #expect(try Self.ids("Person SORT(name DESC)") == [4, 3, 2, 1])
    }

    @Test func sortKeysGoThroughToOneLinksAndANullLinkSortsAsNull() throws {
        #expect(try Self.ids("Person SORT(bestFriend.name)") == [1, 2, 3, 4])
        #expect(try Self.ids("Person SORT(bestFriend.name DESC)") == [4, 3, 2, 1])
        #expect(try Self.ids("Person SORT(bestFriend.age DESC, id DESC)") == [2, 4, 3, 1])
    }

    @Test func distinctKeepsTheFirstOfEachCombinationAfterSorting() throws {
        #expect(try Self.ids("Person DISTINCT(age)") == [1, 2, 3])
        #expect(try Self.ids("Person SORT(age DESC) DISTINCT(age)") == [1, 3, 2])
        #expect(try Self.ids("Person SORT(name DESC) DISTINCT(age)") == [4, 3, 2])
        #expect(try Self.ids("Person DISTINCT(active, age)") == [1, 2, 3, 4])
        #expect(try Self.ids("Person DISTINCT(bestFriend)") == [1, 2, 3, 4])
        #expect(try Self.ids("Person DISTINCT(nick) LIMIT(2)") == [1, 2])
    }

    @Test func limitKeepsTheFirstResults() throws {
        #expect(try Self.ids("Person SORT(age) LIMIT(2)") == [2, 3])
        #expect(try Self.ids("Person LIMIT(3)") == [1, 2, 3])
        #expect(try Self.ids("Person LIMIT(0)") == [])
        #expect(try Self.ids("Person SORT(level DESC) LIMIT(1)") == [4])
        #expect(try Self.ids("Person where active == true SORT(level) LIMIT(10)") == [3, 1])
    }

    @Test func resultsSortFilterDistinctAndPrefix() throws {
        let store = try QueryFixtures.smallStore()
        try store.read { (s: Snapshot) throws in
            let people = try s.objects("Person")
            #expect(try people.sorted(by: .descending("age")).ids == [1, 4, 3, 2])
            #expect(try people.sorted(by: [.descending("active"), "name"]).ids == [1, 3, 2, 4])
            #expect(try people.distinct(by: ["active"]).ids == [1, 2])
            #expect(people.prefix(limit: 2).ids == [1, 2])
            #expect(try people.filter("age > $0", 30).ids == [1, 4])
            #expect(try people.sorted(by: SortKey("name", ascending: false)).filter("age > $0", 30).ids == [4, 1])
            #expect(try s.objects("Person", where: "level >= 0").sorted(by: "bestFriend.age").ids == [1, 3, 4])
        }
    }

    @Test func resultsAggregates() throws {
        let store = try QueryFixtures.smallStore()
        try store.read { (s: Snapshot) throws in
            let people = try s.objects("Person")
            #expect(try people.sum(of: "age") == .int(92))
            #expect(try people.average(of: "age") == .double(92.0 / 3))
            #expect(try people.min(of: "age") == .int(20))
            #expect(try people.max(of: "level") == .int(5))
            #expect(try people.sum(of: "score") == .double(4.5))
            #expect(try people.average(of: "score") == .double(2.25))
            #expect(try people.sum(of: "balance") == .decimal(Decimal(string: "10.25")!))
            #expect(try people.sum(of: "bestFriend.age") == .int(56))
            #expect(try people.max(of: "born") == .date(ISO8601Timestamp.parse("2001-01-01T00:00:00.5Z")!))
            let none = try people.filter("FALSEPREDICATE")
            #expect(try none.sum(of: "age") == .int(0))
            #expect(try none.sum(of: "score") == .double(0))
            #expect(try none.average(of: "age") == .null)
            #expect(try none.min(of: "age") == .null)
            #expect(try none.max(of: "born") == .null)
            #expect(throws: QueryError.self) { try people.sum(of: "name") }
            #expect(throws: QueryError.self) { try people.sum(of: "tags") }
        }
    }
}
