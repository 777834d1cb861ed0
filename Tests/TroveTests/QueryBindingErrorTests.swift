import Foundation
import Testing
@testable import Trove

/// Binding errors name what is wrong with the statement and point at it: an unknown name at
/// the name, a mismatched value at the value, an operator that does not apply at the operator.
@Suite struct QueryBindingErrorTests {
    static func error(_ body: (Snapshot) throws -> Any) -> QueryError? {
        do {
            let store = try QueryFixtures.smallStore()
            _ = try store.read { try body($0) }
            return nil
        } catch let error as QueryError {
            return error
        } catch {
            Issue.record("not a QueryError: \(error)")
            return nil
        }
    }

    static func error(_ predicate: String, _ arguments: [Value] = []) -> QueryError? {
        error { try $0.objects("Person", where: predicate, arguments: arguments) }
    }

    static func expect(_ predicate: String, _ kind: QueryError.Kind, column: Int, arguments: [Value] = [],
                       mentioning text: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error = error(predicate, arguments) else {
            Issue.record("no error for \(predicate)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
        #expect(error.column == column, "\(error)", sourceLocation: sourceLocation)
        if let text { #expect(error.message.contains(text), "\(error)", sourceLocation: sourceLocation) }
    }

    @Test func unknownPropertiesAreNamedAtTheirPosition() {
        Self.expect("nme == 'x'", .unknownProperty, column: 1, mentioning: "did you mean 'name'")
        Self.expect("bestFriend.nmae == 'x'", .unknownProperty, column: 12)
        Self.expect("name.first == 'x'", .unknownProperty, column: 6, mentioning: "not a link")
        Self.expect("age > 3 AND dogs.colour == 'x'", .unknownProperty, column: 18)
    }

    @Test func unknownModelsAreNamed() throws {
        let error = try #require(Self.error { try $0.query("Persn where age > 1") })
        #expect(error.kind == .unknownModel)
        #expect(error.message.contains("did you mean 'Person'"))
    }

    @Test func mismatchedValuesArePointedAt() {
        Self.expect("age == 'abc'", .typeMismatch, column: 8)
        Self.expect("name == 5", .typeMismatch, column: 9)
        Self.expect("active == 1", .typeMismatch, column: 11)
        Self.expect("born == 'yesterday'", .typeMismatch, column: 9, mentioning: "ISO 8601")
        Self.expect("token == 'not-a-uuid'", .typeMismatch, column: 10)
        Self.expect("age > nil", .typeMismatch, column: 7)
        Self.expect("age IN 5", .typeMismatch, column: 8)
        Self.expect("age == name", .typeMismatch, column: 5)
        Self.expect("bestFriend == 3", .typeMismatch, column: 15)
    }

    @Test func operatorsThatDoNotApplyArePointedAt() {
        Self.expect("active < true", .invalidOperator, column: 8, mentioning: "bool")
        Self.expect("token >= 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'", .invalidOperator, column: 7)
        Self.expect("blob BETWEEN {'AA==', 'AQ=='}", .invalidOperator, column: 1)
        Self.expect("age BEGINSWITH 'a'", .invalidOperator, column: 5)
        Self.expect("age ==[c] 5", .invalidModifier, column: 5)
    }

    @Test func parametersAreCheckedAgainstTheirProperty() {
        Self.expect("age == $1", .invalidParameter, column: 8, arguments: [1], mentioning: "1 argument")
        Self.expect("age == $0", .typeMismatch, column: 8, arguments: ["abc"])
        Self.expect("born > $0", .typeMismatch, column: 8, arguments: [.int(3)])
        Self.expect("age IN $0", .typeMismatch, column: 8, arguments: [3])
    }

    @Test func collectionOperatorsNeedCollections() {
        Self.expect("tags.@sum > 1", .invalidAggregate, column: 1, mentioning: "numbers")
        Self.expect("age.@count > 1", .invalidAggregate, column: 1)
        Self.expect("dogs.@sum > 1", .invalidAggregate, column: 1, mentioning: "property")
        Self.expect("ALL age > 1", .invalidQuantifier, column: 1)
        Self.expect("SUBQUERY(name, $x, $x == 'a').@count > 0", .invalidKeyPath, column: 10)
        Self.expect("SUBQUERY(dogs, $d, age > 2).@count > 0", .invalidKeyPath, column: 20, mentioning: "$d")
        Self.expect("SUBQUERY(scores, $s, $s.value > 2).@count > 0", .unknownProperty, column: 25)
    }

    @Test func sortingByAListIsAnError() throws {
        let error = try #require(Self.error { try $0.query("Person SORT(tags)") })
        #expect(error.kind == .invalidKeyPath)
        #expect(error.column == 13)
        let link = try #require(Self.error { try $0.query("Person SORT(bestFriend DESC)") })
        #expect(link.kind == .invalidKeyPath)
    }

    @Test func errorsEchoTheStatementWithACaret() throws {
        let error = try #require(Self.error("age == 'abc'"))
        #expect(error.description == "expected int, found the string \"abc\" at column 8\n  age == 'abc'\n         ^")
    }

    @Test func invalidRegularExpressionsArePointedAt() {
        Self.expect("name MATCHES '(unclosed'", .invalidRegularExpression, column: 14)
    }
}
