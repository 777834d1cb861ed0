#if canImport(Glibc)
import Glibc
#endif
import Testing
import Trove
@testable import TroveShell

/// The whole shell, from argv to exit status, with the test double as its store.
@Suite struct ShellRunTests {
    struct Outcome {
        var status: Int32
        var out: String
        var err: String
    }

    static let pipes = Terminal(stdinIsTerminal: false, stdoutIsTerminal: false, stderrIsTerminal: false, isUTF8: true)

    @discardableResult
    func run(_ arguments: [String], stdin: String = "", terminal: Terminal = pipes,
             backend: EchoBackend = EchoBackend()) -> Outcome {
        let out = StringOutput(), err = StringOutput()
        let status = Shell.run(arguments: arguments, stdout: out, stderr: err, terminal: terminal,
                               standardInput: TextLines(stdin), openBackend: { configuration in
                                   backend.configuration = configuration
                                   return backend
                               })
        return Outcome(status: status, out: out.text, err: err.text)
    }

    func temporaryFile(_ contents: String, suffix: String = ".trove") -> String {
        var template = Array("/tmp/trove-shell-test-XXXXXX\(suffix)".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, Int32(suffix.utf8.count)) }
        precondition(fd >= 0)
        _ = Array(contents.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: Options and exit status

    @Test func versionPrintsTheVersionAndExitsZero() {
        let r = run(["--version"])
        #expect(r.status == 0)
        #expect(r.out == "trove \(TroveInfo.version)\n")
    }

    @Test func helpFitsAnEightyColumnTerminal() {
        let r = run(["-h"])
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("Usage: trove [OPTIONS] [DATABASE] [COMMAND ...]"))
        for line in r.out.split(separator: "\n") { #expect(DisplayWidth.of(String(line)) <= 80, "\(line)") }
        for line in HelpText.shellHelp.split(separator: "\n") { #expect(DisplayWidth.of(String(line)) <= 80, "\(line)") }
    }

    @Test func unknownOptionExitsTwoAndNamesIt() {
        let r = run(["--frob"])
        #expect(r.status == 2)
        #expect(r.err.hasPrefix("trove: unknown option '--frob'\n"))
        #expect(r.out.isEmpty)
    }

    @Test func missingArgumentExitsTwo() {
        let r = run(["db", "-c"])
        #expect(r.status == 2)
        #expect(r.err.hasPrefix("trove: option '-c' needs an argument\n"))
    }

    @Test func unreadableScriptFileExitsTwoBeforeAnythingRuns() {
        let backend = EchoBackend()
        let r = run(["-c", "count Person", "-f", "/nonexistent/x.trove"], backend: backend)
        #expect(r.status == 2)
        #expect(r.err == "trove: cannot read '/nonexistent/x.trove': No such file or directory\n")
        #expect(backend.executed.isEmpty)
    }

    @Test func unreadableSchemaExitsTwo() {
        let r = run(["--schema", "/nonexistent/schema.json"])
        #expect(r.status == 2)
        #expect(r.err.contains("cannot read schema '/nonexistent/schema.json'"))
    }

    @Test func configurationCarriesDatabaseSchemaAndFlags() {
        let schema = temporaryFile("{\"models\": []}", suffix: ".json")
        let backend = EchoBackend()
        run(["store.trove", "-s", schema, "--readonly", "--reset-on-migration", "-c", ".quit"], backend: backend)
        #expect(backend.configuration?.databasePath == "store.trove")
        #expect(backend.configuration?.schema?.text == "{\"models\": []}")
        #expect(backend.configuration?.readOnly == true)
        #expect(backend.configuration?.resetOnMigration == true)
        let memory = EchoBackend()
        run([":memory:", "-c", ".quit"], backend: memory)
        #expect(memory.configuration?.databasePath == nil)
    }

    @Test func backendThatCannotOpenExitsOne() {
        struct Refused: Error, CustomStringConvertible { var description: String { "the schema needs a migration" } }
        let out = StringOutput(), err = StringOutput()
        let status = Shell.run(arguments: ["db"], stdout: out, stderr: err, terminal: Self.pipes,
                               standardInput: TextLines(""), openBackend: { _ in throw Refused() })
        #expect(status == 1)
        #expect(err.text == "error: the schema needs a migration\n")
    }

    @Test func backendRefusingTheCommandLineExitsTwo() {
        let out = StringOutput(), err = StringOutput()
        let status = Shell.run(arguments: ["db"], stdout: out, stderr: err, terminal: Self.pipes, standardInput: TextLines(""),
                               openBackend: { _ in throw UsageError("schema.json: models[0].name: missing") })
        #expect(status == 2)
        #expect(err.text == "trove: schema.json: models[0].name: missing\n")
    }

    // MARK: Commands

    @Test func commandsRunInOrderWithoutReadingStandardInput() {
        let backend = EchoBackend()
        let r = run(["db", "count Person", "-c", "get Person 1"], stdin: "count Dog\n", backend: backend)
        #expect(r.status == 0)
        #expect(r.out == "2\n{\"id\": 1, \"name\": \"Ann\", \"age\": 31}\n")
        #expect(backend.executed.count == 2)
    }

    @Test func firstFailingCommandStopsTheRunWithStatusOne() {
        let backend = EchoBackend()
        let r = run(["-c", "count Person", "-c", "count Cat", "-c", "count Dog"], backend: backend)
        #expect(r.status == 1)
        #expect(r.out == "2\n")
        #expect(r.err == "error: column 7: no model named 'Cat'\n")
        #expect(backend.executed.count == 2)
    }

    @Test func parseErrorNamesTheColumnAndNothingRuns() {
        let backend = EchoBackend()
        let r = run(["-c", "get Person"], backend: backend)
        #expect(r.status == 1)
        #expect(r.err == "error: column 11: expected a primary key after 'get Person', found the end of the statement\n")
        #expect(backend.executed.isEmpty)
    }

    @Test func backendErrorOffsetsPointIntoThePredicate() {
        let r = run(["-c", "Person where age > 1 AND boom == 2"])
        #expect(r.err == "error: column 26: unknown property 'boom'\n")
    }

    @Test func errorsInAMultiLineCommandNameLineAndColumn() {
        let r = run(["-c", "count Person\nPerson where (age > 1 AND\n  boom == 2)"])
        #expect(r.err == "error: line 3, column 3: unknown property 'boom'\n")
    }

    @Test func severalStatementsInOneCommand() {
        let r = run(["-c", "count Person; count Dog"])
        #expect(r.out == "2\n2\n")
    }

    @Test func fileErrorsNameFileLineAndColumn() {
        let path = temporaryFile("count Person\n\n  get Person\n")
        let r = run(["-f", path])
        #expect(r.status == 1)
        #expect(r.out == "2\n")
        #expect(r.err == "error: \(path):3:13: expected a primary key after 'get Person', found the end of the statement\n")
    }

    @Test func fileFromStandardInput() {
        let r = run(["-f", "-"], stdin: "count Person\n")
        #expect(r.status == 0)
        #expect(r.out == "2\n")
    }

    @Test func unterminatedStatementAtEndOfInputFails() {
        let r = run(["-c", "insert Person {\"id\": 3,"])
        #expect(r.status == 1)
        #expect(r.err == "error: column 15: unterminated statement: '{' is never closed\n")
        // Placed as any error is: in the statement after a ';', and on the line it opens on.
        #expect(run(["-c", "count Person; Person where (age > 3"]).err == "error: column 28: unterminated statement: '(' is never closed\n")
        #expect(run([], stdin: "count Person\nPerson where name IN {'a',\n  'b'} OR (age > 3\n").err
                == "error: line 3, column 11: unterminated statement: '(' is never closed\n")
    }

    // MARK: Standard input

    @Test func standardInputKeepsGoingAfterAnErrorButExitsOne() {
        let r = run([], stdin: "count Cat\ncount Person\n")
        #expect(r.status == 1)
        #expect(r.out == "2\n")
        #expect(r.err == "error: line 1, column 7: no model named 'Cat'\n")
    }

    @Test func bailStopsStandardInputAtTheFirstError() {
        let r = run(["--bail"], stdin: "count Cat\ncount Person\n")
        #expect(r.status == 1)
        #expect(r.out == "")
    }

    @Test func bailDotCommandTurnsStoppingOn() {
        let r = run([], stdin: ".bail on\ncount Cat\ncount Person\n")
        #expect(r.status == 1)
        #expect(r.out == "")
    }

    @Test func continuationLinesOfPipedInputFormOneStatement() {
        let backend = EchoBackend()
        let r = run([], stdin: "insert Person [\n  {\"id\": 5},\n  {\"id\": 6}\n]\n", backend: backend)
        #expect(r.out == "{\"inserted\": 2}\n")
        #expect(backend.executed.count == 1)
    }

    // MARK: Modes

    @Test func defaultModeIsJSONLinesWhenPiped() {
        #expect(run(["-c", "Person"]).out == "{\"id\": 1, \"name\": \"Ann\", \"age\": 31}\n{\"id\": 2, \"name\": \"Bob\", \"age\": null}\n")
    }

    @Test func defaultModeIsTableOnATerminal() {
        let terminal = Terminal(stdinIsTerminal: false, stdoutIsTerminal: true, stderrIsTerminal: true, isUTF8: false)
        let r = run(["-c", "Person"], terminal: terminal)
        #expect(r.out.hasPrefix("+----+------+------+\n| id | name |  age |\n"))
        #expect(r.out.hasSuffix("(2 rows)\n"))
    }

    @Test func modeOptionsChooseTheFormat() {
        #expect(run(["--csv", "-c", "Person"]).out == "id,name,age\n1,Ann,31\n2,Bob,\n")
        #expect(run(["--json", "-c", "get Person 2"]).out == "{\"id\": 2, \"name\": \"Bob\", \"age\": null}\n")
        #expect(run(["--json", "-c", "get Person 9"]).out == "null\n")
        #expect(run(["--line", "-c", "count Person"]).out == "count = 2\n")
    }

    @Test func modeDotCommandSwitchesAndReports() {
        let r = run([], stdin: ".mode\n.mode csv\n.mode\n.headers off\nPerson\n")
        #expect(r.out == "jsonl\ncsv\n1,Ann,31\n2,Bob,\n")
        #expect(r.status == 0)
    }

    @Test func unknownModeIsAnError() {
        let r = run(["-c", ".mode xml"])
        #expect(r.status == 1)
        #expect(r.err == "error: column 7: unknown mode 'xml'; modes: json, jsonl, csv, tsv, table, markdown, line\n")
    }

    // MARK: Writes and transactions

    @Test func writesPrintOneSummaryLine() {
        let r = run(["-c", "insert Person {\"id\": 3}", "-c", "update Person 1 2 set age = 3", "-c", "delete Person where age > 1"])
        #expect(r.out == "{\"inserted\": 1}\n{\"updated\": 2}\n{\"deleted\": 2}\n")
    }

    @Test func writesInATransactionPrintOnceItCommits() {
        let backend = EchoBackend()
        let r = run([], stdin: "begin\ninsert Person {\"id\": 3}\ncount Person\ndelete Person 1\ncommit\n", backend: backend)
        #expect(r.out == "2\n{\"inserted\": 1}\n{\"deleted\": 1}\n")
        #expect(backend.transactionLog == ["begin", "commit"])
    }

    @Test func rolledBackWritesPrintNothing() {
        let r = run([], stdin: "begin\ninsert Person {\"id\": 3}\nrollback\n")
        #expect(r.out == "")
        #expect(r.status == 0)
    }

    @Test func openTransactionIsRolledBackAtExit() {
        let backend = EchoBackend()
        let r = run(["-c", "begin", "-c", "insert Person {}"], backend: backend)
        #expect(backend.transactionLog == ["begin", "rollback"])
        #expect(r.err == "warning: the open transaction was rolled back\n")
        #expect(r.out == "")
        #expect(r.status == 0)
    }

    @Test func readOnlyRefusesWritesWithoutAskingTheStore() {
        let backend = EchoBackend()
        let r = run(["--readonly", "-c", "count Person", "-c", "delete Person 1"], backend: backend)
        #expect(r.status == 1)
        #expect(r.err == "error: column 1: cannot delete: the database is open read-only (--readonly)\n")
        #expect(backend.executed.count == 1)
    }

    // MARK: Statements with files and streams

    @Test func argumentsReachTheBackend() {
        let backend = EchoBackend()
        run(["--arg", "30", "-c", "Person where age > $0", "--arg", "x y"], backend: backend)
        #expect(backend.seenArguments == [["30", "x y"]])
    }

    @Test func importReadsTheFileThroughTheContext() {
        let path = temporaryFile("{\"id\": 7}\n{\"id\": 8}\n", suffix: ".jsonl")
        #expect(run(["-c", "import Person \(path)"]).out == "{\"inserted\": 2}\n")
        #expect(run(["-c", "import Person -"], stdin: "{\"id\": 7}\n").out == "{\"inserted\": 1}\n")
    }

    @Test func importOfAMissingFileFails() {
        let r = run(["-c", "import Person /nonexistent.jsonl"])
        #expect(r.status == 1)
        #expect(r.err == "error: cannot read '/nonexistent.jsonl': No such file or directory\n")
    }

    @Test func exportWritesTheFileInTheFormatOfItsName() throws {
        let jsonl = temporaryFile("", suffix: ".jsonl")
        let csv = temporaryFile("", suffix: ".csv")
        let r = run(["-c", "export Person where age > 1 \(jsonl)", "-c", "export Person \(csv)"])
        #expect(r.status == 0)
        #expect(r.out == "")
        #expect(String(decoding: try FileInput.readAll(jsonl), as: UTF8.self) == "{\"id\": 1, \"name\": \"Ann\", \"age\": 31}\n{\"id\": 2, \"name\": \"Bob\", \"age\": null}\n")
        #expect(String(decoding: try FileInput.readAll(csv), as: UTF8.self) == "id,name,age\n1,Ann,31\n2,Bob,\n")
    }

    @Test func exportWithoutFileWritesJSONLinesToStandardOutput() {
        #expect(run(["--csv", "-c", "export Person"]).out.hasPrefix("{\"id\": 1"))
    }

    @Test func watchStreamsEventsAsJSONLines() {
        #expect(run(["--table", "-c", "watch Person"]).out == "{\"event\": \"insert\", \"id\": 3}\n{\"event\": \"delete\", \"id\": 1}\n")
    }

    @Test func explainPrintsThePlan() {
        #expect(run(["-c", "explain Person where age > 1"]).out == "{\"model\": \"Person\", \"scan\": true}\n")
    }

    // MARK: Dot-commands

    @Test func modelsListsModelNames() {
        #expect(run(["-c", ".models"]).out == "Person\nDog\n")
        #expect(run(["-c", ".tables"]).out == "Person\nDog\n")
    }

    @Test func schemaPrintsModelsAsASchemaFileWrites() {
        #expect(run(["-c", ".schema Dog"]).out == """
            {
              "name": "Dog",
              "properties": {
                "name": "string",
                "owners": {"type": "linkingObjects", "objectType": "Person", "property": "dogs"}
              }
            }

            """)
        #expect(run(["-c", ".schema Person"]).out.contains("\"name\": {\"type\": \"string\", \"indexed\": true}"))
        let missing = run(["-c", ".schema Cat"])
        #expect(missing.status == 1)
        #expect(missing.err == "error: column 9: no model named 'Cat' (models: Person, Dog)\n")
    }

    @Test func readRunsAFileAndStopsAtItsFirstErrorInScripts() {
        let path = temporaryFile("count Person\ncount Cat\ncount Dog\n")
        let r = run(["-c", ".read \(path)", "-c", "count Person"])
        #expect(r.status == 1)
        #expect(r.out == "2\n")
        #expect(r.err == "error: \(path):2:7: no model named 'Cat'\n")
    }

    @Test func readOfAMissingFileFails() {
        let r = run(["-c", ".read /nonexistent.trove"])
        #expect(r.status == 1)
        #expect(r.err == "error: column 7: cannot read '/nonexistent.trove': No such file or directory\n")
    }

    @Test func readThatReadsItselfStops() {
        let path = temporaryFile("")
        Array(".read \(path)\n".utf8).withUnsafeBytes { bytes in
            let fd = open(path, O_WRONLY | O_TRUNC)
            write(fd, bytes.baseAddress, bytes.count)
            close(fd)
        }
        let r = run(["-c", ".read \(path)"])
        #expect(r.status == 1)
        #expect(r.err.contains(".read nests too deeply"))
    }

    @Test func quitStopsEverythingWithStatusZero() {
        let backend = EchoBackend()
        let r = run(["-c", "count Person", "-c", ".quit", "-c", "count Dog"], backend: backend)
        #expect(r.status == 0)
        #expect(backend.executed.count == 1)
    }

    @Test func exitSetsTheStatus() {
        #expect(run([], stdin: ".exit 3\ncount Person\n").status == 3)
        #expect(run([], stdin: "count Cat\n.exit\n").status == 1)
    }

    @Test func unknownDotCommandIsAnError() {
        let r = run(["-c", ".frob"])
        #expect(r.status == 1)
        #expect(r.err == "error: column 1: unknown command '.frob'; .help lists the commands\n")
        #expect(run(["-c", ".import people.csv Person"]).err
                == "error: column 1: unknown command '.import'; import is a statement here: import MODEL FILE [AS CSV|TSV|JSON] [MERGE]\n")
    }

    /// sqlite3's `.separator` says what sets the separator here, as typed and as a `.help` topic.
    @Test func separatorSaysTheModePicksTheSeparator() {
        let hint = "the mode picks the separator: .mode csv for commas, .mode tsv for tabs"
        #expect(run(["-c", ".separator ,"]).err == "error: column 1: unknown command '.separator'; \(hint)\n")
        #expect(run(["-c", ".help separator"]).out == "  \(hint)\n")
    }

    @Test func dotCommandArgumentsAreChecked() {
        #expect(run(["-c", ".timer maybe"]).err == "error: column 8: usage: .timer on|off\n")
        #expect(run(["-c", ".models x"]).err == "error: column 9: .models takes no arguments\n")
    }

    @Test func printAndHelpWriteToStandardOutput() {
        #expect(run(["-c", ".print hello   'big world'"]).out == "hello big world\n")
        #expect(run(["-c", ".help"]).out.contains(".schema [MODEL]"))
    }

    /// As sqlite3's `.help mode`: the lines of one dot-command or statement.
    @Test func helpOnATopicShowsItsLines() {
        #expect(run(["-c", ".help mode"]).out == run(["-c", ".help .mode"]).out)
        #expect(run(["-c", ".help mode"]).out.hasPrefix("  .mode [MODE]"))
        #expect(run(["-c", ".help tables"]).out.hasPrefix("  .models"))
        #expect(run(["-c", ".help delete"]).out.hasPrefix("  delete MODEL PK [PK ...]\n  delete MODEL where PREDICATE\n    "))
        #expect(run(["-c", ".help avg"]).out.hasPrefix("  sum MODEL.KEYPATH"))
        #expect(run(["-c", ".help .import"]).out == "  import is a statement here: import MODEL FILE [AS CSV|TSV|JSON] [MERGE]\n")
        #expect(run(["-c", ".help indexes"]).out == "  .schema MODEL shows its indexed properties\n")
        let unknown = run(["-c", ".help frob"])
        #expect(unknown.status == 1)
        #expect(unknown.err == "error: column 7: no command or statement named 'frob'; .help lists them all\n")
    }

    /// Each statement is a topic: its forms, what it does, an example; `avg`, `min` and `max`
    /// show `sum`'s, `commit` and `rollback` `begin`'s.
    @Test func helpOnAStatementShowsWhatItDoesAndAnExample() {
        for row in CommandTable.statements {
            let r = run(["-c", ".help \(row.keyword)"])
            #expect(r.status == 0, "\(row.keyword): \(r.err)")
            let lines = r.out.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix("    ") && $0.count > 4 }, "\(row.keyword): \(r.out)")
            #expect(lines.last?.hasPrefix("  e.g. ") == true, "\(row.keyword): \(r.out)")
            for line in lines { #expect(DisplayWidth.of(line) <= 80, "\(line)") }
        }
        #expect(run(["-c", ".help watch"]).out == """
              watch QUERY
                print the query's results, then, after each commit from any process, each
                change as one JSON line (insert, delete, move, update; an aggregate's new
                value); Ctrl-C ends it, and a later run's error ends it with status 1
              e.g. watch Car GROUP(Origin) SELECT(Origin, @count)

            """)
        #expect(run(["-c", ".help max"]).out == run(["-c", ".help sum"]).out)
        #expect(run(["-c", ".help rollback"]).out.hasSuffix("  e.g. begin; update Person 1 set age = 37; commit\n"))
        #expect(run(["-c", ".help explain"]).out.contains("\n  e.g. explain Car where"))
    }

    /// Each clause of a query is a topic, in any case: its form, what it does, an example.
    @Test func helpOnAClauseShowsItsFormAndAnExample() {
        for clause in QueryParser.clauseKeywords {
            for topic in [clause, clause.lowercased()] {
                let r = run(["-c", ".help \(topic)"])
                #expect(r.status == 0, "\(topic): \(r.err)")
                #expect(r.out.hasPrefix("  \(clause)("), "\(topic): \(r.out)")
                #expect(r.out.contains("\n  e.g. "), "\(topic): \(r.out)")
            }
        }
        #expect(run(["-c", ".help offset"]).out == """
              OFFSET(N)
                skip the first N results (or groups) after SORT and DISTINCT, before LIMIT;
                N is an integer from 0 to 9223372036854775807 in the statement, not $0
              e.g. Airport where state == 'TX' SORT(iata) OFFSET(50) LIMIT(50)

            """)
        // SQL's SELECT is a clause too: its lines, then what typing it as SQL is told.
        let select = run(["-c", ".help select"]).out
        #expect(select.hasPrefix("  SELECT(ITEM [AS NAME], ...)\n"), "\(select)")
        #expect(select.hasSuffix("  a query is not SQL here: it names its model first, as in Person where age > 30 SELECT(name)\n"), "\(select)")
        // The shell's help names the clause topics.
        #expect(run(["-c", ".help"]).out.contains(".help where, .help GROUP, .help SORT"))
        // where is a topic too: the predicates, pointing to the manual.
        let predicates = run(["-c", ".help where"])
        #expect(predicates.status == 0, "\(predicates.err)")
        #expect(predicates.out.hasPrefix("  where PREDICATE "), "\(predicates.out)")
        for word in ["BEGINSWITH", "LIKE", "MATCHES", "[c]", "[d]", "ANY", "ALL", "NONE", "@count", "SUBQUERY", "QUERY LANGUAGE"] {
            #expect(predicates.out.contains(word), "\(word)")
        }
        #expect(run(["-c", ".help WHERE"]).out == predicates.out)
    }

    /// A dot-command's line in `.help` writes each of its forms and options as the manual does.
    @Test func helpWritesEachFormOfADotCommand() {
        let help = run(["-c", ".help"]).out
        #expect(help.contains("\n  .param set N VALUE, .param list, .param clear "), "\(help)")
        #expect(help.contains("\n  .copy TARGET [--replace] "), "\(help)")
    }

    @Test func timerReportsOnStandardError() {
        let r = run(["-c", ".timer on", "-c", "count Person"])
        #expect(r.out == "2\n")
        #expect(r.err.hasPrefix("Time: "))
        #expect(r.err.hasSuffix(" ms\n"))
    }

    @Test func unavailableBackendFailsStatementsClearly() {
        let out = StringOutput(), err = StringOutput()
        let status = Shell.run(arguments: ["-c", "count Person"], stdout: out, stderr: err, terminal: Self.pipes,
                               standardInput: TextLines(""), openBackend: { _ in UnavailableBackend() })
        #expect(status == 1)
        #expect(err.text == "error: cannot run 'count': this build of trove has no object store yet\n")
    }
}
