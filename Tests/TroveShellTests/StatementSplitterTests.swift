import Testing
@testable import TroveShell

@Suite struct StatementSplitterTests {
    /// Splits a whole text; returns statement texts and dot-commands (prefixed `dot:`).
    func split(_ text: String) -> [String] {
        var splitter = StatementSplitter()
        var out: [String] = []
        for (i, line) in text.lines.enumerated() {
            for item in splitter.feed(line: line, number: i + 1) {
                switch item {
                case .statement(let s): out.append(s.text.trimmingSpaces)
                case .dotCommand(let command): out.append("dot:" + command.text)
                }
            }
        }
        if let rest = splitter.finish() { out.append("unfinished:" + rest.text) }
        return out
    }

    @Test func eachLineIsAStatement() {
        #expect(split("count A\nget A 1") == ["count A", "get A 1"])
    }

    @Test func semicolonsSeparateStatementsOnALine() {
        #expect(split("count A; count B ;count C;") == ["count A", "count B", "count C"])
    }

    @Test func windowsLineEndingsSplitLikeUnixOnes() {
        #expect(split("count A\r\ninsert A {\r\n}\r\n") == ["count A", "insert A {\n}"])
    }

    /// A statement starts at its first word, so that its place is the word's.
    @Test func aStatementStartsAtItsFirstWord() {
        var splitter = StatementSplitter()
        #expect(splitter.feed(line: "count A;\t count B", number: 1) == [.statement(SplitStatement(text: "count A", line: 1, column: 1)),
                                                                         .statement(SplitStatement(text: "count B", line: 1, column: 11))])
        #expect(splitter.feed(line: "  get A 1", number: 2) == [.statement(SplitStatement(text: "get A 1", line: 2, column: 3))])
        _ = splitter.feed(line: "  A where (a", number: 3)
        #expect(splitter.unclosed?.offset == 8)
        #expect(splitter.finish() == SplitStatement(text: "A where (a\n", line: 3, column: 3))
    }

    @Test func blankLinesAndEmptyStatementsAreSkipped() {
        #expect(split("\n  \n;;\ncount A\n") == ["count A"])
    }

    @Test func openBracketContinuesOnTheNextLine() {
        #expect(split("insert A {\"x\":\n 1}\ncount A") == ["insert A {\"x\":\n 1}", "count A"])
        #expect(split("A where (x > 1\n AND y < 2)") == ["A where (x > 1\n AND y < 2)"])
        #expect(split("A where x IN {1,\n2}") == ["A where x IN {1,\n2}"])
        #expect(split("insert A [\n{\"a\": 1},\n{\"a\": 2}\n]") == ["insert A [\n{\"a\": 1},\n{\"a\": 2}\n]"])
    }

    @Test func openQuoteContinuesOnTheNextLine() {
        #expect(split("A where name == 'two\nlines'") == ["A where name == 'two\nlines'"])
    }

    @Test func semicolonInsideQuotesOrBracketsDoesNotSplit() {
        #expect(split("A where a == 'x;y'; count A") == ["A where a == 'x;y'", "count A"])
        #expect(split("insert A {\"a\": \"1;2\"}") == ["insert A {\"a\": \"1;2\"}"])
        #expect(split("A where a IN {1;2}") == ["A where a IN {1;2}"])
    }

    @Test func escapedQuoteDoesNotCloseTheString() {
        #expect(split(#"A where a == 'it\'s'; count A"#) == [#"A where a == 'it\'s'"#, "count A"])
        #expect(split(#"A where a == "x\\"; count A"#) == [#"A where a == "x\\""#, "count A"])
    }

    @Test func otherQuoteInsideAStringIsText() {
        #expect(split(#"A where a == "it's"; count A"#) == [#"A where a == "it's""#, "count A"])
    }

    @Test func doubleDashStartsACommentOutsideQuotes() {
        #expect(split("count A -- how many\n-- a whole comment line\nget A 1") == ["count A", "get A 1"])
        #expect(split("A where a == '--not a comment'") == ["A where a == '--not a comment'"])
        #expect(split("insert A {\"a\": 1, -- first\n\"b\": 2}") == ["insert A {\"a\": 1, \n\"b\": 2}"])
    }

    @Test func dotCommandsAreRecognizedAtLineStart() {
        #expect(split(".mode csv\n  .help\ncount A") == ["dot:.mode csv", "dot:.help", "count A"])
    }

    @Test func dotCommandLineIsNotSplitAtSemicolons() {
        #expect(split(".print a; b") == ["dot:.print a; b"])
    }

    @Test func dotInsideAnUnfinishedStatementIsText() {
        #expect(split("A where (a >\n.5)") == ["A where (a >\n.5)"])
    }

    @Test func shebangLineIsIgnored() {
        #expect(split("#!/usr/bin/env trove -f\ncount A") == ["count A"])
    }

    @Test func unfinishedStatementIsReportedAtTheEnd() {
        var splitter = StatementSplitter()
        _ = splitter.feed(line: "count A", number: 1)
        #expect(!splitter.isIncomplete)
        _ = splitter.feed(line: "A where (a > 1", number: 2)
        #expect(splitter.isIncomplete)
        #expect(splitter.unclosed?.what == "'('" && splitter.unclosed?.offset == 8)
        let rest = splitter.finish()
        #expect(rest?.text == "A where (a > 1\n")
        #expect(rest?.line == 2)
        #expect(!splitter.isIncomplete)
    }

    @Test func unclosedStringIsReported() {
        var splitter = StatementSplitter()
        _ = splitter.feed(line: "A where a == 'x", number: 3)
        #expect(splitter.unclosed?.what == "the string" && splitter.unclosed?.offset == 13)
    }

    @Test func resetDropsTheUnfinishedStatement() {
        var splitter = StatementSplitter()
        _ = splitter.feed(line: "insert A {", number: 1)
        splitter.reset()
        #expect(!splitter.isIncomplete)
        #expect(splitter.feed(line: "count A", number: 2) == [.statement(SplitStatement(text: "count A", line: 2, column: 1))])
    }

    @Test func statementsKnowWhereTheyStart() {
        var splitter = StatementSplitter()
        let items = splitter.feed(line: "count A;  get A 1", number: 4)
        #expect(items == [.statement(SplitStatement(text: "count A", line: 4, column: 1)),
                          .statement(SplitStatement(text: "get A 1", line: 4, column: 11))])
    }

    @Test func offsetsMapToLineAndColumn() {
        let s = SplitStatement(text: "  get A\n  (x, é)", line: 3, column: 9)
        #expect(s.position(ofOffset: 2) == (3, 11))
        #expect(s.position(ofOffset: 8) == (4, 1))
        // Columns count characters, not UTF-8 bytes.
        #expect(s.position(ofOffset: Array("  get A\n  (x, é".utf8).count) == (4, 8))
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
