import Testing
@testable import TroveShell

@Suite struct InteractiveSettingsTests {
    @Test func historyFileComesFromTroveHistoryThenHome() {
        #expect(InteractiveShell.historyPath(["TROVE_HISTORY": "/tmp/h", "HOME": "/home/a"]) == "/tmp/h")
        #expect(InteractiveShell.historyPath(["HOME": "/home/a"]) == "/home/a/.trove_history")
        #expect(InteractiveShell.historyPath([:]) == nil)
    }

    @Test func emptyTroveHistoryKeepsNoFile() {
        #expect(InteractiveShell.historyPath(["TROVE_HISTORY": "", "HOME": "/home/a"]) == nil)
    }

    @Test func positionsAreNamedAsTheSourceSuggests() {
        #expect(InputOrigin.command.describe(line: 1, column: 4) == "column 4: ")
        #expect(InputOrigin.command.describe(line: 2, column: 4) == "line 2, column 4: ")
        #expect(InputOrigin.file("a.trove").describe(line: 3, column: 7) == "a.trove:3:7: ")
        #expect(InputOrigin.file("a.trove").describe(line: 3, column: nil) == "a.trove:3: ")
        #expect(InputOrigin.standardInput.describe(line: 1, column: 2) == "line 1, column 2: ")
        #expect(InputOrigin.interactive.describe(line: 1, column: nil) == "")
    }

    @Test func textLinesDropLineEndings() {
        let lines = TextLines("a\r\nb\n\nc")
        #expect(lines.readLine() == "a")
        #expect(lines.readLine() == "b")
        #expect(lines.readLine() == "")
        #expect(lines.readLine() == "c")
        #expect(lines.readLine() == nil)
    }

    @Test func linesSplitAtNewlinesAndKeepEverythingElseWhole() {
        #expect("é\r\n日本\n\r\n👍🏽\r".lines == ["é", "日本", "", "👍🏽"])
        #expect("a\rb\n".lines == ["a\rb", ""])
        #expect("\r\r\n".lines == ["\r", ""])
        #expect("".lines == [""])
    }

    @Test func completionListsFillTheWidthInColumns() {
        #expect(Completion.columns(["a", "bb", "ccc"], width: 10) == "a    bb\nccc\n")
    }
}
