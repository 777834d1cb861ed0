#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import Trove
import TroveModels
import TestRandom

/// The key paths of a person model the differential test builds predicates on: `Person`'s or
/// its class twin's, each a stored property's own key path.
protocol DifferentialPerson: PersistentModel, SendableMetatype {
    associatedtype Pet: PersistentModel & Equatable
    init(_ person: Person)
    static var id: KeyPath<Self, Int> & Sendable { get }
    static var age: KeyPath<Self, Int> & Sendable { get }
    static var name: KeyPath<Self, String> & Sendable { get }
    static var nickname: KeyPath<Self, String?> & Sendable { get }
    static var score: KeyPath<Self, Double> & Sendable { get }
    static var bestFriend: KeyPath<Self, Pet?> & Sendable { get }
    static var dogs: KeyPath<Self, [Pet]> & Sendable { get }
    static var tags: KeyPath<Self, [String]> & Sendable { get }
    static var petAge: KeyPath<Pet, Int> & Sendable { get }
    static var petName: KeyPath<Pet, String> & Sendable { get }
    static var petIsGood: KeyPath<Pet, Bool> & Sendable { get }
    static var writableName: WritableKeyPath<Self, String> { get }
    static var writableNickname: WritableKeyPath<Self, String?> { get }
    static var writableAge: WritableKeyPath<Self, Int> { get }
}

extension Person: DifferentialPerson {
    init(_ person: Person) { self = person }
    static var id: KeyPath<Person, Int> & Sendable { \.id }
    static var age: KeyPath<Person, Int> & Sendable { \.age }
    static var name: KeyPath<Person, String> & Sendable { \.name }
    static var nickname: KeyPath<Person, String?> & Sendable { \.nickname }
    static var score: KeyPath<Person, Double> & Sendable { \.score }
    static var bestFriend: KeyPath<Person, Dog?> & Sendable { \.bestFriend }
    static var dogs: KeyPath<Person, [Dog]> & Sendable { \.dogs }
    static var tags: KeyPath<Person, [String]> & Sendable { \.tags }
    static var petAge: KeyPath<Dog, Int> & Sendable { \.age }
    static var petName: KeyPath<Dog, String> & Sendable { \.name }
    static var petIsGood: KeyPath<Dog, Bool> & Sendable { \.isGood }
    static var writableName: WritableKeyPath<Person, String> { \.name }
    static var writableNickname: WritableKeyPath<Person, String?> { \.nickname }
    static var writableAge: WritableKeyPath<Person, Int> { \.age }
}

extension PersonObject: DifferentialPerson {
    static var id: KeyPath<PersonObject, Int> & Sendable { \.id }
    static var age: KeyPath<PersonObject, Int> & Sendable { \.age }
    static var name: KeyPath<PersonObject, String> & Sendable { \.name }
    static var nickname: KeyPath<PersonObject, String?> & Sendable { \.nickname }
    static var score: KeyPath<PersonObject, Double> & Sendable { \.score }
    static var bestFriend: KeyPath<PersonObject, DogObject?> & Sendable { \.bestFriend }
    static var dogs: KeyPath<PersonObject, [DogObject]> & Sendable { \.dogs }
    static var tags: KeyPath<PersonObject, [String]> & Sendable { \.tags }
    static var petAge: KeyPath<DogObject, Int> & Sendable { \.age }
    static var petName: KeyPath<DogObject, String> & Sendable { \.name }
    static var petIsGood: KeyPath<DogObject, Bool> & Sendable { \.isGood }
    static var writableName: WritableKeyPath<PersonObject, String> { \.name }
    static var writableNickname: WritableKeyPath<PersonObject, String?> { \.nickname }
    static var writableAge: WritableKeyPath<PersonObject, Int> { \.age }
}

/// Random typed predicates, built by composing `#Predicate` atoms, select the same people as
/// Foundation's own evaluation of the predicate on the values in memory, and as the query text
/// written independently beside each atom; with indexes on and off, over a struct model and
/// over a class model.
@Suite struct TypedPredicateDifferentialTests {
    typealias Generator = SplitMix64


