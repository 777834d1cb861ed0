#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove
import TroveModels

@Model struct Dog: Equatable {
    @Attribute(.primaryKey) var id: Int
    @Attribute(.indexed) var name: String = ""
    var age: Int = 0
    var isGood: Bool = true
    @LinkingObjects(\Person.dogs) var owners: [Person] = []
}

@Model struct Person: Equatable {
    @Attribute(.primaryKey) var id: Int
    @Attribute(.indexed) var name: String
    var age: Int = 0
    var nickname: String?
    var score: Double = 0
    var bestFriend: Dog?
    var dogs: [Dog] = []
    var tags: [String] = []
    var isActive: Bool = false
    var verified: Bool?
    var scores: [Int] = []
    @Transient var scratch: Int = 0

    static func == (a: Person, b: Person) -> Bool {
        a.id == b.id && a.name == b.name && a.age == b.age && a.nickname == b.nickname && a.score == b.score
            && a.bestFriend == b.bestFriend && a.dogs == b.dogs && a.tags == b.tags
    }
}
