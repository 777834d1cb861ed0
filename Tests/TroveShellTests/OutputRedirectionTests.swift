#if canImport(Glibc)
import Glibc
#endif
import Testing
import Trove
@testable import TroveShell

/// `.output` and `.once`: where results go, and that errors never follow them.
extension ShellRunTests {
    func contents(_ path: String) throws -> String {
        String(decoding: try FileInput.readAll(path), as: UTF8.self)
    }

    @Test func outputSendsResultsToAFileUntilTurnedBack() throws {
        let path = temporaryFile("old text that is replaced\n", suffix: ".txt")
        let r = run([], stdin: "count Person\n.output \(path)\ncount Dog\n.print in the file\ncount Cat\n.output\n.print back\n")
        #expect(r.out == "2\nback\n")
        #expect(r.err == "error: line 5, column 7: no model named 'Cat'\n")
        #expect(try contents(path) == "2\nin the file\n")
    }

    @Test func outputDashIsStandardOutput() throws {
        let path = temporaryFile("", suffix: ".txt")
        let r = run(["-c", ".output \(path)", "-c", "count Person", "-c", ".output -", "-c", ".print here"])
        #expect(r.out == "here\n")
        #expect(try contents(path) == "2\n")
    }

    @Test func onceTakesOnlyTheNextCommand() throws {
        let path = temporaryFile("", suffix: ".csv")
        let r = run(["--csv"], stdin: ".once \(path)\nPerson\ncount Person\n")
        #expect(r.out == "2\n")
        #expect(try contents(path) == "id,name,age\n1,Ann,31\n2,Bob,\n")
    }

    /// As in sqlite3, `.once` ends `.output`'s redirection: after its command, standard output.
    @Test func onceEndsTheOutputFile() throws {
        let kept = temporaryFile("", suffix: ".txt"), once = temporaryFile("", suffix: ".txt")
        let r = run([], stdin: ".output \(kept)\n.print one\n.once \(once)\n.print two\n.print three\n")
        #expect(r.out == "three\n")
        #expect(try contents(kept) == "one\n")
        #expect(try contents(once) == "two\n")
    }

    @Test func onceCountsADotCommandAsTheNextCommand() throws {
        let path = temporaryFile("", suffix: ".txt")
        let r = run([], stdin: ".once \(path)\n.models\n.models\n")
        #expect(r.out == "Person\nDog\n")
        #expect(try contents(path) == "Person\nDog\n")
    }

    @Test func outputIntoAMissingDirectoryFailsAndKeepsTheOutput() {
        let r = run(["-c", ".output /nonexistent/dir/out.txt"])
        #expect(r.status == 1)
        #expect(r.err == "error: column 9: cannot write '/nonexistent/dir/out.txt': No such file or directory\n")
        let kept = run([], stdin: ".once /nonexistent/x.txt\ncount Person\n")
        #expect(kept.status == 1)
        #expect(kept.out == "2\n")
    }

