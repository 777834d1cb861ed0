import Testing
@testable import Trove

@Suite("LIKE and MATCHES")
struct LikeAndMatchesTests {
    @Test(arguments: [
        ("abc", "abc", true), ("abc", "ab", false), ("abc", "abcd", false), ("", "", true), ("a", "", false),
        ("", "*", true), ("abc", "*", true), ("abc", "a*", true), ("abc", "*c", true), ("abc", "*b*", true),
        ("abc", "*d*", false), ("abc", "a?c", true), ("abc", "a?", false), ("abc", "???", true), ("ab", "???", false),
        ("abc", "a**c", true), ("abc", "*a*b*c*", true), ("aXbXc", "a*b*c", true), ("abcb", "a*b", true),
        ("ab", "a*b*", true), ("aab", "a*ab", true), ("ab", "a*ab", false), ("mississippi", "m*iss*ppi", true),
        ("mississippi", "m*iss*iss*iss*", false), ("a*c", "a*c", true), ("a?c", "a\\?c", false),
    ])
    func wildcards(string: String, pattern: String, expected: Bool) {
        #expect(StringComparison.like(string, pattern) == expected)
    }

    @Test func caseAndDiacriticModifiers() {
        #expect(StringComparison.like("Hello", "h*O", options: .caseInsensitive))
        #expect(!StringComparison.like("Hello", "h*O"))
        #expect(StringComparison.like("Ärger", "a?ger", options: [.caseInsensitive, .diacriticInsensitive]))
        #expect(!StringComparison.like("Ärger", "a?ger", options: .caseInsensitive))
        // Folded first: under [c], ß is "ss", so LIKE without wildcards agrees with ==[c].
        #expect(StringComparison.like("straße", "STRASSE", options: .caseInsensitive))
        #expect(StringComparison.like("straße", "stra??e", options: .caseInsensitive))
    }

    @Test func questionMarkMatchesOneCharacter() {
        #expect(StringComparison.like("é", "?"))
        #expect(StringComparison.like("e\u{301}", "?"))
        #expect(StringComparison.like("👨‍👩‍👧", "?"))
        #expect(StringComparison.like("x😀y", "x?y"))
        #expect(!StringComparison.like("x😀😀y", "x?y"))
        #expect(StringComparison.like("日本語", "*本*"))
        #expect(StringComparison.like("a\r\n", "a?"))
        #expect(StringComparison.like("a\r\nb", "a*b"))
        #expect(!StringComparison.like("a\r\n", "a\r?"))
    }

    @Test func compiledPatternsAreReusable() {
        let pattern = LikePattern("*@*.com", options: .caseInsensitive)
        #expect(pattern.matches("Ann@Example.COM"))
        #expect(!pattern.matches("ann@example.org"))
        #expect(pattern.matches("é@é.com"))
    }

    @Test func pathologicalPatternsRunInLinearTime() {
        // A backtracking matcher takes exponential time here; this one makes one pass per segment.
        let long = String(repeating: "a", count: 200_000)
        #expect(!StringComparison.like(long, "*a*a*a*a*a*a*a*a*a*a*b"))
        #expect(StringComparison.like(long + "b", "*a*a*a*a*a*a*a*a*a*a*b"))
        #expect(!StringComparison.like(long, "*a?a?a?a?a?a?a?b*"))
        let nonASCII = String(repeating: "é", count: 50_000)
        #expect(!StringComparison.like(nonASCII, "*é*é*é*é*é*é*x"))
    }

    // MARK: MATCHES

    @Test func matchesNeedsTheWholeString() throws {
        let digits = try RegularExpressionPattern("\\d+")
        #expect(digits.matches("12345"))
        #expect(!digits.matches("123a"))
        #expect(!digits.matches("a123"))
        #expect(!digits.matches("123\n"))
        let alternation = try RegularExpressionPattern("a|ab")
        #expect(alternation.matches("ab"))
        #expect(alternation.matches("a"))
    }

    @Test func aLongSubjectAndShortOnesAfterItMatch() throws {
        let pattern = try RegularExpressionPattern("(ab)+c?")
        let long = String(repeating: "ab", count: 50_000)
        #expect(pattern.matches(long))
        #expect(!pattern.matches(long + "x"))
        #expect(pattern.matches("abc"))
        #expect(!pattern.matches("abcab"))
    }

    @Test func matchesModifiers() throws {
        #expect(try RegularExpressionPattern("h.*o", options: .caseInsensitive).matches("HELLO"))
        #expect(try !RegularExpressionPattern("h.*o").matches("HELLO"))
        #expect(try RegularExpressionPattern("cafe", options: .diacriticInsensitive).matches("café"))
        #expect(try RegularExpressionPattern("caf[e]", options: [.caseInsensitive, .diacriticInsensitive]).matches("CAFÉ"))
        #expect(try RegularExpressionPattern("\\w+ \\p{L}+").matches("naïve 日本"))
        #expect(try RegularExpressionPattern("..").matches("😀é"))
        #if canImport(_FoundationICU)
        // A comment runs to the end of the pattern: nothing is appended after it (the
        // NSRegularExpression fallback elsewhere appends `)\z`).
        #expect(try RegularExpressionPattern("(?x) a b # a comment").matches("ab"))
        #endif
        #expect(try RegularExpressionPattern("(?<!x)b", options: .caseInsensitive).matches("B"))
    }

    @Test func invalidRegularExpressionsAreQueryErrorsAtThePattern() throws {
        let statement = "Person where name MATCHES 'a(b'"
        let query = try QueryParser.parseQuery(statement)
        guard case .comparison(let comparison)? = query.predicate?.kind, case .string(let pattern)? = comparison.right.literal else {
            Issue.record("unexpected shape")
            return
        }
        do {
            _ = try RegularExpressionPattern(pattern, at: comparison.right.range.start, in: statement)
            Issue.record("no error")
        } catch {
            #expect(error.kind == .invalidRegularExpression)
            #expect(error.column == 27)
            #expect(error.description == """
                invalid regular expression 'a(b' at column 27
                  Person where name MATCHES 'a(b'
                                            ^
                """)
        }
        // Wrapping must not make a broken pattern valid.
        #expect(throws: QueryError.self) { try RegularExpressionPattern("a)|(b") }
        #expect(throws: QueryError.self) { try RegularExpressionPattern("abc\\") }
    }

    @Test func cacheCompilesEachPatternOnce() throws {
        let cache = RegularExpressionCache()
        let first = try cache.pattern("[a-z]+", options: .caseInsensitive)
        _ = try cache.pattern("[a-z]+", options: .caseInsensitive)
        _ = try cache.pattern("[a-z]+")
        #expect(cache.count == 2)
        #expect(first.matches("ABC"))
        #expect(throws: QueryError.self) { try cache.pattern("(") }
        #expect(cache.count == 2)
    }
}
