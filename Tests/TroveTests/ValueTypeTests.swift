import Foundation
import Testing
@testable import Trove

/// The article's models, in a namespace so as not to shadow Swift's `Character`.
enum Comics {
    struct Publisher: Persistable, Equatable {
        var identifier: Int
        var name: String
    }

    struct Character: Persistable, Equatable {
        var identifier: Int
        var name: String
        var realName: String?
        var publisher: Publisher?

        enum PropertyValue: PropertyValueType {
            case identifier(Int)
            case name(String)
            case realName(String?)

            var propertyValuePair: (name: String, value: Value) {
                switch self {
                case .identifier(let id): ("identifier", .int(Int64(id)))
                case .name(let name): ("name", .string(name))
                case .realName(let name): ("realName", name.map(Value.string) ?? .null)
                }
            }
        }

        enum Query: QueryType {
            case all
            case publisherName(String)

            var predicate: String? {
                switch self {
                case .all: nil
                case .publisherName: "publisher.name == $0"
                }
            }
            var arguments: [Value] {
                switch self {
                case .all: []
                case .publisherName(let name): [.string(name)]
                }
            }
            var sort: [SortKey] { ["name"] }
        }
    }
}

private typealias Character = Comics.Character
private typealias Publisher = Comics.Publisher

/// A second view of Publisher: its characters through the linkingObjects property.
struct PublisherRoster: Persistable, Equatable {
    static var modelName: String { "Publisher" }
    struct Member: Codable, Equatable { var name: String }
    var identifier: Int
    var name: String
    var characters: [Member]
}

private let marvel = Publisher(identifier: 1, name: "Marvel")
private let ironMan = Character(identifier: 1455, name: "Iron Man", realName: "Tony Stark", publisher: marvel)

func comicsContainer() throws -> Container { Container(store: try memoryStore("Comics.json")) }

@Suite struct ValueTypeTests {
    @Test func addingAValueStoresItAndTheValueItLinksTo() throws {
        let container = try comicsContainer()
        try container.write { tx in try tx.add(ironMan) }
        #expect(try container.value(Character.self, primaryKey: 1455) == ironMan)
        #expect(try container.value(Publisher.self, primaryKey: 1) == marvel)
        #expect(try container.value(Character.self, primaryKey: 1) == nil)
    }

