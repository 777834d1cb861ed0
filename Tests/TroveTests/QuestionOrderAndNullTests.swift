import Testing
@testable import Trove

/// How questions order their rows (SORT by a SELECT item, groups of a link), what a SELECT
/// item through a null link gives, which statements an index answers without records, and
/// the errors of SORT names that are ambiguous or name nothing.
@Suite struct QuestionOrderAndNullTests {
    static let schema = """
    {"schemaVersion": 0, "models": [
      {"name": "Maker", "primaryKey": "name", "properties": {"name": "string"}},
      {"name": "Car", "primaryKey": "id", "properties": {
        "id": "int", "name": "string", "hp": {"type": "int?", "indexed": true},
        "origin": {"type": "string?", "indexed": true}, "maker": "Maker?"}},
      {"name": "Person", "primaryKey": "id", "properties": {
        "id": "int", "name": "string", "bestFriend": "Person?", "dogs": "Dog[]", "tags": "string[]"}},
      {"name": "Dog", "primaryKey": "id", "properties": {"id": "int", "name": "string", "age": "int?"}}
    ]}
    """

    /// Makers saved out of their keys' order (Toyota, Ford, BMW); twelve cars, nine of them
    /// Japanese (too many for the planner to take the origin index for a plan that reads
    /// records); people whose best friends have dogs, no dogs, or are missing.
    static func store() throws -> Store {
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(schema)))
        try store.write { tx in
            let makers = try ["Toyota", "Ford", "BMW"].map { Value.reference(try tx.insert("Maker", ["name": .string($0)]).reference) }
            for id in 0..<12 {
                try tx.insert("Car", ["id": .int(Int64(id)), "name": .string("car\(id)"), "hp": .int(Int64(60 + 10 * id)),
                                      "origin": id % 4 == 0 ? "USA" : "Japan", "maker": id % 4 == 3 ? .null : makers[id % 4]])
            }
            let dogs = try [(1, "rex", 3), (2, "fido", 6), (3, "spot", nil)].map { id, name, age in
                Value.reference(try tx.insert("Dog", ["id": .int(Int64(id)), "name": .string(name),
                                                      "age": age.map { .int(Int64($0)) } ?? .null]).reference)
            }
            let ann = try tx.insert("Person", ["id": 1, "name": "ann", "dogs": .list([dogs[0], dogs[1]]), "tags": .list(["a"])])
            let bob = try tx.insert("Person", ["id": 2, "name": "bob", "bestFriend": .reference(ann.reference), "dogs": .list([])])
            try tx.insert("Person", ["id": 3, "name": "cy", "bestFriend": .reference(bob.reference), "dogs": .list([dogs[2]])])
            try tx.insert("Person", ["id": 4, "name": "di", "dogs": .list([])])
        }
        return store
    }

    static func rows(_ text: String, in store: Store) throws -> [[Value]] {
        try store.read { try $0.rows(text).map(\.values) }
    }

    static func error(_ text: String, in store: Store) -> QueryError? {
        do {
            _ = try store.read { try $0.answer(text) }
            return nil
        } catch {
            return error as? QueryError
        }
    }

    // MARK: SORT by a SELECT item

    @Test func sortNamesAListAggregateItemByItsNameOrItsText() throws {
        let store = try Self.store()
        #expect(try Self.rows("Person SORT(n DESC, id) SELECT(id, dogs.@count AS n)", in: store)
                == [[1, 2], [3, 1], [2, 0], [4, 0]])
        #expect(try Self.rows("Person SORT(dogs.@count, id DESC) SELECT(id, dogs.@count)", in: store)
                == [[4, 0], [2, 0], [3, 1], [1, 2]])
        // Null (no ages to average) first ascending; OFFSET and LIMIT after the order.
        #expect(try Self.rows("Person SORT(dogs.@avg.age, id) OFFSET(1) LIMIT(2) SELECT(id, dogs.@avg.age)", in: store)
                == [[3, .null], [4, .null]])
        #expect(try Self.rows("Person SORT(dogs.@avg.age DESC, id) LIMIT(1) SELECT(id, dogs.@avg.age)", in: store) == [[1, 4.5]])
        #expect(try Self.rows("Person SORT(dogs.@max.age DESC) LIMIT(1) SELECT(name, dogs.@max.age AS oldest)", in: store)
                == [["ann", 6]])
        // DISTINCT keeps the first object of each value after the item's order.
        #expect(try Self.rows("Person SORT(n DESC, id) DISTINCT(bestFriend) SELECT(id, dogs.@count AS n)", in: store)
                == [[1, 2], [3, 1], [2, 0]])
    }

    @Test func sortRefusesAnItemThatIsAnArrayOrALink() throws {
        let store = try Self.store()
        let array = Self.error("Person SORT(dn) SELECT(name, dogs.name AS dn)", in: store)
        #expect(array?.message == "SORT needs one value per object; the SELECT item 'dn' is an array ('dogs.name' crosses a list)")
        #expect(array?.column == 13)
        let link = Self.error("Person SORT(bf) SELECT(bestFriend AS bf)", in: store)
        #expect(link?.message == "SORT needs a value; the SELECT item 'bf' is a link (sort by one of its properties, such as 'bestFriend.id')")
        let neither = Self.error("Person SORT(zz) SELECT(name)", in: store)
        #expect(neither?.message == "SORT takes a key path of 'Person' or a SELECT item's name or text; 'zz' is neither")
    }

    // MARK: Groups of a link

    @Test func groupsOfALinkComeInTheOrderOfTheirTargetsPrimaryKeys() throws {
        let store = try Self.store()
        #expect(try Self.rows("Car GROUP(maker)", in: store) == [[.null, 3], ["BMW", 3], ["Ford", 3], ["Toyota", 3]])
        #expect(try Self.rows("Car GROUP(maker) SORT(maker DESC)", in: store) == [["Toyota", 3], ["Ford", 3], ["BMW", 3], [.null, 3]])
        #expect(try Self.rows("Car GROUP(maker) SELECT(maker AS m, @count) SORT(m) LIMIT(2)", in: store) == [[.null, 3], ["BMW", 3]])
        #expect(try Self.rows("Car where hp > 100 GROUP(maker) SELECT(maker, @max.hp)", in: store)
                == [[.null, 170], ["BMW", 160], ["Ford", 150], ["Toyota", 140]])
    }

    // MARK: A null link before a list

    @Test func aSelectItemThroughANullLinkIsNullEvenBeforeAList() throws {
        let store = try Self.store()
        #expect(try Self.rows("Person SORT(id) SELECT(id, bestFriend.dogs.@count, bestFriend.dogs.name, bestFriend.tags, bestFriend.dogs.@avg.age)", in: store)
                == [[1, .null, .null, .null, .null],
                    [2, 2, ["rex", "fido"], ["a"], 4.5],
                    [3, 0, [], [], .null],
                    [4, .null, .null, .null, .null]])
        // A list of the object itself is never null.
        #expect(try Self.rows("Person SORT(id) SELECT(id, dogs.@count, dogs.name)", in: store).last == [4, 0, []])
    }

    // MARK: Answers from the index

    @Test func aCountTheIndexDecidesReadsNoRecordHoweverManyMatch() throws {
        let store = try Self.store()
        try store.read { snapshot in
            let executor = QueryExecutor(snapshot: snapshot)
            let (count, plan) = try executor.answer("count Car where origin == 'Japan'", arguments: [])
            guard case .value(let value) = count else { Issue.record("no value"); return }
            #expect(value == 9)
            #expect(plan.access == .index(property: "origin"))
            #expect(plan.isDecidedByIndex)
            #expect(plan.examinedRows == 9)
            #expect(plan.steps.last == "COUNT (from the index entries, reads no object)")
            // A predicate the index leaves unsure reads records: the cost ratio decides.
            let (_, mixed) = try executor.answer("count Car where origin == 'Japan' AND name != 'x'", arguments: [])
            #expect(mixed.access == .scan)
            // sum and avg of the indexed property add its keys, however many match.
            for function in ["sum", "avg"] {
                let (_, summed) = try executor.answer("\(function) Car.hp where hp > 50", arguments: [])
                #expect(summed.access == .index(property: "hp"), "\(function)")
                #expect(summed.steps.last?.hasSuffix("(adds the index keys, reads no object)") == true, "\(function): \(summed.steps)")
            }
        }
    }

    // MARK: SORT names of groups

    @Test func aGroupedSortNameThatIsOneItemsNameAndAnothersTextIsAmbiguous() throws {
        let store = try Self.store()
        let text = "Car GROUP(origin) SELECT(origin AS name, @count AS origin) SORT(origin DESC)"
        let error = Self.error(text, in: store)
        #expect(error?.message == "SORT(origin) is ambiguous: 'origin' is the name of the SELECT item '@count AS origin' and the text of the item 'origin AS name'; rename one with AS")
        #expect(error?.column == 65)
        // One item's name and text, or two items alike, are no ambiguity.
        #expect(try Self.rows("Car GROUP(origin) SELECT(origin, @count AS n) SORT(origin DESC)", in: store) == [["USA", 3], ["Japan", 9]])
    }

    /// Without GROUP, SORT orders objects by a key path, so a property wins over an item named
    /// so; under GROUP, SORT orders the rows by their items, so an item's name wins over a GROUP
    /// key path (the contract's "SORT may name an item's NAME").
    @Test func aSortNameThatIsAPropertyAndAnItemsNameIsThePropertyUngroupedAndTheItemGrouped() throws {
        let store = try Self.store()
        // By the property origin (Japan first), not by the item's names car0...car3.
        #expect(try Self.rows("Car where id < 4 SORT(origin, id DESC) SELECT(id, name AS origin)", in: store)
                == [[3, "car3"], [2, "car2"], [1, "car1"], [0, "car0"]])
        #expect(try Self.rows("Car where id < 4 SORT(name DESC) SELECT(id, hp AS name)", in: store)
                == [[3, 90], [2, 80], [1, 70], [0, 60]])
        // By the item @count (9 before 3), not by the GROUP key origin (USA before Japan).
        #expect(try Self.rows("Car GROUP(origin) SELECT(@count AS origin) SORT(origin DESC)", in: store) == [[9], [3]])
        #expect(try Self.rows("Car GROUP(origin) SELECT(origin, @count AS name) SORT(name)", in: store) == [["USA", 3], ["Japan", 9]])
    }

    @Test func aGroupedSortNameThatNamesNothingSaysWhatSortTakes() throws {
        let store = try Self.store()
        for (text, written, column) in [("Car GROUP(origin) SORT(zz)", "zz", 24), ("Car GROUP(origin) SORT(@avg.hp DESC)", "@avg.hp", 24),
                                        ("Car GROUP(origin) SORT(maker.name)", "maker.name", 24)] {
            let error = Self.error(text, in: store)
            #expect(error?.message == "SORT of groups takes a SELECT item's name or text or a GROUP key path; '\(written)' is neither", "\(text)")
            #expect(error?.column == column, "\(text)")
        }
    }
}
