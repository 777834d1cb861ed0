import Dispatch
import Synchronization
import Testing
import Trove
import TroveModels

extension Person {
    /// A computed property, which no query can read.
    var greeting: String { "Hi \(name)" }
}

/// The Realm-style typed query (`where: { $0.age > 30 }`): each construct's query text, what
/// it selects, its plan beside the string query's, and the errors of what it cannot run.
@Suite struct ModelQueryTests {
    func ids(_ store: Store, _ query: (ModelQuery<Person, Person>) -> ModelCondition<Person>) throws -> [Int] {
        try store.read { try $0.objects(Person.self, where: query).map(\.id) }
    }

    func text(_ query: (ModelQuery<Person, Person>) -> ModelCondition<Person>) throws -> String {
        try query(ModelQuery()).queryText().text
    }

    @Test func comparisonsAndLogicSelectAsTheirQueryText() throws {
        let store = try peopleStore()
        let minimum = 20
        #expect(try ids(store) { $0.age > minimum && $0.name != "Cid" } == [1, 2])
        #expect(try ids(store) { $0.age < 20 || $0.score >= 9 } == [3, 4])
        #expect(try ids(store) { !($0.age <= 30) } == [1, 3])
        #expect(try ids(store) { $0.name.in(["Bob", "Dee", "Zed"]) } == [2, 4])
        #expect(try ids(store) { $0.age > $0.id } == [1, 2, 3, 4])
        #expect(try ids(store) { $0.age <= $0.id } == (try ids(store) { !($0.age > $0.id) }))
        #expect(try text { $0.age >= $0.id && $0.id <= $0.age } == "Person where age >= id AND id <= age")
        #expect(try text { $0.age.contains(18...30) } == "Person where age BETWEEN {$0, $1}")
        #expect(try query { $0.age.contains(18...30) }.queryText().arguments == [.int(18), .int(30)])
        #expect(try ids(store) { $0.age.contains(20...30) } == (try ids(store) { $0.age >= 20 && $0.age <= 30 }))
        #expect(try text { $0.age.contains(18..<30) } == "Person where age >= $0 AND age < $1")
        #expect(try text { $0.age > minimum && $0.name != "Cid" && $0.score >= 1 } == "Person where age > $0 AND name != $1 AND score >= $2")
        #expect(try text { $0.age < 20 || ($0.score >= 9 && !$0.name.in(["a"])) } == "Person where age < $0 OR score >= $1 AND NOT name IN $2")
        #expect(try query { $0.age == 3 || $0.name == "x" }.queryText().arguments == [.int(3), .string("x")])
    }

    func query(_ body: (ModelQuery<Person, Person>) -> ModelCondition<Person>) -> ModelCondition<Person> { body(ModelQuery()) }

    @Test func optionalsCompareWithNilAndLinksReadThrough() throws {
        let store = try peopleStore()
        #expect(try ids(store) { $0.nickname == nil } == [2, 4])
        #expect(try ids(store) { $0.nickname != nil } == [1, 3])
        #expect(try ids(store) { $0.nickname == "c" } == [3])
        #expect(try ids(store) { $0.nickname > "b" } == [3])
        #expect(try ids(store) { $0.bestFriend == nil } == [3])
        #expect(try ids(store) { $0.bestFriend.name == "Rex" } == [1])
        #expect(try ids(store) { $0.bestFriend.age >= 3 && $0.bestFriend.isGood == true } == [1])
        #expect(try text { $0.bestFriend.name == "Rex" } == "Person where bestFriend.name == $0")
        #expect(try text { $0.nickname == nil } == "Person where nickname == nil")
        let none: String? = nil
        #expect(try text { $0.nickname == none } == "Person where nickname == nil")
    }

    @Test func stringsCompareWithOptions() throws {
        let store = try peopleStore()
        #expect(try ids(store) { $0.name.contains("n") } == [1])
        #expect(try ids(store) { $0.name.contains("B", options: .caseInsensitive) } == [2])
        #expect(try ids(store) { $0.name.starts(with: "D") } == [4])
        #expect(try ids(store) { $0.name.ends(with: "id") } == [3])
        #expect(try ids(store) { $0.name.like("?o*") } == [2])
        #expect(try ids(store) { $0.name.like("a*", caseInsensitive: true) } == [1])
        #expect(try ids(store) { $0.name.equals("ANN", options: [.caseInsensitive, .diacriticInsensitive]) } == [1])
        #expect(try ids(store) { $0.nickname.starts(with: "ann") } == [1])
        #expect(try text { $0.name.contains("a", options: [.caseInsensitive, .diacriticInsensitive]) } == "Person where name CONTAINS[cd] $0")
        #expect(try text { $0.name.like("a*", caseInsensitive: true) } == "Person where name LIKE[c] $0")
    }

