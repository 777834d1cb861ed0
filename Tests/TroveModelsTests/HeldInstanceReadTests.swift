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

/// A property type of its own that is a struct holding a class instance, stored as its raw
/// value: neither a class nor a model, but a value read shares its badge with every copy.
struct Emblem: RawRepresentable, Codable, StorableProperty {
    let badge: Badge

    init(_ text: String) { badge = Badge(text) }
    init?(rawValue: String) { self.init(rawValue) }
    var rawValue: String { badge.text }
}

/// An enum whose case holds a class instance as its payload.
enum Award: RawRepresentable, Codable, StorableProperty {
    case badge(Badge)
    case none

    init?(rawValue: String) { self = rawValue.isEmpty ? .none : .badge(Badge(rawValue)) }
    var rawValue: String {
        guard case .badge(let badge) = self else { return "" }
        return badge.text
    }
}

/// A struct holding class instances in a dictionary.
struct Ribbon: RawRepresentable, Codable, StorableProperty {
    let badges: [String: Badge]

    init?(rawValue: String) { badges = ["main": Badge(rawValue)] }
    var rawValue: String { badges["main"]?.text ?? "" }
}

/// A property type of its own that holds no class instance: its values may be kept.
struct Span: RawRepresentable, Codable, StorableProperty {
    var label: String
    var lengths: [Int]

    init?(rawValue: String) { (label, lengths) = (rawValue, [rawValue.count]) }
    var rawValue: String { label }
}

/// Struct models holding a class instance through a property type of their own: a struct, an
/// enum, an optional and an array of one, and a struct with a dictionary of them.
@Model struct EmblemHolder {
    @Attribute(.primaryKey) var id: Int
    var emblem: Emblem
}

@Model struct AwardHolder {
    @Attribute(.primaryKey) var id: Int
    var award: Award
}

@Model struct SpareEmblemHolder {
    @Attribute(.primaryKey) var id: Int
    var spare: Emblem?
}

@Model struct EmblemListHolder {
    @Attribute(.primaryKey) var id: Int
    var emblems: [Emblem] = []
}

@Model struct RibbonHolder {
    @Attribute(.primaryKey) var id: Int
    var ribbon: Ribbon
}

@Model struct SpanHolder {
    @Attribute(.primaryKey) var id: Int
    var span: Span
    var spans: [Span?] = []
}

/// A property type of its own holding a struct model as a value, not a link: no table is
/// asked for it, so its fields count as any struct's.
struct BadgePair: RawRepresentable, Codable, StorableProperty {
    let holder: BadgeHolder

    init?(rawValue: String) { holder = BadgeHolder(id: 0, badge: Badge(rawValue)) }
    var rawValue: String { holder.badge.text }
}

struct SpanPair: RawRepresentable, Codable, StorableProperty {
    let holder: SpanHolder

    init?(rawValue: String) { holder = SpanHolder(id: 0, span: Span(rawValue: rawValue)!) }
    var rawValue: String { holder.span.label }
}

@Model struct BadgePairHolder {
    @Attribute(.primaryKey) var id: Int
    var pair: BadgePair
}

@Model struct SpanPairHolder {
    @Attribute(.primaryKey) var id: Int
    var pair: SpanPair
}

/// A struct model linking to each of them.
@Model struct EmblemWearer {
    @Attribute(.primaryKey) var id: Int
    var emblem: EmblemHolder?
    var award: AwardHolder?
    var spare: SpareEmblemHolder?
    var list: EmblemListHolder?
    var ribbon: RibbonHolder?
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

    @Test func twoReadsInASnapshotShareNoInstanceHeldInsideAPropertyTypeOfItsOwn() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(EmblemWearer.self)))
        try store.write { tx in
            for id in 1...2 {
                try tx.insert(EmblemWearer(
                    id: id, emblem: EmblemHolder(id: 10, emblem: Emblem("gold")), award: AwardHolder(id: 10, award: .badge(Badge("gold"))),
                    spare: SpareEmblemHolder(id: 10, spare: Emblem("gold")), list: EmblemListHolder(id: 10, emblems: [Emblem("gold")]),
                    ribbon: RibbonHolder(id: 10, ribbon: Ribbon(rawValue: "gold")!)))
            }
        }
        func badges(_ wearer: EmblemWearer?) throws -> [Badge] {
            let wearer = try #require(wearer)
            guard case .badge(let award)? = wearer.award?.award else { throw ModelQueryError("no award") }
            return [try #require(wearer.emblem?.emblem.badge), award, try #require(wearer.spare?.spare?.badge),
                    try #require(wearer.list?.emblems.first?.badge), try #require(wearer.ribbon?.ribbon.badges["main"])]
        }
        try store.read { s in
            let first = try badges(try s.object(EmblemWearer.self, primaryKey: 1))
            let second = try badges(try s.object(EmblemWearer.self, primaryKey: 2))
            for (one, two) in zip(first, second) {
                #expect(one !== two)
                one.text = "changed"
                #expect(two.text == "gold")
            }
            #expect(try badges(try s.object(EmblemWearer.self, primaryKey: 1)).map(\.text) == Array(repeating: "gold", count: 5))
        }
    }

    @Test func aPropertyTypeOfItsOwnCountsByWhatItHolds() {
        #expect(!EmblemHolder._holdsNoClassInstance && !AwardHolder._holdsNoClassInstance && !SpareEmblemHolder._holdsNoClassInstance)
        #expect(!EmblemListHolder._holdsNoClassInstance && !RibbonHolder._holdsNoClassInstance && !EmblemWearer._holdsNoClassInstance)
        // Stored as their values: their writes nest no instance.
        #expect(EmblemHolder._nestsNoClassInstance && AwardHolder._nestsNoClassInstance && EmblemWearer._nestsNoClassInstance)
        // Strings, arrays and raw-value enums hold no shared instance: such values are kept.
        #expect(SpanHolder._holdsNoClassInstance && Pet._holdsNoClassInstance)
    }

    // A struct of a module built without reflection metadata reports no field and counts as
    // holding one (ClassInstanceTypes.fieldsHoldInstance); no test here: it needs that module
    // built with `-Xfrontend -disable-reflection-metadata`, a flag this package does not set.
    @Test func aStructModelHeldAsAValueCountsByItsFields() {
        #expect(!BadgePairHolder._holdsNoClassInstance)
        #expect(SpanPairHolder._holdsNoClassInstance)
    }

    @Test func whetherAModelHoldsAClassInstanceFollowsItsLinks() {
        #expect(!Patron._holdsNoClassInstance && !Venue._holdsNoClassInstance && !Booking._holdsNoClassInstance)
        #expect(Person._holdsNoClassInstance && Dog._holdsNoClassInstance && Chore._holdsNoClassInstance)
        #expect(!Patron._nestsNoClassInstance && !Venue._nestsNoClassInstance && !Booking._nestsNoClassInstance)
        #expect(Person._nestsNoClassInstance && Dog._nestsNoClassInstance && Chore._nestsNoClassInstance)
    }
}
