import Testing
import Trove
import TroveModels

/// SELECT and GROUP by key paths: the rows of the string form, with the key paths and the
/// aggregates' types checked by the compiler.
@Suite struct TypedSelectAndGroupTests {
    @Test func aSelectOfKeyPathsGivesTheRowsOfItsText() throws {
        let store = try peopleStore()
        try store.read { s in
            let people = try s.objects(Person.self, sortBy: [.init(\.name)])
            let rows = try people.select(\.name, \.bestFriend?.name)
            #expect(rows == (try people.results.select("name", "bestFriend.name")))
            #expect(rows.columns == ["name", "bestFriend.name"])
            #expect(rows.map { $0.values } == [["Ann", "Rex"], ["Bob", "Fido"], ["Cid", .null], ["Dee", "Ace"]])
            let named = try people.select([.property(\.name).named("who"), .property(\.age)])
            #expect(named == (try people.results.select("name AS who", "age")))
            #expect(named.columns == ["who", "age"])
        }
    }

    @Test func aGroupByKeyPathsGivesTheRowsOfItsText() throws {
        let store = try peopleStore()
        try store.read { s in
            let people = try s.objects(Person.self)
            #expect(try people.grouped(by: \.nickname) == people.results.grouped(by: "nickname"))
            let items: [ModelSelectItem<Person>] = [.property(\.bestFriend?.name), .count, .sum(\.age), .average(\.score),
                                                    .min(\.age), .max(\.age).named("oldest")]
            let rows = try people.grouped(by: \.bestFriend?.name, select: items)
            #expect(rows == (try people.results.grouped(by: ["bestFriend.name"],
                                                        select: ["bestFriend.name", "@count", "@sum.age", "@avg.score", "@min.age", "@max.age AS oldest"])))
            #expect(rows.columns == ["bestFriend.name", "@count", "@sum.age", "@avg.score", "@min.age", "oldest"])
            #expect(rows.map { $0["@count"] } == [.int(1), .int(1), .int(1), .int(1)])
            #expect(rows.first?["bestFriend.name"] == .null)
            // The README's example: an item may be named as a property is.
            let byNickname = try people.grouped(by: \.nickname, select: [.property(\.nickname), .count, .average(\.age).named("age")])
            #expect(byNickname == (try people.results.grouped(by: "nickname", select: "nickname", "@count", "@avg.age AS age")))
            #expect(byNickname.columns == ["nickname", "@count", "age"])
        }
    }

    @Test func anAggregateOfALinkedModelsPropertyIsItsDottedPath() throws {
        let store = try peopleStore()
        try store.read { s in
            let people = try s.objects(Person.self)
            #expect(try people.sum(\.bestFriend?.age) == 11)
            #expect(try people.results.sum(of: "bestFriend.age") == .int(11))
            #expect(try people.average(\.bestFriend?.age) == 11.0 / 3)
            #expect(try people.min(\.bestFriend?.age) == 1)
            #expect(try people.max(\.bestFriend?.age) == 7)
        }
    }

    @Test func aGroupAggregateInASelectWithoutGroupIsAnErrorNamingTheItem() throws {
        let store = try peopleStore()
        try store.read { s in
            let people = try s.objects(Person.self)
            #expect(performing: { try people.select([.property(\.name), .count]) },
                    throws: { $0 is QueryError && "\($0)".contains("select item 2 of '@count'") })
            #expect(performing: { try people.select([.sum(\.age).named("total")]) },
                    throws: { $0 is QueryError && "\($0)".contains("select item 1 of '@sum.age AS total'") })
        }
    }

    @Test func aPropertyThatIsNotStoredIsAnErrorNamingIt() throws {
        let store = try peopleStore()
        try store.read { s in
            let people = try s.objects(Person.self)
            #expect(performing: { try people.select(\.scratch) }, throws: { "\($0)".contains("not a stored property of Person") })
            #expect(performing: { try people.grouped(by: \.scratch) }, throws: { $0 is ModelQueryError })
            #expect(performing: { try people.grouped(by: \.age, select: [.sum(\.scratch)]) }, throws: { $0 is ModelQueryError })
            #expect(performing: { try people.sum(\.scratch) }, throws: { "\($0)".contains("not a stored property of Person") })
        }
    }
}
