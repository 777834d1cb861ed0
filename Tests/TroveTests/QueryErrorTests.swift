import Foundation
import Testing
@testable import Trove

@Suite("Query errors")
struct QueryErrorTests {
    @Test func messageNamesWhatWasExpectedAndEchoesTheStatementWithACaret() throws {
        let error = try #require(QueryTest.predicateError("age > 3 && == 4"))
        #expect(error.kind == .unexpectedToken)
        #expect(error.column == 12)
        #expect(error.description == """
            expected a predicate after '&&', found '==' at column 12
              age > 3 && == 4
                         ^
            """)
    }

    @Test func missingValueAfterAnOperator() throws {
        let error = try #require(QueryTest.predicateError("age == )"))
        #expect(error.message == "expected a value after '==', found ')'")
        #expect(error.column == 8)
    }

    @Test func endOfStatementIsItsOwnKind() throws {
        let error = try #require(QueryTest.predicateError("age == "))
        #expect(error.kind == .unexpectedEnd)
        #expect(error.message == "expected a value after '==', found the end of the statement")
        #expect(error.column == 8)
        #expect(QueryTest.predicateError("(a == 1")?.kind == .unexpectedEnd)
        #expect(QueryTest.predicateError("")?.message == "expected a predicate, found the end of the statement")
    }

    @Test func caretLinesUpWithTabsAndNonASCII() throws {
        let error = try #require(QueryTest.predicateError("\tnom == 'é' ¤"))
        #expect(error.column == 13)
        #expect(error.description.hasSuffix("\n  \tnom == 'é' ¤\n  \t           ^"))
    }

    @Test func multilineStatementsEchoTheOffendingLine() throws {
        let error = try #require(QueryTest.predicateError("name == 'a\nb' AND\n  age >"))
        #expect(error.location.line == 3)
        #expect(error.description == """
            expected a value after '>', found the end of the statement at line 3, column 8
                age >
                     ^
            """)
    }

    @Test func longLinesAreEchoedAroundTheColumn() throws {
        let text = String(repeating: "a == 1 AND ", count: 40) + "?"
        let error = try #require(QueryTest.predicateError(text))
        let lines = error.description.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[1].hasPrefix("  ..."))
        #expect(lines[1].count < 140)
        let caret = try #require(Array(lines[2]).firstIndex(of: "^"))
        #expect(Array(lines[1])[caret] == "?")
    }

    @Test func missingOperator() throws {
        let error = try #require(QueryTest.predicateError("isActive"))
        #expect(error.message == "expected a comparison operator after 'isActive', found the end of the statement")
        #expect(QueryTest.predicateError("name 'x'")?.column == 6)
    }

    @Test func trailingTokensAfterAPredicate() throws {
        let error = try #require(QueryTest.predicateError("a == 1 b"))
        #expect(error.message == "expected AND, OR or the end of the statement after '1', found 'b'")
        #expect(error.column == 8)
        #expect(QueryTest.predicateError("a == 1)")?.column == 7)
    }

    @Test func unclosedParenthesisNamesWhereItOpened() throws {
        let error = try #require(QueryTest.predicateError("(a == 1 OR (b == 2) c"))
        #expect(error.message == "expected ')' to close the '(' at column 1, found 'c'")
    }

    @Test func modifiersOnOrderingOperatorsAreErrors() throws {
        let error = try #require(QueryTest.predicateError("name <[c] 'x'"))
        #expect(error.kind == .invalidModifier)
        #expect(error.column == 7)
        #expect(QueryTest.predicateError("age BETWEEN[c] {1, 2}")?.kind == .invalidModifier)
    }

    @Test func quantifierNeedsAKeyPath() throws {
        let error = try #require(QueryTest.predicateError("ANY 5 == x"))
        #expect(error.kind == .invalidQuantifier)
        #expect(error.column == 1)
        #expect(QueryTest.predicateError("ALL dogs.@count == 1")?.kind == .invalidQuantifier)
        #expect(QueryTest.predicateError("ANY")?.kind == .unexpectedEnd)
    }

    @Test func aggregateMisuse() throws {
        #expect(QueryTest.predicateError("@count > 1")?.kind == .invalidAggregate)
        let property = try #require(QueryTest.predicateError("dogs.@count.name > 1"))
        #expect(property.kind == .invalidAggregate)
        #expect(property.column == 12)
        #expect(QueryTest.predicateError("a.@sum.b.@sum > 1")?.kind == .invalidAggregate)
        #expect(QueryTest.predicateError("a.@sum. > 1")?.kind == .unexpectedToken)
    }

    @Test func variablesMustBeDeclaredOnce() throws {
        let unknown = try #require(QueryTest.predicateError("$x.age > 1"))
        #expect(unknown.kind == .unknownVariable)
        #expect(unknown.column == 1)
        #expect(QueryTest.predicateError("SUBQUERY(a, $x, $y > 1).@count > 1")?.kind == .unknownVariable)
        #expect(QueryTest.predicateError("SUBQUERY(a, $x, SUBQUERY($x.b, $x, $x > 1).@count > 1).@count > 1")?.kind == .unknownVariable)
        #expect(QueryTest.predicateError("SUBQUERY(a, $x, $x > 1).@count > 1 AND $x > 1")?.kind == .unknownVariable)
    }

    @Test func subqueryMustBeCounted() throws {
        #expect(QueryTest.predicateError("SUBQUERY(a, $x, $x > 1) > 1")?.kind == .unexpectedToken)
        #expect(QueryTest.predicateError("SUBQUERY(a, $x, $x > 1).@sum > 1")?.kind == .unexpectedToken)
        #expect(QueryTest.predicateError("SUBQUERY(a, $0, $0 > 1).@count > 1")?.kind == .unexpectedToken)
    }

    @Test func listLiteralsHoldValuesOnly() throws {
        #expect(QueryTest.predicateError("a IN {b}")?.kind == .unexpectedToken)
        #expect(QueryTest.predicateError("a IN {{1}}")?.kind == .unexpectedToken)
        #expect(QueryTest.predicateError("a IN {1,}")?.kind == .unexpectedToken)
        #expect(QueryTest.predicateError("a IN {1 2}")?.message == "expected ',' or '}' after '1', found '2'")
        #expect(QueryTest.predicateError("a BETWEEN {1}")?.kind == .unexpectedToken)
        #expect(QueryTest.predicateError("a BETWEEN 1, 2")?.kind == .unexpectedToken)
        #expect(QueryTest.predicateError("a BETWEEN {{1}, 2}")?.kind == .unexpectedToken)
    }

    @Test func queryStatementErrors() throws {
        #expect(QueryTest.queryError("")?.message == "expected a model name, found the end of the statement")
        let missingWhere = try #require(QueryTest.queryError("Person age > 3"))
        #expect(missingWhere.message == "expected 'where', GROUP, SORT, DISTINCT, OFFSET, LIMIT, SELECT or the end of the statement after 'Person', found 'age'")
        #expect(missingWhere.column == 8)
        #expect(QueryTest.queryError("Person where")?.kind == .unexpectedEnd)
        #expect(QueryTest.queryError("Person SORT age")?.kind == .unexpectedToken)
        #expect(QueryTest.queryError("Person SORT()")?.kind == .unexpectedToken)
        // A list aggregate in SORT is read as a SELECT item's text (the binder matches it).
        #expect(QueryTest.queryError("Person SORT(a.@count)") == nil)
        #expect(QueryTest.queryError("Person SORT(a.@count.x)")?.kind == .invalidAggregate)
        #expect(QueryTest.queryError("Person SORT(a UP)")?.message == "expected ASC, DESC, ',' or ')' after 'a', found 'UP'")
    }

    @Test func clausesComeOnceInOrder() throws {
        let error = try #require(QueryTest.queryError("Person LIMIT(1) SORT(a)"))
        #expect(error.kind == .unexpectedToken)
        #expect(error.column == 17)
        #expect(QueryTest.queryError("Person SORT(a) SORT(b)")?.kind == .unexpectedToken)
        #expect(QueryTest.queryError("Person DISTINCT(a) SORT(b)")?.kind == .unexpectedToken)
    }

    @Test func limitTakesANonNegativeInteger() throws {
        #expect(QueryTest.queryError("Person LIMIT(-1)")?.kind == .invalidLimit)
        #expect(QueryTest.queryError("Person LIMIT(1.5)")?.kind == .invalidLimit)
        #expect(QueryTest.queryError("Person LIMIT($0)")?.kind == .invalidLimit)
        #expect(QueryTest.queryError("Person LIMIT(x)")?.column == 14)
    }

    @Test func offsetTakesANonNegativeIntegerAfterDistinctAndBeforeLimit() throws {
        let negative = try #require(QueryTest.queryError("Person SORT(age) OFFSET(-5) LIMIT(2)"))
        #expect(negative.kind == .invalidOffset)
        #expect(negative.message == "OFFSET takes an integer from 0 to 9223372036854775807")
        #expect(QueryTest.queryError("Person LIMIT(9223372036854775808)")?.message == "LIMIT takes an integer from 0 to 9223372036854775807")
        let parameter = try #require(QueryTest.queryError("Person OFFSET($0)"))
        #expect(parameter.message == "OFFSET takes an integer written in the statement, not a parameter")
        #expect(parameter.column == 15)
        #expect(negative.column == 25)
        #expect(QueryTest.queryError("Person OFFSET(1.5)")?.kind == .invalidOffset)
        #expect(QueryTest.queryError("Person OFFSET($0)")?.kind == .invalidOffset)
        #expect(QueryTest.queryError("Person OFFSET()")?.column == 15)
        let late = try #require(QueryTest.queryError("Person LIMIT(1) OFFSET(2)"))
        #expect(late.kind == .unexpectedToken)
        #expect(late.column == 17)
        #expect(QueryTest.queryError("Person OFFSET(1) DISTINCT(a)")?.kind == .unexpectedToken)
    }

    @Test func lexicalErrorsSurfaceThroughTheParser() throws {
        let error = try #require(QueryTest.queryError("Person where name == 'abc"))
        #expect(error.kind == .unterminatedString)
        #expect(error.column == 22)
        #expect(error.description.hasSuffix("\n  Person where name == 'abc\n                       ^"))
    }

    @Test func nestingBeyondTheLimitThrows() throws {
        let depth = QueryParser.maximumDepth
        let fine = String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth)
        #expect(QueryTest.predicateError(fine) == nil)
        let deep = String(repeating: "(", count: depth + 1) + "a == 1" + String(repeating: ")", count: depth + 1)
        let error = try #require(QueryTest.predicateError(deep))
        #expect(error.kind == .nestingTooDeep)
        #expect(error.column == depth + 1)
        #expect(QueryTest.predicateError(String(repeating: "NOT ", count: depth + 1) + "a == 1")?.kind == .nestingTooDeep)
        #expect(QueryTest.predicateError(String(repeating: "!", count: 100_000) + "a == 1")?.kind == .nestingTooDeep)
        #expect(QueryTest.predicateError(String(repeating: "(", count: 100_000))?.kind == .nestingTooDeep)
    }

    @Test func nestedSubqueriesCountTowardTheLimit() throws {
        var text = "$v0 > 1"
        for level in 1...(QueryParser.maximumDepth + 1) {
            let outer = level == QueryParser.maximumDepth + 1 ? "list" : "$v\(level).list"
            text = "SUBQUERY(\(outer), $v\(level - 1), \(text)).@count > 0"
        }
        #expect(QueryTest.predicateError(text)?.kind == .nestingTooDeep)
    }

    @Test func longFlatChainsAreFine() throws {
        let text = (0..<20_000).map { "a == \($0)" }.joined(separator: " AND ")
        let predicate = try QueryParser.parsePredicate(text)
        #expect(predicate.conjuncts.count == 20_000)
        #expect(try QueryParser.parsePredicate(predicate.description) == predicate)
    }

    @Test func statementsBeyondTheLengthLimitThrow() throws {
        let text = "a IN {" + String(repeating: "1,", count: QueryParser.maximumLength / 2) + "1}"
        let error = try #require(QueryTest.predicateError(text))
        #expect(error.kind == .statementTooLong)
    }

    /// SQL written out of habit is said as what does that here (`SQLHabit`), at the place
    /// it goes wrong.
    @Test func sqlHabitsSayWhatDoesThatHere() throws {
        func statementError(_ text: String) -> QueryError? {
            do { _ = try QueryParser.parseStatement(text); return nil } catch { return error }
        }
        let cases: [(String, Int, String)] = [
            ("avg(Person.age)", 4, "expected MODEL.KEYPATH after 'avg', found '(': an aggregate statement takes no brackets: avg MODEL.KEYPATH"),
            ("Person GROUP(age) SELECT(count(*))", 31,
             "expected ',' or ')' after 'count', found '(': SQL's count(*) is @count here, in a grouped SELECT (Person GROUP(...) SELECT(@count)); over all objects it is the statement count Person"),
            ("Person SELECT(avg(age))", 18,
             "expected ',' or ')' after 'avg', found '(': SQL's avg(age) is @avg.age here, in a grouped SELECT (Person GROUP(...) SELECT(@avg.age)); over all objects it is the statement avg Person.age"),
            ("Person SELECT(*)", 15, "SELECT has no '*': leave SELECT out to get whole objects"),
            ("Person GROUP BY age", 14, "expected '(' after 'GROUP', found 'BY': SQL's GROUP BY age is GROUP(age) here"),
            ("Person SORT BY age", 13, "expected '(' after 'SORT', found 'BY': SQL's ORDER BY age is SORT(age) here (SORT(age DESC) descending)"),
            ("Person ORDER BY age", 8,
             "expected 'where', GROUP, SORT, DISTINCT, OFFSET, LIMIT, SELECT or the end of the statement after 'Person', found 'ORDER': SQL's ORDER BY age is SORT(age) here (SORT(age DESC) descending)"),
            ("Person where age > 3 ORDER BY age", 22,
             "expected AND, OR, GROUP, SORT, DISTINCT, OFFSET, LIMIT, SELECT or the end of the statement after '3', found 'ORDER': SQL's ORDER BY age is SORT(age) here (SORT(age DESC) descending)"),
            ("Person SORT(age) LIMIT 3", 24, "expected '(' after 'LIMIT', found '3': LIMIT takes its argument in brackets: LIMIT(3)"),
            ("Person SORT age", 13, "expected '(' after 'SORT', found 'age': SORT takes its argument in brackets: SORT(age)"),
            ("Person DISTINCT(dogs.@count)", 22, "DISTINCT takes key paths of 'Person', not aggregates nor SELECT items' names: its objects are told apart by their own values"),
            // DISTINCT's habits get DISTINCT's hint, never ORDER BY's.
            ("Person DISTINCT BY age", 17, "expected '(' after 'DISTINCT', found 'BY': DISTINCT takes its key paths in brackets: DISTINCT(age), or DISTINCT(k, ...) for several"),
            ("Person DISTINCT ON (age, name)", 17,
             "expected '(' after 'DISTINCT', found 'ON': SQL's DISTINCT ON (age, name) is DISTINCT(age, name) here: DISTINCT(k, ...) keeps the first object of each combination of the key paths' values"),
            ("Person LIMIT BY age", 14, "expected '(' after 'LIMIT', found 'BY'"),
            // count(PATH) counts non-null values, which @count does not.
            ("Person GROUP(age) SELECT(count(name))", 31,
             "expected ',' or ')' after 'count', found '(': SQL's count(name) counts the objects whose name is not null: here that is the statement count Person where name != nil, or per group Person where name != nil GROUP(...) SELECT(@count)"),
            ("Person SELECT(count( * ))", 20,
             "expected ',' or ')' after 'count', found '(': SQL's count(*) is @count here, in a grouped SELECT (Person GROUP(...) SELECT(@count)); over all objects it is the statement count Person"),
            // count(DISTINCT x) counts distinct values: the count of GROUP(x)'s results, never @count.
            ("Person GROUP(age) SELECT(count(DISTINCT name))", 31,
             "expected ',' or ')' after 'count', found '(': SQL's count(DISTINCT name) counts name's distinct values other than null: here Person where name != nil GROUP(name) gives one result per such value, and the number of its results is that count"),
            // The extremes of the distinct values are those of all of them; a distinct sum has no form here.
            ("Person SELECT(max(distinct age))", 18,
             "expected ',' or ')' after 'max', found '(': SQL's max(age) is @max.age here, in a grouped SELECT (Person GROUP(...) SELECT(@max.age)); over all objects it is the statement max Person.age"),
            ("Person SELECT(sum(DISTINCT age))", 18, "expected ',' or ')' after 'sum', found '('"),
            // count(1) is SQL's other spelling of count(*).
            ("Person GROUP(age) SELECT(count(1))", 31,
             "expected ',' or ')' after 'count', found '(': SQL's count(*) is @count here, in a grouped SELECT (Person GROUP(...) SELECT(@count)); over all objects it is the statement count Person"),
            // The caret stands under the '*', past the blanks.
            ("Person SELECT(  *)", 17, "SELECT has no '*': leave SELECT out to get whole objects"),
            ("Person SELECT(\t*)", 16, "SELECT has no '*': leave SELECT out to get whole objects"),
        ]
        for (text, column, message) in cases {
            let error = try #require(statementError(text), "\(text)")
            #expect(error.message == message, "\(text)")
            #expect(error.column == column, "\(text)")
        }
        // A model may still be named like an aggregate or a clause word.
        #expect(statementError("avg where x > 1") == nil)
        #expect(statementError("Person SELECT(count)") == nil)
    }

    /// The man page glosses SQL's count(DISTINCT x) with the query its hint gives, which leaves
    /// null out as count(DISTINCT x) does.
    @Test func theManPageGlossesCountDistinctWithTheHintsQuery() throws {
        let hint = SQLHabit.countDistinct.hint([.path: "x"])
        let query = try #require(hint.firstRange(of: "here ").map { hint[$0.upperBound...] }?.components(separatedBy: " gives").first)
        #expect(query == "MODEL where x != nil GROUP(x)")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let man = try String(contentsOf: root.appendingPathComponent("man/trove.1"), encoding: .utf8)
        #expect(man.contains(".Ql count(DISTINCT x)\n(the number of results of\n.Ql \(query) )\n"))
    }
}
