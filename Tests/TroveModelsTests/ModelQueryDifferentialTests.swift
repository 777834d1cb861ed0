import Testing
import Trove
import TroveModels
import TestRandom

/// Random Realm-style typed queries, built by composing atoms, select the same people as the
/// query text written independently beside each atom (with its values as literals), with
/// indexes on and off; and each one's own query text, run with its parameters, agrees too.
@Suite struct ModelQueryDifferentialTests {
    typealias Generator = SplitMix64
    typealias Builder = (ModelQuery<Person, Person>) -> ModelCondition<Person>

    static let names = TypedPredicateDifferentialTests.names
    static let fragments = TypedPredicateDifferentialTests.fragments
    static let tagPool = TypedPredicateDifferentialTests.tagPool

    /// One condition: the typed builder and the query text it should mean.
    static func atom(_ g: inout Generator) -> (Builder, String) {
        let n = Int.random(in: 0...50, using: &g)
        let small = Int.random(in: 0...9, using: &g)
        let name = names.randomElement(using: &g)!
        let other = names.randomElement(using: &g)!
        let fragment = fragments.randomElement(using: &g)!
        let tag = tagPool.randomElement(using: &g)!
        let score = Double(Int.random(in: 0...20, using: &g)) / 2
        switch Int.random(in: 0..<55, using: &g) {
        case 0: return ({ $0.age > n }, "age > \(n)")
        case 1: return ({ $0.age <= n }, "age <= \(n)")
        case 2: return ({ $0.age == n }, "age == \(n)")
        case 3: return ({ $0.age != n }, "age != \(n)")
        case 4: return ({ $0.age >= n }, "age >= \(n)")
        case 5: return ({ $0.name == name }, "name == '\(name)'")
        case 6: return ({ $0.name != name }, "name != '\(name)'")
        case 7: return ({ $0.name.contains(fragment) }, "name CONTAINS '\(fragment)'")
        case 8: return ({ $0.name.starts(with: fragment, options: .caseInsensitive) }, "name BEGINSWITH[c] '\(fragment)'")
        case 9: return ({ $0.nickname == nil }, "nickname == nil")
        case 10: return ({ $0.nickname != nil }, "nickname != nil")
        case 11: return ({ $0.nickname == "bb" }, "nickname == 'bb'")
        case 12: return ({ $0.bestFriend == nil }, "bestFriend == nil")
        case 13: return ({ $0.bestFriend.age == small }, "bestFriend.age == \(small)")
        case 14: return ({ $0.bestFriend.name != name }, "bestFriend.name != '\(name)'")
        case 15: return ({ $0.bestFriend.isGood == true }, "bestFriend.isGood == true")
        case 16: return ({ $0.tags.contains(tag) }, "'\(tag)' IN tags")
        case 17: return ({ $0.tags.count == 0 }, "tags.@count == 0")
        case 18: return ({ $0.tags.count >= 2 }, "tags.@count >= 2")
        case 19: return ({ $0.dogs.age > small }, "ANY dogs.age > \(small)")
        case 20: return ({ $0.dogs.name == name }, "ANY dogs.name == '\(name)'")
        case 21: return ({ $0.dogs.count == small % 3 }, "dogs.@count == \(small % 3)")
        case 22: return ({ $0.name.contains(fragment.uppercased(), options: [.caseInsensitive, .diacriticInsensitive]) },
                         "name CONTAINS[cd] '\(fragment.uppercased())'")
        case 23: return ({ $0.name.in([name, other]) }, "name IN {'\(name)', '\(other)'}")
        case 24: return ({ $0.name.ends(with: fragment) }, "name ENDSWITH '\(fragment)'")
        case 25: return ({ $0.age.contains(n...(n + small * 5)) }, "age BETWEEN {\(n), \(n + small * 5)}")
        case 26: return ({ $0.age.contains(n..<(n + small * 5)) }, "age >= \(n) AND age < \(n + small * 5)")
        case 27: return ({ $0.age >= $0.id }, "age >= id")
        case 28: return (bare { $0.isActive }, "isActive == true")
        case 29: return ({ !$0.isActive }, "isActive == false")
        case 30: return (bare { $0.verified }, "verified == true")
        case 31: return ({ !$0.verified }, "NOT (verified == true)")
        case 32: return ({ $0.isActive && $0.age > n }, "isActive == true AND age > \(n)")
        case 33: return ({ $0.age < n || $0.verified }, "age < \(n) OR verified == true")
        case 34: return (bare { $0.bestFriend.isGood }, "bestFriend.isGood == true")
        case 35: return ({ $0.dogs.age.avg > Double(small) }, "dogs.@avg.age > \(small)")
        case 36: return ({ $0.dogs.age.sum >= n % 15 }, "dogs.@sum.age >= \(n % 15)")
        case 37: return ({ $0.dogs.age.min < small }, "dogs.@min.age < \(small)")
        case 38: return ({ $0.dogs.age.max == small }, "dogs.@max.age == \(small)")
        case 39: return ({ $0.scores.sum > small }, "scores.@sum > \(small)")
        case 40: return ({ $0.scores.avg <= Double(small) }, "scores.@avg <= \(small)")
        case 41: return ({ $0.scores.max >= small && $0.scores.min < small }, "scores.@max >= \(small) AND scores.@min < \(small)")
        case 42: return ({ $0.dogs.allSatisfy { $0.age > small } }, "ALL dogs.age > \(small)")
        case 43: return ({ !$0.dogs.contains(where: { $0.isGood }) }, "NONE dogs.isGood == true")
        case 44: return ({ $0.dogs.contains(where: { $0.age > small && $0.isGood }) },
                         "SUBQUERY(dogs, $d, $d.age > \(small) AND $d.isGood == true).@count > 0")
        case 45: return ({ $0.dogs.allSatisfy { $0.isGood || $0.age < small } },
                         "SUBQUERY(dogs, $d, NOT ($d.isGood == true OR $d.age < \(small))).@count == 0")
        case 46: return ({ ($0.dogs.age > small && $0.dogs.name != name).count >= 1 },
                         "SUBQUERY(dogs, $d, $d.age > \(small) AND $d.name != '\(name)').@count >= 1")
        case 47: return ({ $0.scores.allSatisfy { $0 >= small } }, "ALL scores >= \(small)")
        case 48: return ({ $0.scores.contains(where: { $0 > small && $0 < small + 4 }) },
                         "SUBQUERY(scores, $s, $s > \(small) AND $s < \(small + 4)).@count > 0")
        case 49: return ({ !$0.bestFriend.isGood }, "NOT (bestFriend.isGood == true)")
        case 50: return ({ !$0.dogs.isGood }, "NONE dogs.isGood == true")
        case 51: return ({ $0.dogs.allSatisfy { !$0.isGood } }, "ALL dogs.isGood == false")
        case 52: return ({ $0.dogs.owners.age > n }, "ANY dogs.owners.age > \(n)")
        case 53: return ({ $0.dogs.contains(where: { $0.owners.age.avg > Double(n) }) },
                         "SUBQUERY(dogs, $d, $d.owners.@avg.age > \(n)).@count > 0")
        default: return ({ $0.score > score }, "score > \(score)")
        }
    }

