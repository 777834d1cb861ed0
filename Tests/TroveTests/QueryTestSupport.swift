import Testing
@testable import Trove

/// Helpers shared by the query tests.
enum QueryTest {
    static func predicate(_ text: String) throws -> QueryPredicate {
        try QueryParser.parsePredicate(text)
    }

    static func comparison(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> QueryPredicate.Comparison {
        let parsed = try QueryParser.parsePredicate(text)
        guard case .comparison(let comparison) = parsed.kind else {
            Issue.record("not a comparison: \(text) -> \(parsed)", sourceLocation: sourceLocation)
            throw Failure()
        }
        return comparison
    }

    static func predicateError(_ text: String) -> QueryError? {
        do {
            _ = try QueryParser.parsePredicate(text)
            return nil
        } catch {
            return error
        }
    }

    static func queryError(_ text: String) -> QueryError? {
        do {
            _ = try QueryParser.parseQuery(text)
            return nil
        } catch {
            return error
        }
    }

    static func tokens(_ text: String) throws -> [QueryToken.Kind] {
        try QueryLexer.tokenize(text).map(\.kind).dropLast()
    }

    struct Failure: Error {}
}
