import Testing
import Trove
@testable import TroveShell

/// The init file: which one is read, when, and what its errors do.
@Suite struct InitFileTests {
    @Test func onlyTheInteractiveShellReadsTheDefault() {
        let home = ShellRunTests().temporaryFile(".mode csv\n", suffix: ".troverc")
        let environment = ["TROVE_INIT": home, "HOME": "/nonexistent"]
        #expect(InitFile.path(option: nil, skip: false, interactive: true, environment: environment) == home)
        #expect(InitFile.path(option: nil, skip: false, interactive: false, environment: environment) == nil)
        #expect(InitFile.path(option: nil, skip: true, interactive: true, environment: environment) == nil)
    }

    @Test func troveInitThenHomeAndOnlyIfItExists() {
        #expect(InitFile.path(option: nil, skip: false, interactive: true, environment: ["TROVE_INIT": "", "HOME": "/"]) == nil)
        #expect(InitFile.path(option: nil, skip: false, interactive: true, environment: ["HOME": "/nonexistent"]) == nil)
        #expect(InitFile.path(option: nil, skip: false, interactive: true, environment: [:]) == nil)
    }

    @Test func initOptionIsReadInEveryModeUnlessSkipped() {
        #expect(InitFile.path(option: "x.trove", skip: false, interactive: false, environment: [:]) == "x.trove")
        #expect(InitFile.path(option: "x.trove", skip: false, interactive: true, environment: ["TROVE_INIT": "y"]) == "x.trove")
        #expect(InitFile.path(option: "x.trove", skip: true, interactive: false, environment: [:]) == nil)
    }

    func run(_ arguments: [String], stdin: String = "", environment: [String: String] = [:]) -> ShellRunTests.Outcome {
        let out = StringOutput(), err = StringOutput()
        let status = Shell.run(arguments: arguments, stdout: out, stderr: err, terminal: ShellRunTests.pipes,
                               standardInput: TextLines(stdin), environment: environment, openBackend: { _ in EchoBackend() })
        return ShellRunTests.Outcome(status: status, out: out.text, err: err.text)
    }

    @Test func initFileRunsBeforeTheCommands() {
        let file = ShellRunTests().temporaryFile(".mode csv\n.headers off\n.param set 0 30\n")
        let r = run(["--init", file, "-c", "Person", "-c", ".param list"])
        #expect(r.status == 0)
        #expect(r.out == "1,Ann,31\n2,Bob,\n$0 = \"30\"\n")
        #expect(r.err == "")
    }

    @Test func scriptsIgnoreTheDefaultInitFile() {
        let file = ShellRunTests().temporaryFile(".print from the init file\n")
        #expect(run(["-c", "count Person"], environment: ["TROVE_INIT": file]).out == "2\n")
        #expect(run([], stdin: "count Person\n", environment: ["TROVE_INIT": file]).out == "2\n")
    }

    @Test func anErrorInTheInitFileStopsAScript() {
        let file = ShellRunTests().temporaryFile(".mode xml\n.print after\n")
        let r = run(["--init", file, "-c", "count Person"])
        #expect(r.status == 1)
        #expect(r.out == "")
        #expect(r.err == "error: \(file):1:7: unknown mode 'xml'; modes: json, jsonl, csv, tsv, table, markdown, line\n")
    }

    @Test func aMissingInitFileIsBadUsage() {
        let r = run(["--init", "/nonexistent/troverc", "-c", "count Person"])
        #expect(r.status == 2)
        #expect(r.err == "trove: cannot read '/nonexistent/troverc': No such file or directory\n")
    }

    @Test func noInitSkipsAGivenInitFile() {
        #expect(run(["--init", "/nonexistent/troverc", "--no-init", "-c", "count Person"]).out == "2\n")
    }
}