    /// A builder whose closure returns what a `where:` closure may (a `Bool` property alone).
    static func bare<C: ModelConditionConvertible<Person>>(_ body: @escaping (ModelQuery<Person, Person>) -> C) -> Builder {
        { body($0).modelCondition() }
    }

    static func condition(_ g: inout Generator, depth: Int) -> (Builder, String) {
        randomConditionTree(&g, depth: depth, atom: atom,
                            and: { a, b in { a($0) && b($0) } }, or: { a, b in { a($0) || b($0) } }, not: { a in { !a($0) } })
    }

    @Test(arguments: [true, false])
    func randomTypedQueriesSelectWhatTheirStringQueriesSelect(indexed: Bool) throws {
        var g = Generator(seed: indexed ? 2929 : 9292)
        let people = TypedPredicateDifferentialTests.people(&g)
        let store = try peopleStore(indexed: indexed, holding: people)
        var selective = 0
        try store.read { s in
            for _ in 0..<300 {
                let (builder, text) = Self.condition(&g, depth: 3)
                let written = try s.objects("Person", where: text).map { Int(try $0.int("id") ?? -1) }
                let typed = try s.objects(Person.self, where: builder).map(\.id)
                let (statement, arguments) = try builder(ModelQuery()).queryText()
                let translated = try s.query(statement, arguments: arguments).map { Int(try $0.int("id") ?? -1) }
                #expect(typed == written, "\(text) as \(statement)")
                #expect(translated == written, "\(text) as \(statement)")
                if !written.isEmpty && written.count < people.count { selective += 1 }
            }
        }
        // Most queries select some people and not others, so that agreeing means something.
        #expect(selective > 150)
    }
}
