import Testing
import Trove
import TroveModels

/// SELECT and GROUP by key paths: rows of Swift values, those of the string form's rows, with
/// the key paths' and the aggregates' types checked by the compiler; and rows of `Value`s
/// under named items.
@Suite struct TypedSelectAndGroupTests {
    /// `value` as a query's rows hold it.
    func stored<V: StorableProperty>(_ value: V?) throws -> Value { try value.map { try $0.storedValue() } ?? .null }

    @Test func aSelectOfKeyPathsGivesTheValuesOfTheRowsOfItsText() throws {
        let store = try peopleStore()
        try store.read { s in
            let people = try s.objects(Person.self, sortBy: [.init(\.name)])
            let rows: [(String, String?)] = try people.select(\.name, \.bestFriend?.name)
            let dynamic = try people.results.select("name", "bestFriend.name")
            #expect(try rows.map { [try stored($0.0), try stored($0.1)] } == dynamic.map(\.values))
            #expect(rows.map(\.0) == ["Ann", "Bob", "Cid", "Dee"])
            #expect(rows.map(\.1) == ["Rex", "Fido", nil, "Ace"])
            let wide = try people.select(\.id, \.age, \.nickname, \.score, \.isActive, \.verified)
            #expect(try wide.map { [try stored($0.0), try stored($0.1), try stored($0.2), try stored($0.3), try stored($0.4), try stored($0.5)] }
                    == people.results.select("id", "age", "nickname", "score", "isActive", "verified").map(\.values))
        }
    }

    @Test func oneKeyPathGivesItsValuesAndALinkOrAListGivesItsSwiftValue() throws {
        let store = try peopleStore()
        try store.read { s in
            let people = try s.objects(Person.self, sortBy: [.init(\.name)])
            #expect(try people.select(\.age) == [31, 25, 40, 18])
            #expect(try people.select(\.tags) == [["a", "b"], [], ["b"], ["c"]])
            let friends: [Dog?] = try people.select(\.bestFriend)
            #expect(friends.map { $0?.name } == ["Rex", "Fido", nil, "Ace"])
            let dogs: [[Dog]] = try people.select(\.dogs)
            #expect(dogs.map { $0.map(\.name) } == [["Rex", "Fido"], ["Fido"], [], ["Ace", "Rex"]])
            #expect(try people.select(\.bestFriend?.age) == [3, 7, nil, 1])
            #expect(try s.objects(Person.self, where: { $0.age > 100 }).select(\.name, \.age).isEmpty)
        }
    }

    @Test func aGroupByKeyPathsGivesItsKeysAndTypedAggregates() throws {
        let store = try peopleStore()
        try store.read { s in
            let people = try s.objects(Person.self)
            let rows = try people.grouped(by: \.bestFriend?.name, aggregating: .count, .sum(\.age), .average(\.score), .min(\.age), .max(\.age))
            let typed: [(String?, Int, Int, Double?, Int?, Int?)] = rows
            let dynamic = try people.results.grouped(by: ["bestFriend.name"],
                                                     select: ["bestFriend.name", "@count", "@sum.age", "@avg.score", "@min.age", "@max.age"])
            #expect(try typed.map { [try stored($0.0), try stored($0.1), try stored($0.2), try stored($0.3), try stored($0.4), try stored($0.5)] }
                    == dynamic.map(\.values))
            #expect(typed.map(\.0) == [nil, "Ace", "Fido", "Rex"])
            #expect(typed.map(\.2) == [40, 18, 25, 31])
            // The README's example.
            let byNickname: [(String?, Int, Double?)] = try people.grouped(by: \.nickname, aggregating: .count, .average(\.age))
            #expect(try byNickname.map { [try stored($0.0), try stored($0.1), try stored($0.2)] }
                    == people.results.grouped(by: "nickname", select: "nickname", "@count", "@avg.age").map(\.values))
            // Keys alone are the distinct keys; two keys are a tuple.
            let nicknames: [String?] = try people.grouped(by: \.nickname)
            #expect(nicknames == [nil, "annie", "c"])
            #expect(try nicknames.map { try stored($0) } == people.results.grouped(by: ["nickname"], select: ["nickname"]).map { $0.values[0] })
            let pairs: [((Bool, String?), Int)] = try people.grouped(by: \.isActive, \.nickname, aggregating: .count)
            #expect(pairs.map(\.0.1) == [nil, "annie", "c"] && pairs.map(\.1) == [2, 1, 1])
            // Over a group with only nulls, an average and a greatest value are nil, a sum 0.
            let onlyCid = try s.objects(Person.self, where: { $0.name == "Cid" })
            // (An optional-chained key path in an aggregate names its root: swiftc 6.3 does not infer it there.)
            let cid = try onlyCid.grouped(by: \.name, aggregating: .average(\Person.bestFriend?.age), .sum(\Person.bestFriend?.age),
                                          .max(\Person.bestFriend?.age))
            #expect(cid.count == 1 && cid[0].0 == "Cid" && cid[0].1 == nil && cid[0].2 == 0 && cid[0].3 == nil)
        }
    }

    @Test func namedItemsGiveTheRowsOfTheirText() throws {
        let store = try peopleStore()
        try store.read { s in
            let people = try s.objects(Person.self, sortBy: [.init(\.name)])
            let named = try people.select([.property(\.name).named("who"), .property(\.age)])
            #expect(named == (try people.results.select("name AS who", "age")))
            #expect(named.columns == ["who", "age"])
            let items: [ModelSelectItem<Person>] = [.property(\.bestFriend?.name), .count, .sum(\.age), .average(\.score),
                                                    .min(\.age), .max(\.age).named("oldest")]
            let rows = try people.grouped(by: \.bestFriend?.name, select: items)
            #expect(rows == (try people.results.grouped(by: ["bestFriend.name"],
                                                        select: ["bestFriend.name", "@count", "@sum.age", "@avg.score", "@min.age", "@max.age AS oldest"])))
            #expect(rows.columns == ["bestFriend.name", "@count", "@sum.age", "@avg.score", "@min.age", "oldest"])
            #expect(rows.first?["bestFriend.name"] == .null)
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

    @Test func aRepeatedSelectGivesEachCallItsOwnRowsAndErrors() throws {
        let store = try peopleStore()
        try store.read { s in
            for (name, friend) in [("Ann", "Rex"), ("Bob", "Fido"), ("Ann", "Rex")] {
                let rows = try s.objects(Person.self, where: { $0.name == name }).select(\.name, \.bestFriend, \.bestFriend?.name)
                #expect(rows.count == 1 && rows[0].0 == name && rows[0].1?.name == friend && rows[0].2 == friend)
            }
            let people = try s.objects(Person.self, sortBy: [.init(\.name)])
            for _ in 0..<2 {
                #expect(performing: { try people.select(\.name, \.scratch) }, throws: { "\($0)".contains("not a stored property of Person") })
                #expect(performing: { try people.grouped(by: \.scratch) }, throws: { $0 is ModelQueryError })
            }
            #expect(try people.grouped(by: \.bestFriend?.name).count == 4)
        }
    }

    @Test func aPropertyThatIsNotStoredIsAnErrorNamingIt() throws {
        let store = try peopleStore()
        try store.read { s in
            let people = try s.objects(Person.self)
            #expect(performing: { try people.select(\.scratch) }, throws: { "\($0)".contains("not a stored property of Person") })
            #expect(performing: { try people.grouped(by: \.scratch) }, throws: { $0 is ModelQueryError })
            #expect(performing: { try people.grouped(by: \.age, select: [.sum(\.scratch)]) }, throws: { $0 is ModelQueryError })
            #expect(performing: { try people.grouped(by: \.age, aggregating: .sum(\.scratch)) }, throws: { $0 is ModelQueryError })
            #expect(performing: { try people.select(\.name, \.scratch) }, throws: { "\($0)".contains("not a stored property of Person") })
            #expect(performing: { try people.sum(\.scratch) }, throws: { "\($0)".contains("not a stored property of Person") })
        }
    }
}

