#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import Trove
@testable import TroveModels

/// A known expression reads a predicate's elements at their offsets in the tree: it must read
/// what the walk of the tree reads, for every node type the walk knows, and tell another
/// shape of the same expression type apart as the walk does.
@Suite struct PredicateShapeProgramTests {
    /// One predicate of each node type the shape reader walks, with `name` and `age` captured.
    func everyNode(_ name: String, _ age: Int, _ nick: String?, _ names: [String]) -> [Predicate<Person>] {
        [
            #Predicate { $0.name == name },
            #Predicate { $0.name != name && $0.age >= age },
            #Predicate { $0.age < age || !($0.score > 2) },
            #Predicate { $0.nickname == nick },
            #Predicate { $0.nickname == nil },
            #Predicate { $0.name.contains(name) },
            #Predicate { $0.name.starts(with: name) },
            #Predicate { $0.name.localizedStandardContains(name) },
            #Predicate { names.contains($0.name) },
            #Predicate { $0.tags.contains(name) },
            #Predicate { $0.dogs.contains { dog in dog.age > age } },
            #Predicate { $0.dogs.allSatisfy { dog in dog.name == name } },
            #Predicate { $0.bestFriend?.name == name },
            #Predicate { ($0.nickname ?? name) == name },
            #Predicate { $0.nickname! == name },
        ]
    }

    func known(_ predicate: Predicate<Person>) throws -> PredicateTranslationCache.KnownExpression {
        let reader = try #require(PredicateShapeReader.read(predicate))
        let entry = PredicateTranslationCache.Entry(condition: QueryPredicate(.constant(true)), text: "", sources: [], constants: 0)
        return PredicateTranslationCache.KnownExpression(shape: reader.shape, shaped: try #require(reader.shaped), entry: entry)
    }

    @Test func everyNodeIsReadInPlaceAsItsWalkReadsIt() throws {
        let first = everyNode("Ann", 30, "annie", ["Bob"])
        let second = everyNode("Cid", 40, "c", ["Dee"])
        for (a, b) in zip(first, second) {
            let expression = try known(a)
            #expect(expression.program != nil, "\(type(of: a.expression))")
            let walked = try #require(PredicateShapeReader.read(b)).values
            #expect(PredicateShapeReader.values(of: b, matching: expression) == walked, "\(type(of: b.expression))")
        }
    }

    @Test func anotherKeyPathOperatorNilOrLengthOfTheSameTypeIsAnotherShape() throws {
        func over(_ keyPath: KeyPath<Person, Int>, _ value: Int) -> Predicate<Person> {
            keyPath == \Person.age ? #Predicate { $0.age > value } : #Predicate { $0.id > value }
        }
        func under(_ value: Int) -> Predicate<Person> { #Predicate { $0.age < value } }
        func nickname(_ nick: String?) -> Predicate<Person> { #Predicate { $0.nickname == nick } }
        func among(_ names: [String]) -> Predicate<Person> { #Predicate { names.contains($0.name) } }
        let age = try known(over(\.age, 1))
        #expect(age.program != nil)
        #expect(PredicateShapeReader.values(of: over(\.age, 7), matching: age) == [.int(7)])
        #expect(PredicateShapeReader.values(of: over(\.id, 7), matching: age) == nil)
        #expect(PredicateShapeReader.values(of: under(7), matching: age) == nil)
        let nick = try known(nickname("a"))
        #expect(PredicateShapeReader.values(of: nickname("b"), matching: nick) == [.string("b")])
        #expect(PredicateShapeReader.values(of: nickname(nil), matching: nick) == nil)
        let names = try known(among(["a"]))
        #expect(PredicateShapeReader.values(of: among(["b"]), matching: names) == [.list([.string("b")])])
        #expect(PredicateShapeReader.values(of: among(["a", "b"]), matching: names) == nil)
    }
}