    /// A file that cannot be opened leaves output where it was, in `.output`'s file too; one
    /// opened again starts empty.
    @Test func aRedirectionThatFailsKeepsTheOutputFile() throws {
        let path = temporaryFile("", suffix: ".txt")
        let r = run([], stdin: ".output \(path)\n.print one\n.output /nonexistent/x.txt\n.print two\n.once /nonexistent/y.txt\n.print three\n.output\n.print four\n")
        #expect(r.out == "four\n")
        #expect(r.err == "error: line 3, column 9: cannot write '/nonexistent/x.txt': No such file or directory\n"
                + "error: line 5, column 7: cannot write '/nonexistent/y.txt': No such file or directory\n")
        #expect(try contents(path) == "one\ntwo\nthree\n")
        let again = run([], stdin: ".output \(path)\n.print one\n.output \(path)\n.print two\n")
        #expect(again.out.isEmpty)
        #expect(try contents(path) == "two\n")
    }

    /// Commands and -f stop at the first error, piped input only with --bail or .bail on.
    @Test func showSaysWhetherAnErrorStopsTheRun() {
        #expect(run(["-c", ".show"]).out.contains("     bail: on\n"))
        #expect(run(["-c", ".bail off", "-c", ".show"]).out.contains("     bail: on\n"))
        #expect(run([], stdin: ".show\n").out.contains("     bail: off\n"))
        #expect(run([], stdin: ".bail on\n.show\n").out.contains("     bail: on\n"))
        #expect(run(["--bail"], stdin: ".show\n").out.contains("     bail: on\n"))
    }

    /// The prompt never stops at an error: with --bail, `.show` there says whom bail stops.
    @Test func showAtThePromptSaysBailStopsReadFilesOnly() throws {
        func show(_ arguments: [String]) throws -> String {
            let out = StringOutput()
            let session = ShellSession(backend: EchoBackend(), stdout: out, stderr: StringOutput(), terminal: ShellRunTests.pipes,
                                       options: try CommandLineParser.parse(arguments), busyTimeout: nil, standardInput: TextLines(""))
            _ = session.executeDotCommand(SplitStatement(text: ".show"), origin: .interactive)
            return out.text
        }
        #expect(try show(["db", "--bail"]).contains("     bail: on (for .read; the prompt goes on)\n"))
        #expect(try show(["db"]).contains("     bail: off\n"))
    }

    @Test func showSaysWhereOutputGoes() throws {
        let path = temporaryFile("", suffix: ".txt")
        #expect(run(["-c", ".show"]).out.contains("   output: stdout\n"))
        run(["-c", ".output \(path)", "-c", ".show"])
        #expect(try contents(path).contains("   output: \(path)\n"))
    }

    // MARK: Headers and null

    @Test func headersOptionsAndDotCommand() {
        #expect(run(["--csv", "--no-headers", "-c", "Person"]).out == "1,Ann,31\n2,Bob,\n")
        #expect(run(["--no-headers", "--headers", "--tsv", "-c", "Person"]).out == "id\tname\tage\n1\tAnn\t31\n2\tBob\t\n")
        #expect(run(["--tsv"], stdin: ".headers off\nPerson\n.header on\ncount Person\n").out == "1\tAnn\t31\n2\tBob\t\n2\n")
    }

    @Test func modesTSVAndMarkdownFromOptionsAndDotCommand() {
        #expect(run(["--markdown", "-c", "get Person 1"]).out == "|  id | name | age |\n| --: | ---- | --: |\n|   1 | Ann  |  31 |\n")
        #expect(run([], stdin: ".mode markdown\n.mode\n.mode tsv\n.mode\n").out == "markdown\ntsv\n")
        #expect(run(["-c", ".mode xml"]).err == "error: column 7: unknown mode 'xml'; modes: json, jsonl, csv, tsv, table, markdown, line\n")
    }

    /// sqlite3's names for the modes that exist here under another name get a hint.
    @Test func sqlite3ModeNamesSayWhichModeIsTheirs() {
        #expect(run(["-c", ".mode box"]).err
            == "error: column 7: unknown mode 'box' (sqlite3's box is table here); modes: json, jsonl, csv, tsv, table, markdown, line\n")
        #expect(run(["-c", ".mode Column"]).err.hasPrefix("error: column 7: unknown mode 'Column' (sqlite3's Column is table here); "))
        #expect(run(["-c", ".mode tabs"]).err.hasPrefix("error: column 7: unknown mode 'tabs' (sqlite3's tabs is tsv here); "))
    }

    /// sqlite3's modes as options (`sqlite3 -box db`) and as `.help` topics get the same hint.
    @Test func sqlite3ModeOptionsAndHelpTopicsSayWhichModeIsTheirs() {
        let tryHelp = "Try 'trove --help' for more information.\n"
        let box = run(["db", "-box"])
        #expect(box.status == 2)
        #expect(box.err == "trove: unknown option '-box' (sqlite3's box is table here: --table)\n" + tryHelp)
        #expect(run(["--column", "db"]).err == "trove: unknown option '--column' (sqlite3's column is table here: --table)\n" + tryHelp)
        #expect(run(["db", "-tabs"]).err == "trove: unknown option '-tabs' (sqlite3's tabs is tsv here: --tsv)\n" + tryHelp)
        #expect(run(["-c", ".help box"]).out == "  sqlite3's box is table here\n")
        #expect(run(["-c", ".help Tabs"]).out == "  sqlite3's tabs is tsv here\n")
        #expect(run(["db", "-bail", "-c", "count Person"]).err == "trove: unknown option '-bail'; long options take two dashes: --bail\n" + tryHelp)
    }

    @Test func nullValueFromOptionAndDotCommand() {
        #expect(run(["--csv", "--nullvalue", "NULL", "-c", "Person"]).out == "id,name,age\n1,Ann,31\n2,Bob,NULL\n")
        #expect(run(["--line"], stdin: ".nullvalue (none)\nget Person 2\n.nullvalue\nget Person 2\n").out
                == "  id = 2\nname = Bob\n age = (none)\n  id = 2\nname = Bob\n age = null\n")
        #expect(run(["--jsonl", "--nullvalue", "NULL", "-c", "get Person 2"]).out == "{\"id\": 2, \"name\": \"Bob\", \"age\": null}\n")
        #expect(run(["--nullvalue", "-", "-c", ".show"]).out.contains("nullvalue: \"-\"\n"))
    }
}