    @Test func addingAnExistingPrimaryKeyFailsUnlessUpdatingWhichReplacesTheWholeValue() throws {
        let container = try comicsContainer()
        try container.write { tx in try tx.add(ironMan) }
        #expect(throws: StoreError.duplicatePrimaryKey(model: "Character", value: "1455")) {
            try container.write { tx in try tx.add(ironMan) }
        }
        var anonymous = ironMan
        anonymous.realName = nil
        anonymous.publisher = Publisher(identifier: 1, name: "Marvel Comics")
        try container.write { tx in try tx.add(anonymous, update: true) }
        #expect(try container.value(Character.self, primaryKey: 1455) == anonymous)
        #expect(try container.value(Publisher.self, primaryKey: 1)?.name == "Marvel Comics")
    }

    @Test func aPartialUpdateSetsOnlyTheGivenProperties() throws {
        let container = try comicsContainer()
        try container.write { tx in try tx.add(ironMan) }
        let changed = try container.write { tx in
            try tx.update(Character.self, [.identifier(1455), .realName("Anthony Edward Stark")])
        }
        #expect(changed == ["realName"])
        var expected = ironMan
        expected.realName = "Anthony Edward Stark"
        #expect(try container.value(Character.self, primaryKey: 1455) == expected)
        #expect(throws: StoreError.missingPrimaryKey(model: "Character")) {
            try container.write { tx in try tx.update(Character.self, [.name("x")]) }
        }
        #expect(throws: StoreError.objectNotFound(model: "Character", primaryKey: "7")) {
            try container.write { tx in try tx.update(Character.self, [.identifier(7), .name("x")]) }
        }
    }

    @Test func aPartialUpdateGivingAPropertyTwiceIsRefusedAndWritesNothing() throws {
        let container = try comicsContainer()
        let thor = Character(identifier: 2, name: "Thor", realName: nil, publisher: marvel)
        try container.write { tx in try tx.add([ironMan, thor]) }
        #expect(throws: StoreError.propertyGivenTwice(model: "Character", property: "identifier")) {
            try container.write { tx in try tx.update(Character.self, [.identifier(1455), .identifier(2), .name("Z")]) }
        }
        #expect(throws: StoreError.propertyGivenTwice(model: "Character", property: "name")) {
            try container.write { tx in try tx.update(Character.self, [.identifier(1455), .name("Y"), .name("Z")]) }
        }
        #expect("\(StoreError.propertyGivenTwice(model: "Character", property: "name"))" == "'Character.name' is given more than once")
        #expect(try container.value(Character.self, primaryKey: 1455) == ironMan)
        #expect(try container.value(Character.self, primaryKey: 2) == thor)
    }

    @Test func valuesAreDeletedByValueOrByPrimaryKey() throws {
        let container = try comicsContainer()
        let thor = Character(identifier: 2, name: "Thor", realName: nil, publisher: marvel)
        try container.write { tx in try tx.add([ironMan, thor]) }
        #expect(try container.write { tx in try tx.delete(ironMan) })
        #expect(try container.write { tx in try tx.delete(Character.self, primaryKey: 2) })
        #expect(try container.write { tx in try tx.delete(thor) } == false)
        #expect(try container.values(Character.self).count == 0)
        #expect(try container.values(Publisher.self).count == 1)
    }

    @Test func fetchedResultsAreSortedDecodedLazilyAndLive() throws {
        let container = try comicsContainer()
        try container.write { tx in
            try tx.add(ironMan)
            try tx.add(Character(identifier: 2, name: "Hulk", realName: "Bruce Banner", publisher: marvel))
        }
        let results = try container.values(Character.self, matching: .all)
        #expect(results.count == 2)
        #expect(try results.values.map(\.name) == ["Hulk", "Iron Man"])
        try container.write { tx in try tx.add(Character(identifier: 3, name: "Batman", realName: nil, publisher: Publisher(identifier: 2, name: "DC"))) }
        #expect(results.count == 3)
        #expect(try results[0].name == "Batman")
        #expect(try results[0].publisher?.name == "DC")
    }

    @Test func typedQueriesSelectAndSortThroughLinks() throws {
        let container = try comicsContainer()
        try container.write { tx in
            try tx.add(ironMan)
            try tx.add(Character(identifier: 2, name: "Hulk", realName: nil, publisher: marvel))
            try tx.add(Character(identifier: 3, name: "Batman", realName: nil, publisher: Publisher(identifier: 2, name: "DC")))
        }
        let results = try container.values(Character.self, matching: .publisherName("Marvel"))
        #expect(try results.values.map(\.name) == ["Hulk", "Iron Man"])
        try container.write { tx in try tx.add(Character(identifier: 4, name: "Thor", realName: nil, publisher: marvel)) }
        #expect(results.count == 3)
        #expect(try results[2].name == "Thor")
    }

    @Test func arraysReadLinkingObjectsAndAreLeftOutOfWrites() throws {
        let container = try comicsContainer()
        try container.write { tx in
            try tx.add(ironMan)
            try tx.add(Character(identifier: 2, name: "Hulk", realName: nil, publisher: marvel))
        }
        let roster = try #require(try container.value(PublisherRoster.self, primaryKey: 1))
        #expect(Set(roster.characters.map(\.name)) == ["Iron Man", "Hulk"])
        var renamed = roster
        renamed.name = "Marvel Entertainment"
        try container.write { tx in try tx.add(renamed, update: true) }
        #expect(try container.value(Publisher.self, primaryKey: 1)?.name == "Marvel Entertainment")
    }

    @Test func listsOfValuesAndOfLinkedObjectsDatesAndOptionalsRoundTrip() throws {
        struct Dog: Codable, Equatable { var name: String; var age: Int }
        struct Person: Persistable, Equatable {
            var id: Int
            var name: String
            var birthdate: Date?
            var age: Int?
            var nicknames: [String]
            var dogs: [Dog]
        }
        let container = Container(store: try memoryStore("People.json"))
        let ada = Person(id: 1, name: "Ada", birthdate: Date(timeIntervalSince1970: -4_679_251_200), age: nil,
                         nicknames: ["Countess"], dogs: [Dog(name: "Rex", age: 3), Dog(name: "Fido", age: 1)])
        try container.write { tx in try tx.add(ada) }
        #expect(try container.value(Person.self, primaryKey: 1) == ada)
        #expect(try container.store.read { try $0.count("Dog") } == 2)
    }

    @Test func aTypeThatDoesNotMatchItsModelFailsToDecodeWithThePropertyNamed() throws {
        struct Wrong: Persistable {
            static var modelName: String { "Character" }
            var identifier: Int
            var nickname: String
        }
        let container = try comicsContainer()
        try container.write { tx in try tx.add(ironMan) }
        let wrong = try container.values(Wrong.self)
        let reads: [() throws -> Void] = [{ _ = try wrong[0] }, { _ = try wrong.values }]
        for read in reads {
            #expect {
                try read()
            } throws: { error in
                guard case DecodingError.keyNotFound(let key, _) = error else { return false }
                return key.stringValue == "nickname"
            }
        }
        #expect(throws: StoreError.noSuchProperty(model: "Character", property: "nickname")) {
            try container.write { tx in try tx.add(Wrong(identifier: 1, nickname: "x")) }
        }
    }
}
