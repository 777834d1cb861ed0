import Dispatch
import Testing
import Trove
import TroveModels

/// A model whose properties are named as the query language's reserved words, and small
/// integers whose sums overflow them.
@Model struct Wording {
    @Attribute(.primaryKey) var id: Int
    var matches: Int = 0
    var all: Int = 0
    var like: String = ""
    var sort: Int = 0
    var `in`: Int = 0
    var small: Int8 = 0
    var medium: Int16 = 0
    var ratio: Float = 0
    var partner: Phrase?
}

/// Small integers that a store whose schema file says `int` can hold out of their range.
@Model struct Dial {
    @Attribute(.primaryKey) var id: Int
    var kind: Int = 0
    var small: Int8 = 0
    var medium: Int16 = 0
}

@Model struct Phrase {
    @Attribute(.primaryKey) var id: Int
    var matches: Int = 0
}

/// The text of typed SELECT, GROUP, SORT and aggregates: a property named as a reserved word
/// is escaped as the `where:` closure's translation escapes it, an item's name is written as
/// the grammar reads it or refused, and a sum its type cannot hold is an error.
@Suite struct TypedQuestionTextTests {
    func wordingStore(_ values: [Wording]) throws -> Store {
        let store = try Store(configuration: .inMemory(schema: try Schema(Wording.self)))
        try store.write { tx in
            for value in values { try tx.insert(value) }
        }
        return store
    }

    var words: [Wording] {
        [Wording(id: 1, matches: 3, all: 1, like: "a", sort: 2, in: 5, small: 100, medium: 30_000, partner: Phrase(id: 1, matches: 9)),
         Wording(id: 2, matches: 4, all: 1, like: "b", sort: 1, in: 6, small: 100, medium: 30_000),
         Wording(id: 3, matches: 9, all: 2, like: "b", sort: 3, in: 7)]
    }

    @Test func aPropertyNamedAsASwiftKeywordIsStoredUnderItsName() throws {
        let model = try #require(try Schema(Wording.self).models.first { $0.name == "Wording" })
        #expect(model.properties.map(\.name).contains("in"))
        let store = try wordingStore(words)
        #expect(try store.read { s in try s.objects("Wording", where: "#in > 5").count } == 2)
        #expect(try store.read { s in try s.object(Wording.self, primaryKey: 3)?.in } == 7)
    }

    @Test func reservedWordPropertiesAreSelectedGroupedAndAggregated() throws {
        let store = try wordingStore(words)
        try store.read { s in
            let all = try s.objects(Wording.self, sortBy: [.init(\.id)])
            #expect(try s.objects(Wording.self, where: { $0.matches > 3 }).count == 2)
            let rows = try all.select([.property(\.matches), .property(\.like), .property(\.sort), .property(\.in), .property(\.partner?.matches)])
            #expect(rows.map { $0.values } == [[3, "a", 2, 5, 9], [4, "b", 1, 6, .null], [9, "b", 3, 7, .null]])
            #expect(rows == (try all.results.select("#matches", "#like", "sort", "#in", "partner.#matches")))
            let typed = try all.select(\.matches, \.like, \.sort, \.in, \.partner?.matches)
            #expect(typed.map(\.4) == [9, nil, nil] && typed.map(\.1) == ["a", "b", "b"] && typed.map(\.3) == [5, 6, 7])
            let groups = try all.grouped(by: \.like, \.all, select: [.property(\.like), .count, .sum(\.matches), .average(\.in),
                                                                  .min(\.sort), .max(\.partner?.matches)])
            #expect(groups.map { $0.values } == [["a", 1, 3, 5.0, 2, 9], ["b", 1, 4, 6.0, 1, .null], ["b", 1, 9, 7.0, 3, .null]])
            #expect(try all.sum(\.matches) == 16)
            #expect(try all.sum(\.in) == 18)
            #expect(try all.average(\.all) == 4.0 / 3)
            #expect(try all.min(\.sort) == 1)
            #expect(try all.max(\.partner?.matches) == 9)
        }
    }

    @Test func reservedWordPropertiesAreSortKeys() throws {
        let store = try wordingStore(words)
        let ids = try store.read { s in try s.objects(Wording.self, sortBy: [.init(\.like, order: .reverse), .init(\.in)]).map(\.id) }
        #expect(ids == [2, 3, 1])
        let live = try LiveResults(store: store, FetchDescriptor<Wording>(sortBy: [.init(\.sort), .init(\.matches)]))
        #expect(try live.results.map { try $0.int("id") } == [2, 1, 3])
    }

    @Test func reservedWordPropertiesSectionAResultsController() throws {
        let store = try wordingStore(words)
        let controller = try ResultsController(store: store, FetchDescriptor<Wording>(sortBy: [.init(\.id)]), sectionedBy: \.like,
                                               queue: DispatchQueue(label: "reserved-word-sections"))
        try controller.performFetch()
        #expect(controller.sections.map { $0.elements.map(\.id) } == [[1], [2, 3]])
    }