/// A model without a primary key: rows hold a link to it as its object key.
@Model struct Stamp {
    var label: String
}

@Model struct Album {
    @Attribute(.primaryKey) var id: Int
    var cover: Stamp?
    var stamps: [Stamp] = []
}

@Suite struct TypedSelectOfLinksWithoutPrimaryKeyTests {
    @Test func aLinkToAModelWithoutAPrimaryKeyIsSelectedAsItsObject() throws {
        let store = try Store(configuration: .inMemory(schema: try Schema(Album.self)))
        try store.write { tx in
            try tx.upsert(Album(id: 1, cover: Stamp(label: "Moon"), stamps: [Stamp(label: "Sun"), Stamp(label: "Star")]))
            try tx.upsert(Album(id: 2, cover: nil, stamps: []))
        }
        try store.read { s in
            let albums = try s.objects(Album.self, sortBy: [.init(\.id)])
            let covers: [Stamp?] = try albums.select(\.cover)
            #expect(covers.map { $0?.label } == ["Moon", nil])
            let stamps: [[Stamp]] = try albums.select(\.stamps)
            #expect(stamps.map { $0.map(\.label) } == [["Sun", "Star"], []])
            let pairs: [(Int, Stamp?)] = try albums.select(\.id, \.cover)
            #expect(pairs.map { $0.1?.label } == ["Moon", nil])
            let grouped: [(Stamp?, Int)] = try albums.grouped(by: \.cover, aggregating: .count)
            #expect(Set(grouped.map { $0.0?.label }) == ["Moon", nil])
        }
    }
}