    @Test func listsCountContainAndCompareAnyElement() throws {
        let store = try peopleStore()
        #expect(try ids(store) { $0.tags.contains("b") } == [1, 3])
        #expect(try ids(store) { $0.tags.count == 0 } == [2])
        #expect(try ids(store) { $0.dogs.count >= 2 } == [1, 4])
        #expect(try ids(store) { $0.dogs.name == "Rex" } == [1, 4])
        #expect(try ids(store) { $0.dogs.age > 5 } == [1, 2])
        #expect(try text { $0.tags.contains("b") } == "Person where $0 IN tags")
        #expect(try text { $0.dogs.count >= 2 } == "Person where dogs.@count >= $0")
        #expect(try text { $0.dogs.age > 5 } == "Person where ANY dogs.age > $0")
        let owned = try store.read { try $0.objects(Dog.self, where: { $0.owners.name == "Dee" }).map(\.id) }
        #expect(owned == [1, 3])
    }

    @Test func theTypedQueryIsPlannedAndExplainedAsItsText() throws {
        let store = try peopleStore()
        try store.read { s in
            let name = "Bob"
            let typed = try s.explain(Person.self, where: { $0.name == name })
            let written = try s.explain("Person where name == $0", arguments: [.string(name)])
            #expect(typed.description == written.description)
            #expect(!typed.isScan)
            #expect(typed.actualRows == 1)
            let sortedTyped = try s.explain(Person.self, where: { $0.age > 20 && $0.dogs.age > 2 }, sortBy: [.init(\.age, order: .reverse)], limit: 2)
            let sortedWritten = try s.explain("Person where age > $0 AND ANY dogs.age > $1 SORT(age DESC) LIMIT(2)", arguments: [.int(20), .int(2)])
            #expect(sortedTyped.description == sortedWritten.description)
        }
    }

    @Test func sortOffsetAndLimitApply() throws {
        let store = try peopleStore()
        try store.read { s in
            let found = try s.objects(Person.self, where: { $0.age > 18 }, sortBy: [.init(\.age, order: .reverse)], offset: 1, limit: 2)
            #expect(try found.map(\.id) == [1, 2])
        }
    }

    @Test func oneShapeIsOneStatementWhateverItsValues() throws {
        let store = try peopleStore()
        for (name, expected) in [("Ann", [1]), ("Cid", [3]), ("Zed", []), ("Ann", [1])] {
            #expect(try ids(store) { $0.name == name } == expected)
            #expect(try text { $0.name == name } == "Person where name == $0")
        }
        // A key path or an operator of its own is a statement of its own.
        #expect(try ids(store) { $0.age == 25 } == [2])
        #expect(try ids(store) { $0.age != 25 } == [1, 3, 4])
        #expect(try ids(store) { $0.id == 3 } == [3])
    }

    @Test func queriesOfFewShapesFromManyThreadsSelectByTheirOwnValues() throws {
        let store = try peopleStore()
        let people = [("Ann", 31, 1), ("Bob", 25, 2), ("Cid", 40, 3), ("Dee", 18, 4)]
        let wrong = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<200 {
                let (name, age, id) = people[(thread + round) % people.count]
                let found = try? store.read { s in
                    round % 2 == 0 ? try s.objects(Person.self, where: { $0.name == name }).map(\.id)
                        : try s.objects(Person.self, where: { $0.age == age }).map(\.id)
                }
                if found != [id] { wrong.withLock { $0 += 1 } }
            }
        }
        #expect(wrong.withLock { $0 } == 0)
    }

    @Test func aComputedPropertyInAQueryOrSortIsCalledOneInTheError() throws {
        let store = try peopleStore()
        try store.read { s in
            #expect { try s.objects(Person.self, where: { $0.greeting == "Hi Ann" }).count } throws: {
                "\($0)".contains("a computed property (String) is not a stored property of Person;")
            }
            #expect { try s.objects(Person.self, sortBy: [.init(\.greeting)]).count } throws: {
                "\($0)".contains("a computed property (String) is not a stored property of Person, nor one")
            }
            #expect { try s.objects(Person.self, where: { $0.scratch == 1 }).count } throws: {
                "\($0)".contains("\\Person.scratch is not a stored property of Person;")
            }
        }
    }

    @Test func whatAQueryCannotRunIsAnErrorNamingIt() throws {
        let store = try peopleStore()
        try store.read { s in
            #expect(throws: ModelQueryError.self) { try s.objects(Person.self, where: { $0.scratch == 1 }).count }
            do {
                _ = try s.objects(Person.self, where: { $0.scratch == 1 })
            } catch let error as ModelQueryError {
                #expect(error.description.contains("scratch"))
                #expect(error.description.contains("not a stored property of Person"))
            }
            let rex = Dog(id: 1, name: "Rex")
            do {
                _ = try s.objects(Person.self, where: { $0.dogs.contains(rex) })
                Issue.record("a model value compared")
            } catch let error as ModelQueryError {
                #expect(error.description.contains("not a query constant"))
                #expect(error.description.contains("$0.dogs.id == value.id"))
            }
        }
    }

    @Test func stringOptionsKeepOnlyTheirOwnBits() throws {
        #expect(QueryStringOptions(rawValue: 0xFF) == [.caseInsensitive, .diacriticInsensitive])
        #expect(QueryStringOptions(rawValue: 0x04).isEmpty)
        let plain = try text { $0.name.contains("a", options: QueryStringOptions(rawValue: 0x05)) }
        #expect(plain == (try text { $0.name.contains("a", options: .caseInsensitive) }))
    }
}