    @Test func anItemsNameIsEscapedAsTheGrammarReadsIt() throws {
        let store = try wordingStore(words)
        try store.read { s in
            let all = try s.objects(Wording.self, sortBy: [.init(\.id)])
            let rows = try all.select([.property(\.matches).named("in"), .property(\.like).named("matches"), .property(\.id).named("sort")])
            #expect(rows.columns == ["in", "matches", "sort"])
            #expect(rows.map { $0.values } == [[3, "a", 1], [4, "b", 2], [9, "b", 3]])
            let groups = try all.grouped(by: \.like, select: [.property(\.like).named("all"), .count.named("like")])
            #expect(groups.columns == ["all", "like"])
            #expect(groups.map { $0.values } == [["a", 1], ["b", 2]])
        }
    }

    @Test(arguments: ["total fee", "fee)", "a, @count AS b", "1st", "", "fee.total", "#in"])
    func aNameTheGrammarCannotWriteIsAnErrorNamingIt(_ name: String) throws {
        let store = try wordingStore(words)
        try store.read { s in
            let all = try s.objects(Wording.self)
            #expect(performing: { try all.select([.property(\.matches).named(name)]) },
                    throws: { $0 is ModelQueryError && "\($0)".contains("'\(name)' cannot name a SELECT item of Wording") })
            #expect(performing: { try all.grouped(by: \.like, select: [.count.named(name)]) },
                    throws: { $0 is ModelQueryError && "\($0)".contains("'\(name)'") })
        }
    }

    @Test func aSumItsTypeCannotHoldIsAnErrorNamingThePropertyAndType() throws {
        let store = try wordingStore(words + [Wording(id: 4, ratio: .greatestFiniteMagnitude), Wording(id: 5, ratio: .greatestFiniteMagnitude)])
        try store.read { s in
            let all = try s.objects(Wording.self)
            #expect(performing: { try all.sum(\.small) },
                    throws: { $0 is ModelQueryError && "\($0)".contains("the sum of Wording.small, 200, is out of the range of Int8") })
            #expect(performing: { try all.sum(\.medium) },
                    throws: { $0 is ModelQueryError && "\($0)".contains("Wording.medium, 60000, is out of the range of Int16") })
            #expect(performing: { try all.sum(\.ratio) },
                    throws: { $0 is ModelQueryError && "\($0)".contains("out of the range of Float") })
            #expect(performing: { try all.grouped(by: \.all, aggregating: .count, .sum(\.small)) },
                    throws: { $0 is ModelQueryError && "\($0)".contains("the sum of Wording.small, 200, is out of the range of Int8") })
            #expect(try s.objects(Wording.self, where: { $0.id == 1 }).sum(\.small) == 100)
            #expect(try s.objects(Wording.self, where: { $0.id > 9 }).sum(\.small) == 0)
            #expect(try s.objects(Wording.self, where: { $0.id > 9 }).sum(\.ratio) == 0)
        }
    }

    @Test func aLeastOrGreatestValueItsTypeCannotHoldIsAnErrorNamingTheType() throws {
        // The store cannot hold 200 in an int8 property, so its schema file says int where the
        // model says Int8 and Int16.
        let json = #"{"schemaVersion": 0, "models": [{"name": "Dial", "primaryKey": "id", "properties": {"id": "int", "kind": "int", "small": "int", "medium": "int"}}]}"#
        let store = try Store(configuration: .inMemory(schema: Schema(jsonData: Array(json.utf8))))
        try store.write { tx in
            try tx.insert("Dial", ["id": 1, "kind": 1, "small": 200, "medium": -40_000])
            try tx.insert("Dial", ["id": 2, "kind": 1, "small": 5, "medium": 7])
        }
        try store.read { s in
            let all = try s.objects(Dial.self)
            #expect(performing: { try all.max(\.small) },
                    throws: { $0 is ModelQueryError && "\($0)".contains("the greatest value of Dial.small, 200, is out of the range of Int8") })
            #expect(performing: { try all.min(\.medium) },
                    throws: { $0 is ModelQueryError && "\($0)".contains("the least value of Dial.medium, -40000, is out of the range of Int16") })
            #expect(performing: { try all.grouped(by: \.kind, aggregating: .max(\.small)) },
                    throws: { $0 is ModelQueryError && "\($0)".contains("out of the range of Int8") })
            #expect(try s.objects(Dial.self, where: { $0.id == 2 }).max(\.small) == 5)
        }
    }

    @Test func everyKeyPathToAStoredValueIsRefusedAlikeNamingWhatItWasFor() throws {
        let store = try peopleStore()
        let names: (String) -> (any Error) -> Bool = { verb in
            { $0 is ModelQueryError && "\($0)".contains("is not a stored property of Person, nor one of a linked model through to-one links; only properties of the model tables (not computed or @Transient ones) can be \(verb)") }
        }
        try store.read { s in
            #expect(performing: { try s.objects(Person.self, sortBy: [.init(\.scratch)]) }, throws: names("sorted by"))
            #expect(performing: { try s.objects(Person.self).select(\.scratch) }, throws: names("aggregated, selected or grouped by"))
        }
        #expect(performing: { try LiveResults(store: store, FetchDescriptor<Person>(sortBy: [.init(\.scratch)])) }, throws: names("sorted by"))
        #expect(performing: { try ResultsController(store: store, FetchDescriptor<Person>(), sectionedBy: \.scratch) }, throws: names("sectioned by"))
    }
}
