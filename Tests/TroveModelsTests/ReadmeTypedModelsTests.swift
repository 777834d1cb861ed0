import FoundationEssentials
import Testing
import Trove
import TroveModels

/// The README's "Typed models" sample, as written there but for the namespace that keeps its
/// `Person` and `Dog` apart from the other tests' models: it compiles, and its queries find Ann.
enum ReadmeTypedModels {
    @Model struct Dog {
        @Attribute(.primaryKey) var id: Int
        var name: String = ""
        @LinkingObjects(\Person.dogs) var owners: [Person] = []   // computed: who links here
    }

    @Model struct Person {
        @Attribute(.primaryKey) var id: Int
        @Attribute(.indexed) var name: String
        var age: Int = 0                      // a literal initial value is the schema default
        var nickname: String?
        var bestFriend: Dog?                  // a to-one link
        var dogs: [Dog] = []                  // a list of links
        var tags: [String] = []               // a list of values
        @Transient var isSelected = false     // not stored
    }

    @Model final class Author {
        @Attribute(.primaryKey) let id: Int
        var name: String
        var mentor: Author?                   // a class may link to its own model
        init(id: Int, name: String, mentor: Author? = nil) { self.id = id; self.name = name; self.mentor = mentor }
    }
}

@Suite struct ReadmeTypedModelsTests {
    typealias Person = ReadmeTypedModels.Person
    typealias Dog = ReadmeTypedModels.Dog

    @Test func theReadmeSampleRunsAsWritten() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Person.self)))  // Dog comes along
        #expect(try Schema(Person.self).jsonText.contains("\"Dog\""))

        try store.write { tx in
            try tx.insert(Person(id: 1, name: "Ann", age: 31, dogs: [Dog(id: 1, name: "Rex")], tags: ["swift"]))
            let ann = try tx.getOrCreate(Person.self, primaryKey: 1)
            try tx.update(ann) { $0.age += 1 }    // writes `age` alone
        }
        let minimum = 30
        let people = try store.read { s in
            try s.objects(Person.self, where: { $0.age > minimum && $0.dogs.name.starts(with: "R") },   // Realm's style
                          sortBy: [.init(\.name)], limit: 10).values
        }
        let samePeople = try store.read { s in
            try s.objects(Person.self, where: #Predicate { $0.age > minimum && $0.dogs.contains { $0.name.starts(with: "R") } },
                          sortBy: [.init(\.name)], limit: 10).values
        }
        #expect(people.map(\.name) == ["Ann"])
        #expect(people.map(\.age) == [32])
        #expect(samePeople.map(\.id) == people.map(\.id))
    }

    @Test func theReadmeStructUpdateSampleWritesWhatTheClosureChangedOnTheValue() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Person.self)))
        try store.write { tx in try tx.insert(Person(id: 1, name: "Ann", age: 31, tags: ["swift"])) }
        try store.write { tx in
            guard let ann = try tx.object(Person.self, primaryKey: 1) else { return }
            try tx.update(ann) { $0.tags.append("x") }    // the stored tags and "x"
        }
        #expect(try store.read { try $0.object(Person.self, primaryKey: 1)?.tags } == ["swift", "x"])
        // A value not read from the store: a change before the call is not written, and the
        // closure's change is made to the value's own copy.
        var stale = Person(id: 1, name: "Ann")
        stale.age = 99
        let returned = try store.write { tx in try tx.update(stale) { $0.tags.append("y") } }
        #expect(returned.age == 99 && returned.tags == ["y"])
        let stored = try store.read { try $0.object(Person.self, primaryKey: 1) }
        #expect(stored?.age == 31 && stored?.tags == ["y"])
    }

    @Test func getOrCreateByKeyGivesARequiredPropertyWithNoInitialValueItsZeroAsTheDynamicOneDoes() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Person.self)))
        let typed = try store.write { tx in try tx.getOrCreate(Person.self, primaryKey: 1) }
        let dynamic = try store.write { tx in try tx.getOrCreate("Person", primaryKey: .int(2)) }
        #expect(typed.name == "" && typed.age == 0 && typed.tags.isEmpty)
        #expect(try dynamic["name"] == .string(typed.name))
    }

    @Test func theReadmeClassSampleRunsAsWritten() throws {
        typealias Author = ReadmeTypedModels.Author
        let store = try Store(configuration: .inMemory(schema: Schema(Author.self)))
        var kept: (Author, Author)?
        try store.write { tx in
            let ann = try tx.getOrCreate(Author(id: 1, name: "Ann"))
            let renamed = try tx.update(ann) { $0.name = "Anne" }   // writes `name` alone; `ann` is unchanged
            kept = (ann, renamed)
        }
        #expect(kept?.0.name == "Ann" && kept?.1.name == "Anne")
        #expect(try store.read { try $0.object(Author.self, primaryKey: 1)?.name } == "Anne")
        let b = Author(id: 2, name: "Bo"), c = Author(id: 3, name: "Cy", mentor: b)
        b.mentor = c
        #expect(throws: StoreError.self) { try store.write { tx in try tx.insert(b) } }
        b.mentor = nil
        try store.write { tx in try tx.insert(c) }
        #expect(try store.read { try $0.objects(Author.self, where: { $0.mentor.name == "Bo" }).map(\.id) } == [3])
    }
}
