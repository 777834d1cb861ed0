#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove
import TroveModels

// Class twins of `Dog` and `Person` (Models.swift), stored under the same model names, so that
// one store holds what either writes and a contract runs over both.

@Model("Dog") final class DogObject: Equatable {
    @Attribute(.primaryKey) var id: Int
    @Attribute(.indexed) var name: String = ""
    var age: Int = 0
    var isGood: Bool = true
    @LinkingObjects(\PersonObject.dogs) var owners: [PersonObject] = []

    init(id: Int, name: String = "", age: Int = 0, isGood: Bool = true) {
        self.id = id
        self.name = name
        self.age = age
        self.isGood = isGood
    }

    convenience init(_ dog: Dog) { self.init(id: dog.id, name: dog.name, age: dog.age, isGood: dog.isGood) }

    /// Equal stored values, which `== nil` in a `#Predicate` needs the type to compare.
    static func == (a: DogObject, b: DogObject) -> Bool {
        a.id == b.id && a.name == b.name && a.age == b.age && a.isGood == b.isGood
    }
}

@Model("Person") final class PersonObject {
    @Attribute(.primaryKey) let id: Int
    @Attribute(.indexed) var name: String
    var age: Int = 0
    var nickname: String?
    var score: Double = 0
    var bestFriend: DogObject?
    var dogs: [DogObject] = []
    var tags: [String] = []
    var isActive: Bool = false
    var verified: Bool?
    var scores: [Int] = []
    @Transient var scratch: Int = 0

    init(id: Int, name: String, age: Int = 0, nickname: String? = nil, score: Double = 0, bestFriend: DogObject? = nil,
         dogs: [DogObject] = [], tags: [String] = [], isActive: Bool = false, verified: Bool? = nil, scores: [Int] = []) {
        self.id = id
        self.name = name
        self.age = age
        self.nickname = nickname
        self.score = score
        self.bestFriend = bestFriend
        self.dogs = dogs
        self.tags = tags
        self.isActive = isActive
        self.verified = verified
        self.scores = scores
    }

    convenience init(_ p: Person) {
        self.init(id: p.id, name: p.name, age: p.age, nickname: p.nickname, score: p.score, bestFriend: p.bestFriend.map(DogObject.init),
                  dogs: p.dogs.map(DogObject.init), tags: p.tags, isActive: p.isActive, verified: p.verified, scores: p.scores)
    }
}

/// Every scalar type of the schema format, required and optional, in a class.
@Model final class Sample {
    @Attribute(.primaryKey) var id: UUID = UUID()
    var flag: Bool = false
    var small: Int8 = 0
    var medium: Int32 = 0
    var large: Int64 = 0
    var single: Float = 0
    var double: Double = 0
    var text: String = ""
    var when: Date = Date(timeIntervalSince1970: 0)
    var bytes: Data = Data()
    var amount: Decimal = 0
    var other: UUID?
    var maybeText: String?
    var maybeWhen: Date?
    var maybeBytes: Data?
    var maybeAmount: Decimal?
    var maybeFlag: Bool?
    var readings: [Double] = []
    // No initializer declared: `@Model` keeps the `init()` Swift gives such a class.
}

/// A class that links to its own model, which a struct cannot.
@Model final class Node {
    @Attribute(.primaryKey) var id: Int
    var next: Node?

    init(id: Int, next: Node? = nil) {
        self.id = id
        self.next = next
    }
}
