import Testing
@testable import Trove

@Suite("Query lexer")
struct QueryLexerTests {
    @Test func keywordsAreCaseInsensitive() throws {
        #expect(try QueryTest.tokens("AND and AnD or NOT between In beginswith ENDSWITH Contains like MATCHES") == [
            .keyword(.and), .keyword(.and), .keyword(.and), .keyword(.or), .keyword(.not), .keyword(.between),
            .keyword(.in), .keyword(.beginsWith), .keyword(.endsWith), .keyword(.contains), .keyword(.like),
            .keyword(.matches),
        ])
        #expect(try QueryTest.tokens("any SOME All none subquery TRUEPREDICATE falsepredicate") == [
            .keyword(.any), .keyword(.some), .keyword(.all), .keyword(.noneOf), .keyword(.subquery),
            .keyword(.truePredicate), .keyword(.falsePredicate),
        ])
        #expect(try QueryTest.tokens("true FALSE YES no nil NULL where SORT distinct Limit asc DESC ascending DESCENDING") == [
            .keyword(.true), .keyword(.false), .keyword(.yes), .keyword(.no), .keyword(.nil), .keyword(.null),
            .keyword(.where), .keyword(.sort), .keyword(.distinct), .keyword(.limit), .keyword(.asc), .keyword(.desc),
            .keyword(.ascending), .keyword(.descending),
        ])
    }

    @Test func wordsThatOnlyStartLikeKeywordsAreIdentifiers() throws {
        #expect(try QueryTest.tokens("android order nothing truepredicates _in") == Array(repeating: .identifier, count: 5))
    }

    @Test func operatorsIncludeEverySynonym() throws {
        #expect(try QueryTest.tokens("== = != <> < <= =< > >= => && || !") == [
            .equal, .equal, .notEqual, .notEqual, .less, .lessOrEqual, .lessOrEqual, .greater, .greaterOrEqual,
            .greaterOrEqual, .ampersands, .bars, .bang,
        ])
        #expect(try QueryTest.tokens("a!=b") == [.identifier, .notEqual, .identifier])
        #expect(try QueryTest.tokens("!(a)") == [.bang, .leftParen, .identifier, .rightParen])
    }

    @Test func punctuation() throws {
        #expect(try QueryTest.tokens("( ) { } , .") == [.leftParen, .rightParen, .leftBrace, .rightBrace, .comma, .dot])
    }

    @Test func modifiersInAnyCaseAndOrder() throws {
        #expect(try QueryTest.tokens("[c] [d] [cd] [dc] [CD]") == [
            .modifier(.caseInsensitive), .modifier(.diacriticInsensitive),
            .modifier([.caseInsensitive, .diacriticInsensitive]), .modifier([.caseInsensitive, .diacriticInsensitive]),
            .modifier([.caseInsensitive, .diacriticInsensitive]),
        ])
        #expect(try QueryTest.tokens("==[c]") == [.equal, .modifier(.caseInsensitive)])
    }

    @Test func aggregates() throws {
        #expect(try QueryTest.tokens("@count @sum @avg @min @max @size @COUNT") == [
            .aggregate(.count), .aggregate(.sum), .aggregate(.avg), .aggregate(.min), .aggregate(.max),
            .aggregate(.size), .aggregate(.count),
        ])
        #expect(try QueryTest.tokens("items.@sum.price") == [.identifier, .dot, .aggregate(.sum), .dot, .identifier])
    }

    @Test func parametersAndVariables() throws {
        #expect(try QueryTest.tokens("$0 $1 $42 $x $dog") == [.parameter(0), .parameter(1), .parameter(42), .variable, .variable])
        var lexer = QueryLexer("$dog.name")
        let variable = try lexer.next()
        #expect(lexer.name(of: variable) == "dog")
    }

    @Test func integers() throws {
        #expect(try QueryTest.tokens("0 42 -7 9223372036854775807 -9223372036854775808") == [
            .integer(0), .integer(42), .integer(-7), .integer(Int64.max), .integer(Int64.min),
        ])
    }

    @Test func hexadecimalIntegers() throws {
        #expect(try QueryTest.tokens("0x1F 0XfF -0x10 0x7fffffffffffffff") == [
            .integer(31), .integer(255), .integer(-16), .integer(Int64.max),
        ])
    }

    @Test func decimalsAndExponents() throws {
        #expect(try QueryTest.tokens("1.5 -0.25 1e3 1E-3 2.5e+2 -1e2") == [
            .double(1.5), .double(-0.25), .double(1000), .double(0.001), .double(250), .double(-100),
        ])
    }

    @Test func aDotWithoutDigitsIsNotPartOfANumber() throws {
        #expect(try QueryTest.tokens("1.a") == [.integer(1), .dot, .identifier])
    }

    @Test func stringsInEitherQuote() throws {
        #expect(try QueryTest.tokens(#"'single' "double" '' "it's" 'say "hi"'"#) == [
            .string("single"), .string("double"), .string(""), .string("it's"), .string(#"say "hi""#),
        ])
    }

    @Test func stringEscapes() throws {
        #expect(try QueryTest.tokens(#"'a\'b' "a\"b" 'back\\slash' 'line\nbreak' 'tab\there'"#) == [
            .string("a'b"), .string("a\"b"), .string("back\\slash"), .string("line\nbreak"), .string("tab\there"),
        ])
    }

    @Test func unicodeEscapesIncludingSurrogatePairs() throws {
        #expect(try QueryTest.tokens(#"'\u00e9' '\u00C9t\u00E9' '\uD83D\uDE00' 'x\u0041y'"#) == [
            .string("é"), .string("Été"), .string("😀"), .string("xAy"),
        ])
    }

    @Test func nonASCIIStringsAndNames() throws {
        #expect(try QueryTest.tokens("größe == 'Ärger 😀'") == [.identifier, .equal, .string("Ärger 😀")])
    }

    @Test func escapedReservedWordsAreIdentifiers() throws {
        var lexer = QueryLexer("#in")
        let token = try lexer.next()
        #expect(token.kind == .identifier)
        #expect(lexer.name(of: token) == "in")
    }

    @Test func keyPaths() throws {
        #expect(try QueryTest.tokens("a.b.c") == [.identifier, .dot, .identifier, .dot, .identifier])
    }

    @Test func tokensCarryUTF8OffsetsAndColumns() throws {
        let tokens = try QueryLexer.tokenize("é == 'ü' AND x")
        #expect(tokens.map(\.range.start.offset) == [0, 3, 6, 11, 15, 16])
        #expect(tokens.map(\.range.start.column) == [1, 3, 6, 10, 14, 15])
        #expect(tokens[2].range.end.offset == 10)
        #expect(tokens[2].range.end.column == 9)
    }

    @Test func linesAdvanceInsideMultilineStatements() throws {
        let tokens = try QueryLexer.tokenize("a == 'x\ny' AND\n  b")
        let b = tokens[4]
        #expect(b.range.start.line == 3)
        #expect(b.range.start.column == 3)
    }

    @Test func whitespaceIncludesUnicodeSpaces() throws {
        #expect(try QueryTest.tokens("a\u{00A0}==\u{2003}1") == [.identifier, .equal, .integer(1)])
    }

    @Test func endRepeatsAtTheEnd() throws {
        var lexer = QueryLexer("")
        #expect(try lexer.next().kind == .end)
        #expect(try lexer.next().kind == .end)
    }

    // MARK: Errors

    private func lexError(_ text: String) -> QueryError? {
        do {
            _ = try QueryLexer.tokenize(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func unterminatedStringPointsAtItsQuote() {
        let error = lexError("name == 'abc")
        #expect(error?.kind == .unterminatedString)
        #expect(error?.column == 9)
        #expect(lexError(#"name == "abc\""#)?.kind == .unterminatedString)
    }

    @Test func unknownEscapesAreErrors() {
        let error = lexError(#"name MATCHES '\d+'"#)
        #expect(error?.kind == .invalidEscape)
        #expect(error?.column == 15)
    }

    @Test func malformedUnicodeEscapes() {
        #expect(lexError(#"'\u12'"#)?.kind == .invalidEscape)
        #expect(lexError(#"'\uDE00'"#)?.kind == .invalidEscape)
        #expect(lexError(#"'\uD83D'"#)?.kind == .invalidEscape)
        #expect(lexError(#"'\uD83D\u0041'"#)?.kind == .invalidEscape)
    }

    @Test func malformedNumbers() {
        #expect(lexError("12abc")?.kind == .invalidNumber)
        #expect(lexError("1e")?.kind == .invalidNumber)
        #expect(lexError("0x")?.kind == .invalidNumber)
        #expect(lexError("0x1G")?.kind == .invalidNumber)
        // Beyond 64 bits an integer is still a number, for a decimal to read in full.
        #expect((try? QueryLexer.tokenize("9223372036854775808"))?.first?.kind == .double(9.223372036854775808e18))
        #expect((try? QueryLexer.tokenize("-9223372036854775809"))?.first?.kind == .double(-9.223372036854775808e18))
        #expect(lexError("0x10000000000000000")?.kind == .invalidNumber)
        #expect(lexError("1e999")?.kind == .invalidNumber)
        #expect(lexError("age > 12abc")?.column == 7)
    }

    @Test func strayCharacters() {
        #expect(lexError("a ~ b")?.kind == .unexpectedCharacter)
        #expect(lexError("a ~ b")?.column == 3)
        #expect(lexError("a & b")?.kind == .unexpectedCharacter)
        #expect(lexError("a | b")?.kind == .unexpectedCharacter)
        #expect(lexError("a - b")?.kind == .unexpectedCharacter)
        #expect(lexError("#")?.kind == .unexpectedCharacter)
        #expect(lexError("a == \u{1}")?.message == "unexpected character '\\u0001'")
    }

    @Test func badModifiers() {
        #expect(lexError("a ==[x] 'b'")?.kind == .invalidModifier)
        #expect(lexError("a ==[] 'b'")?.kind == .invalidModifier)
        #expect(lexError("a ==[cc] 'b'")?.kind == .invalidModifier)
        #expect(lexError("a ==[c")?.kind == .invalidModifier)
        #expect(lexError("a ==[x] 'b'")?.column == 5)
    }

    @Test func badAggregatesAndParameters() {
        #expect(lexError("a.@foo")?.kind == .invalidAggregate)
        #expect(lexError("a.@")?.kind == .invalidAggregate)
        #expect(lexError("a == $")?.kind == .invalidParameter)
        #expect(lexError("a == $1x")?.kind == .invalidParameter)
        #expect(lexError("a == $99999999999")?.kind == .invalidParameter)
    }
}