    static let names = ["Ann", "Bob", "Cid", "Dee", "ann", "Eve"]
    static let fragments = ["n", "A", "nn", "e", "B", "Ev"]
    static let tagPool = ["a", "b", "c"]

    static func people(_ g: inout Generator) -> [Person] {
        let dogs = (1...8).map { Dog(id: $0, name: names[$0 % names.count], age: Int.random(in: 0...9, using: &g), isGood: Bool.random(using: &g)) }
        return (1...80).map { id in
            Person(
                id: id, name: TypedPredicateDifferentialTests.names.randomElement(using: &g)!, age: Int.random(in: 0...50, using: &g),
                nickname: [nil, "a", "bb"].randomElement(using: &g)!, score: Double(Int.random(in: 0...20, using: &g)) / 2,
                bestFriend: Bool.random(using: &g) ? dogs.randomElement(using: &g) : nil,
                dogs: dogs.filter { _ in Int.random(in: 0..<4, using: &g) == 0 },
                tags: tagPool.filter { _ in Bool.random(using: &g) }, isActive: Bool.random(using: &g),
                verified: [nil, true, false].randomElement(using: &g)!,
                scores: (0..<Int.random(in: 0...3, using: &g)).map { _ in Int.random(in: 0...9, using: &g) })
        }
    }

    /// The same draws over either person model.
    struct Over<P: DifferentialPerson> {
    typealias Root = PredicateExpressions.Variable<P>
    typealias Condition = any StandardPredicateExpression<Bool>
    /// A condition built on the predicate's variable, as the expansion of `#Predicate` builds it.
    typealias Builder = (Root) -> Condition

    static func path<V>(_ root: Root, _ keyPath: KeyPath<P, V> & Sendable) -> PredicateExpressions.KeyPath<Root, V> {
        PredicateExpressions.KeyPath(root: root, keyPath: keyPath)
    }

    static func constant<V>(_ value: V) -> PredicateExpressions.Value<V> { PredicateExpressions.Value(value) }

    static func and<A: StandardPredicateExpression<Bool>, B: StandardPredicateExpression<Bool>>(_ a: A, _ b: B) -> Condition {
        PredicateExpressions.Conjunction(lhs: a, rhs: b)
    }

    static func or<A: StandardPredicateExpression<Bool>, B: StandardPredicateExpression<Bool>>(_ a: A, _ b: B) -> Condition {
        PredicateExpressions.Disjunction(lhs: a, rhs: b)
    }

    static func not<A: StandardPredicateExpression<Bool>>(_ a: A) -> Condition {
        PredicateExpressions.Negation(a)
    }

