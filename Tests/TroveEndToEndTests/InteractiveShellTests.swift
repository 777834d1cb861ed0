import Foundation
import Testing

/// The REPL on a real pseudo-terminal: prompts, continuation, history, completion, Ctrl-C
/// and Ctrl-D, checked on what the terminal shows.
@Suite struct InteractiveShellTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("trove-repl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var historyFile: String { directory.appendingPathComponent("history").path }

    func start() throws -> PseudoTerminal {
        try PseudoTerminal(arguments: [], environment: [
            "TERM": "xterm", "HOME": directory.path, "TROVE_HISTORY": historyFile, "LANG": "C.UTF-8",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ])
    }

    @Test func showsThePromptAndRunsDotCommands() throws {
        let t = try start()
        try t.expectPrompt()
        t.send(".print hello there\r")
        try t.expect("\nhello there\r\n")
        try t.expectPrompt()
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    @Test func unfinishedStatementGetsTheContinuationPrompt() throws {
        let t = try start()
        try t.expectPrompt()
        t.send("get Person (\r")
        try t.expectPrompt("  ...> ")
        t.send("1)\r")
        try t.expect("error: ")
        try t.expectPrompt()
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    @Test func controlCCancelsTheStatementAndKeepsTheShell() throws {
        let t = try start()
        try t.expectPrompt()
        t.send("insert Person {\"id\":\r")
        try t.expectPrompt("  ...> ")
        t.send("\u{03}")
        try t.expect("^C")
        // Back at the main prompt: the unfinished insert was dropped.
        try t.expectPrompt()
        t.send(".print alive\r")
        try t.expect("\nalive\r\n")
        try t.expectPrompt()
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    @Test func controlDOnAnEmptyLineLeavesWithStatusZero() throws {
        let t = try start()
        try t.expectPrompt()
        t.send("count Person\r")  // fails: errors at the prompt do not change the status
        try t.expect("error: ")
        try t.expectPrompt()
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    @Test func tabCompletesADotCommand() throws {
        let t = try start()
        try t.expectPrompt()
        // libedit redraws the completed word with cursor motions, so the proof is the
        // command it ran: `.pri` only completes to `.print`.
        t.send(".pri\t")
        t.send("completed\r")
        try t.expect("\ncompleted\r\n")
        try t.expectPrompt()
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    @Test func historyIsSavedAfterEachStatementAndReloaded() throws {
        let first = try start()
        try first.expectPrompt()
        first.send("count Person where (age >\r")
        try first.expectPrompt("  ...> ")
        first.send("1)\r")
        try first.expectPrompt()
        first.send(".print from-history\r")
        try first.expect("\nfrom-history\r\n")
        try first.expectPrompt()
        // Saved already, before the shell exits.
        let saved = try String(contentsOfFile: historyFile, encoding: .utf8)
        #expect(saved.contains("from-history"))
        first.send("\u{04}")
        #expect(try first.waitForExit() == 0)

        // libedit's file format escapes blanks and newlines; the multi-line statement is one entry.
        let lines = try String(contentsOfFile: historyFile, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[1].contains("1)") && lines[1].contains("(age"))

        let second = try start()
        try second.expectPrompt()
        second.send("\u{10}\r")  // Ctrl-P: the previous entry
        try second.expect("\nfrom-history\r\n")
        try second.expectPrompt()
        second.send("\u{04}")
        #expect(try second.waitForExit() == 0)
    }

    @Test func quitLeavesWithStatusZeroAndExitWithItsCode() throws {
        let t = try start()
        try t.expectPrompt()
        t.send(".exit 3\r")
        #expect(try t.waitForExit() == 3)
    }
}
