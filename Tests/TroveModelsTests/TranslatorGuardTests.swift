import Testing
import Trove
@testable import TroveModels

/// The translator's refusals of paths the typed API's types do not let a `where:` closure
/// build (an aggregate of no list, of a list through a list), built here directly.
@Suite struct TranslatorGuardTests {
    func translate(_ path: ModelQueryPath) throws -> QueryPredicate {
        try ModelConditionTranslator.predicate(of: .comparison(path, .greaterThan, options: 0, .argument), root: Person.self)
    }

    func aggregate(_ aggregate: ModelQueryAggregate, of keyPaths: AnyKeyPath...) -> ModelQueryPath {
        var path = keyPaths.reduce(ModelQueryPath()) { $0.appending($1) }
        path.aggregate = aggregate
        return path
    }

    @Test func anAggregateOfNoListIsAnErrorNamingIt() throws {
        #expect(performing: { try translate(aggregate(.sum, of: \Person.age)) },
                throws: { $0 is ModelQueryError && "\($0)".contains("aggregates a list, and age crosses none") })
        #expect(performing: { try translate(aggregate(.max, of: \Person.bestFriend, \Dog.age)) },
                throws: { $0 is ModelQueryError && "\($0)".contains("aggregates a list, and bestFriend.age crosses none") })
    }

    @Test func anAggregateThroughTwoListsIsAnErrorNamingIt() throws {
        #expect(performing: { try translate(aggregate(.avg, of: \Person.dogs, \Dog.owners, \Person.age)) },
                throws: { $0 is ModelQueryError && "\($0)".contains("$0.dogs.owners.age.avg aggregates a list of each object of dogs, which the query language has no form for: aggregate it in the closure of an element ($0.dogs.contains(where: { $0.owners.age.avg ... }))") })
        #expect(performing: { try translate(aggregate(.count, of: \Person.dogs, \Dog.owners)) },
                throws: { $0 is ModelQueryError && "\($0)".contains("$0.dogs.owners.count aggregates a list of each object of dogs") })
    }

    @Test func anAggregateOfOneListIsItsAggregate() throws {
        #expect(try translate(aggregate(.avg, of: \Person.dogs, \Dog.age)).description == "dogs.@avg.age > $0")
    }
}