    /// One condition: the builder of the typed predicate and the query text it should mean.
    static func atom(_ g: inout Generator) -> (Builder, String) {
        let n = Int.random(in: 0...50, using: &g)
        let small = Int.random(in: 0...9, using: &g)
        let name = TypedPredicateDifferentialTests.names.randomElement(using: &g)!
        let fragment = TypedPredicateDifferentialTests.fragments.randomElement(using: &g)!
        let tag = TypedPredicateDifferentialTests.tagPool.randomElement(using: &g)!
        let score = Double(Int.random(in: 0...20, using: &g)) / 2
        typealias E = PredicateExpressions
        let fallback = [name, "a", "bb", "zz"].randomElement(using: &g)!
        switch Int.random(in: 0..<28, using: &g) {
        case 0: return ({ E.Comparison(lhs: path($0, P.age), rhs: constant(n), op: .greaterThan) }, "age > \(n)")
        case 1: return ({ E.Comparison(lhs: path($0, P.age), rhs: constant(n), op: .lessThanOrEqual) }, "age <= \(n)")
        case 2: return ({ E.Equal(lhs: path($0, P.age), rhs: constant(n)) }, "age == \(n)")
        case 3: return ({ E.NotEqual(lhs: path($0, P.age), rhs: constant(n)) }, "age != \(n)")
        case 4: return ({ E.Comparison(lhs: constant(n), rhs: path($0, P.age), op: .lessThan) }, "\(n) < age")
        case 5: return ({ E.Equal(lhs: path($0, P.name), rhs: constant(name)) }, "name == '\(name)'")
        case 6: return ({ E.NotEqual(lhs: path($0, P.name), rhs: constant(name)) }, "name != '\(name)'")
        case 7: return ({ E.CollectionContainsCollection(base: path($0, P.name), other: constant(fragment)) }, "name CONTAINS '\(fragment)'")
        case 8: return ({ E.SequenceStartsWith(base: path($0, P.name), prefix: constant(fragment)) }, "name BEGINSWITH '\(fragment)'")
        case 9: return ({ E.Equal(lhs: path($0, P.nickname), rhs: E.NilLiteral<String>()) }, "nickname == nil")
        case 10: return ({ E.NotEqual(lhs: path($0, P.nickname), rhs: E.NilLiteral<String>()) }, "nickname != nil")
        case 11: return ({ E.Equal(lhs: path($0, P.nickname), rhs: constant(Optional("bb"))) }, "nickname == 'bb'")
        case 12: return ({ E.Equal(lhs: path($0, P.bestFriend), rhs: E.NilLiteral<P.Pet>()) }, "bestFriend == nil")
        case 13:
            return ({ E.Equal(lhs: E.OptionalFlatMap(path($0, P.bestFriend)) { E.KeyPath(root: $0, keyPath: P.petAge) }, rhs: constant(Optional(small))) },
                    "bestFriend.age == \(small)")
        case 14:
            return ({ E.NotEqual(lhs: E.OptionalFlatMap(path($0, P.bestFriend)) { E.KeyPath(root: $0, keyPath: P.petName) }, rhs: constant(Optional(name))) },
                    "bestFriend.name != '\(name)'")
        case 15:
            return ({ E.NilCoalesce(lhs: E.OptionalFlatMap(path($0, P.bestFriend)) { E.KeyPath(root: $0, keyPath: P.petIsGood) }, rhs: constant(false)) },
                    "bestFriend.isGood == true")
        case 16: return ({ E.SequenceContains(sequence: path($0, P.tags), element: constant(tag)) }, "ANY tags == '\(tag)'")
        case 17: return ({ E.KeyPath(root: path($0, P.tags), keyPath: \.isEmpty) }, "tags.@count == 0")
        case 18: return ({ E.Comparison(lhs: E.KeyPath(root: path($0, P.tags), keyPath: \.count), rhs: constant(2), op: .greaterThanOrEqual) }, "tags.@count >= 2")
        case 19:
            return ({ E.SequenceContainsWhere(path($0, P.dogs)) { E.Comparison(lhs: E.KeyPath(root: $0, keyPath: P.petAge), rhs: constant(small), op: .greaterThan) } },
                    "ANY dogs.age > \(small)")
        case 20: return ({ E.SequenceAllSatisfy(path($0, P.dogs)) { E.KeyPath(root: $0, keyPath: P.petIsGood) } }, "ALL dogs.isGood == true")
        case 21: return ({ E.Equal(lhs: E.KeyPath(root: path($0, P.dogs), keyPath: \.count), rhs: constant(small % 3)) }, "dogs.@count == \(small % 3)")
        case 22:
            return ({ E.build_localizedStandardContains(path($0, P.name), constant(fragment.uppercased())) }, "name CONTAINS[cd] '\(fragment.uppercased())'")
        // `??` with a constant default: the query text spells out the null case, its outcome
        // (`fallback op value`) computed here by Swift.
        case 24:
            return ({ E.Equal(lhs: E.NilCoalesce(lhs: path($0, P.nickname), rhs: constant(fallback)), rhs: constant(name)) },
                    "(nickname != nil AND nickname == '\(name)') OR (nickname == nil AND \(fallback == name ? "TRUEPREDICATE" : "FALSEPREDICATE"))")
        case 25:
            return ({ E.Comparison(lhs: E.NilCoalesce(lhs: path($0, P.nickname), rhs: constant(fallback)), rhs: constant(fragment), op: .lessThan) },
                    "(nickname != nil AND nickname < '\(fragment)') OR (nickname == nil AND \(fallback < fragment ? "TRUEPREDICATE" : "FALSEPREDICATE"))")
        case 26:
            return ({ E.NotEqual(lhs: E.NilCoalesce(lhs: E.OptionalFlatMap(path($0, P.bestFriend)) { E.KeyPath(root: $0, keyPath: P.petAge) }, rhs: constant(small)),
                                 rhs: constant(n % 10)) },
                    "(bestFriend.age != nil AND bestFriend.age != \(n % 10)) OR (bestFriend.age == nil AND \(small != n % 10 ? "TRUEPREDICATE" : "FALSEPREDICATE"))")
        case 27:
            return ({ E.Comparison(lhs: E.NilCoalesce(lhs: E.OptionalFlatMap(path($0, P.bestFriend)) { E.KeyPath(root: $0, keyPath: P.petAge) }, rhs: constant(small)),
                                   rhs: path($0, P.age), op: .greaterThanOrEqual) },
                    "(bestFriend != nil AND bestFriend.age >= age) OR (bestFriend == nil AND \(small) >= age)")
        default: return ({ E.Comparison(lhs: path($0, P.score), rhs: constant(score), op: .greaterThan) }, "score > \(score)")
        }
    }

