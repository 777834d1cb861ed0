import Testing
import Trove
import TroveModels

@Model final class Patron {
    @Attribute(.primaryKey) var id: Int
    var name: String

    init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}

/// A struct model that holds class instances: through a link and through a list of links.
@Model struct Venue {
    @Attribute(.primaryKey) var id: Int
    var patron: Patron?
    var regulars: [Patron] = []
}

/// A struct model that holds class instances only through another struct model.
@Model struct Booking {
    @Attribute(.primaryKey) var id: Int
    var venue: Venue?
}

/// A property type of its own that is a class: each value read is a new instance.
final class Badge: StorableProperty, Codable {
    var text: String

    init(_ text: String) { self.text = text }

    static var storedPropertyType: StoredPropertyType { StoredPropertyType(type: .string, isOptional: false) }

    func storedValue() throws -> Value { .string(text) }

    static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> Badge {
        guard case .string(let text) = value else { throw ModelQueryError("not a badge") }
        return Badge(text)
    }
}

/// A struct model holding a class instance through a property of its own type, not a link.
@Model struct BadgeHolder {
    @Attribute(.primaryKey) var id: Int
    var badge: Badge
}

@Model struct BadgeWearer {
    @Attribute(.primaryKey) var id: Int
    var holder: BadgeHolder?
}

/// A read-only snapshot keeps the struct values that links point at, but not those that hold a
/// class instance: the instance would be shared by every read after, and a change to it
/// through one would show in the others.
@Suite struct HeldInstanceReadTests {
    @Test func twoReadsInASnapshotShareNoInstanceHeldByALinkedStruct() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Booking.self)))
        let hall = Venue(id: 10, patron: Patron(id: 1, name: "Ann"), regulars: [Patron(id: 2, name: "Bob")])
        try store.write { tx in
            try tx.insert(Booking(id: 1, venue: hall))
            try tx.insert(Booking(id: 2, venue: hall))
        }
        try store.read { s in
            let first = try #require(try s.object(Booking.self, primaryKey: 1))
            let second = try #require(try s.object(Booking.self, primaryKey: 2))
            let (one, two) = (try #require(first.venue?.patron), try #require(second.venue?.patron))
            #expect(one !== two)
            one.name = "changed"
            first.venue?.regulars.first?.name = "changed"
            #expect(two.name == "Ann" && second.venue?.regulars.first?.name == "Bob")
            #expect(try s.object(Booking.self, primaryKey: 1)?.venue?.patron?.name == "Ann")
            #expect(try s.objects(Booking.self).map { $0.venue?.regulars.first?.name } == ["Bob", "Bob"])
        }
    }

    @Test func twoReadsInASnapshotShareNoInstanceOfAPropertyTypeThatIsAClass() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(BadgeWearer.self)))
        try store.write { tx in
            try tx.insert(BadgeWearer(id: 1, holder: BadgeHolder(id: 10, badge: Badge("gold"))))
            try tx.insert(BadgeWearer(id: 2, holder: BadgeHolder(id: 10, badge: Badge("gold"))))
        }
        try store.read { s in
            let first = try #require(try s.object(BadgeWearer.self, primaryKey: 1)?.holder?.badge)
            let second = try #require(try s.object(BadgeWearer.self, primaryKey: 2)?.holder?.badge)
            #expect(first !== second)
            first.text = "changed"
            #expect(second.text == "gold")
        }
        #expect(!BadgeHolder._holdsNoClassInstance && !BadgeWearer._holdsNoClassInstance)
        // A Badge is stored as its value: writes nest no instance, so they skip that work.
        #expect(BadgeHolder._nestsNoClassInstance && BadgeWearer._nestsNoClassInstance)
    }

    @Test func whetherAModelHoldsAClassInstanceFollowsItsLinks() {
        #expect(!Patron._holdsNoClassInstance && !Venue._holdsNoClassInstance && !Booking._holdsNoClassInstance)
        #expect(Person._holdsNoClassInstance && Dog._holdsNoClassInstance && Chore._holdsNoClassInstance)
        #expect(!Patron._nestsNoClassInstance && !Venue._nestsNoClassInstance && !Booking._nestsNoClassInstance)
        #expect(Person._nestsNoClassInstance && Dog._nestsNoClassInstance && Chore._nestsNoClassInstance)
    }
}
