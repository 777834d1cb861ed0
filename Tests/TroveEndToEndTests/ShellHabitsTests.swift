import Foundation
import Testing

/// The daily habits against the built binary: the init file at a terminal, and the demo
/// store `make run` opens.
@Suite struct ShellHabitsTests {
    let w: Workspace
    init() throws { w = try Workspace() }

    func terminal(_ arguments: [String] = [], troverc: String?) throws -> PseudoTerminal {
        if let troverc { try w.write(".troverc", troverc) }
        return try PseudoTerminal(arguments: arguments, environment: [
            "TERM": "xterm", "HOME": w.directory.path, "TROVE_HISTORY": w.path("history"), "LANG": "C.UTF-8",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ])
    }

    @Test func troveRcRunsBeforeTheFirstPrompt() throws {
        let t = try terminal(troverc: ".mode csv\n.print from troverc\n")
        try t.expect("-- Loading resources from \(w.path(".troverc"))\r\n")
        try t.expect("from troverc\r\n")
        try t.expectPrompt()
        t.send(".mode\r")
        try t.expect("\ncsv\r\n")
        try t.expectPrompt()
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    @Test func noInitSkipsTroveRc() throws {
        let t = try terminal(["--no-init"], troverc: ".mode csv\n")
        try t.expectPrompt()
        t.send(".mode\r")
        try t.expect("\ntable\r\n")
        try t.expectPrompt()
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    @Test func anErrorInTroveRcIsShownAndTheShellStarts() throws {
        let t = try terminal(troverc: ".mode xml\n.print still read\n")
        try t.expect("error: \(w.path(".troverc")):1:7: unknown mode 'xml'")
        try t.expect("still read\r\n")
        try t.expectPrompt()
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
    }

    @Test func outputFileGetsResultsWhileThePromptStays() throws {
        let t = try terminal(troverc: nil)
        try t.expectPrompt()
        t.send(".output \(w.path("out.txt"))\r")
        try t.expectPrompt()
        t.send(".print into the file\r")
        try t.expectPrompt()
        t.send(".output\r")
        try t.expectPrompt()
        t.send("\u{04}")
        #expect(try t.waitForExit() == 0)
        #expect(try w.read("out.txt") == "into the file\n")
    }

    @Test func paramBindsThroughTheSameReadingAsArg() throws {
        let made = try w.run(["db", "-s", Workspace.schema("People"), "insert Person [\(StoreStatementTests.ann), \(StoreStatementTests.bob)]"])
        #expect(made.status == 0, "\(made.err)")
        let r = try w.run(["db"], stdin: ".param set 0 30\ncount Person where age > $0\n.param set 0 old\ncount Person where age > $0\n")
        #expect(r.status == 1)
        #expect(r.out == "1\n")
        #expect(r.err.contains("$0"))
        #expect(try w.run(["db", "--arg", "30", "-c", "count Person where age > $0"]).out == "1\n")
    }

    @Test func tsvOutputImportsBackIntoEqualObjects() throws {
        let made = try w.run(["db", "-s", Workspace.schema("People"), "insert Person [\(StoreStatementTests.ann), \(StoreStatementTests.bob)]"])
        #expect(made.status == 0, "\(made.err)")
        let tsv = try w.run(["db", "--tsv", "-c", ".output people.tsv", "-c", "Person", "-c", ".output", "-c", ".print done"])
        #expect(tsv.out == "done\n")
        let copy = try w.run(["copy", "-s", Workspace.schema("People"), "import Person people.tsv"])
        #expect(copy.status == 0, "\(copy.err)")
        #expect(try w.run(["copy", "Person"]).out == (try w.run(["db", "Person"]).out))
    }

    /// What `make run` builds: the schema and the sample data import whole, and the README's
    /// first question has answers.
    @Test func demoStoreAnswersTheFirstQuestion() throws {
        let sample = Workspace.root.appendingPathComponent("Schemas/People-sample.jsonl").path
        let r = try w.run(["demo.trove", "--schema", Workspace.schema("People"), "-c", "import Person \(sample)",
                           "-c", "count Person where age > 30", "-c", "count Dog",
                           "-c", "Person where age > 30 SORT(age DESC) LIMIT(1)"])
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.first == "{\"inserted\": 10}")
        #expect(lines.dropFirst().first == "7")
        #expect(lines.dropFirst(2).first == "5")
        #expect(lines.last?.hasPrefix("{\"id\": 6, \"name\": \"Fatima Haddad\"") == true)
    }
}