    static func condition(_ g: inout Generator, depth: Int) -> (Builder, String) {
        randomConditionTree(&g, depth: depth, atom: atom,
                            and: { a, b in { and(a($0), b($0)) } }, or: { a, b in { or(a($0), b($0)) } }, not: { a in { not(a($0)) } })
    }
    }

    @Test func theMacroExpansionAndTheBuildersMakeTheSameQuery() throws {
        typealias O = Over<Person>
        let built = Predicate<Person> { O.and(PredicateExpressions.Comparison(lhs: O.path($0, \.age), rhs: O.constant(3), op: .greaterThan),
                                              PredicateExpressions.KeyPath(root: O.path($0, \.tags), keyPath: \.isEmpty)) }
        let written = #Predicate<Person> { $0.age > 3 && $0.tags.isEmpty }
        #expect(try FetchDescriptor(predicate: built).queryText().text == FetchDescriptor(predicate: written).queryText().text)
    }

    @Test(arguments: [true, false])
    func randomPredicatesSelectWhatFoundationEvaluates(indexed: Bool) throws {
        try selectWhatFoundationEvaluates(Person.self, indexed: indexed, seed: indexed ? 29 : 92)
    }

    @Test(arguments: [true, false])
    func randomPredicatesOverAClassModelSelectWhatFoundationEvaluates(indexed: Bool) throws {
        try selectWhatFoundationEvaluates(PersonObject.self, indexed: indexed, seed: indexed ? 31 : 13)
    }

    func selectWhatFoundationEvaluates<P: DifferentialPerson>(_ model: P.Type, indexed: Bool, seed: UInt64) throws {
        var g = Generator(seed: seed)
        let stored = Self.people(&g)
        let people = stored.map(P.init)
        let store = try peopleStore(indexed: indexed, holding: stored)
        var selective = 0
        try store.read { s in
            for _ in 0..<300 {
                let (builder, text) = Over<P>.condition(&g, depth: 3)
                let predicate = Predicate<P>(builder)
                let expected = try people.filter { try predicate.evaluate($0) }.map { $0[keyPath: P.id] }
                let typed = try s.objects(P.self, where: predicate).map(P.id)
                let written = try s.objects("Person", where: text).map { Int(try $0.int("id") ?? -1) }
                #expect(typed == expected, "\(text)")
                #expect(written == expected, "\(text)")
                if !expected.isEmpty && expected.count < people.count { selective += 1 }
            }
        }
        // Most predicates select some people and not others, so that agreeing means something.
        #expect(selective > 150)
    }
}
