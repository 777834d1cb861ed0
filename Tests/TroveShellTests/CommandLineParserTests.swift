import Testing
@testable import TroveShell

@Suite struct CommandLineParserTests {
    func parse(_ args: String...) throws -> CommandLineOptions {
        try CommandLineParser.parse(args)
    }

    func usageError(_ args: String...) -> String? {
        do {
            _ = try CommandLineParser.parse(args)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func noArgumentsMeansInMemoryStoreAndNoScripts() throws {
        let o = try parse()
        #expect(o.database == nil)
        #expect(o.isInMemory)
        #expect(o.scripts.isEmpty)
        #expect(o.outputMode == nil)
    }

    @Test func firstOperandIsTheDatabaseAndTheRestAreCommands() throws {
        let o = try parse("db.trove", "count Person", "get Person 1")
        #expect(o.database == "db.trove")
        #expect(!o.isInMemory)
        #expect(o.scripts == [.command("count Person"), .command("get Person 1")])
    }

    @Test func memoryDatabaseNameIsInMemory() throws {
        #expect(try parse(":memory:", "count X").isInMemory)
    }

    @Test func optionsArePermutedAnywhereOnTheLine() throws {
        let o = try parse("db", "--json", "count X", "--readonly", "-c", "get X 1", "--bail")
        #expect(o.database == "db")
        #expect(o.outputMode == .json)
        #expect(o.readOnly)
        #expect(o.bail)
        #expect(o.scripts == [.command("count X"), .command("get X 1")])
    }

    @Test func commandsKeepCommandLineOrderAcrossDashCAndOperands() throws {
        let o = try parse("-c", "one", "db", "two", "-c", "three", "-f", "four.trove")
        #expect(o.scripts == [.command("one"), .command("two"), .command("three"), .file("four.trove")])
    }

    @Test func everythingAfterDoubleDashIsAnOperand() throws {
        let o = try parse("--csv", "--", "--weird-db", "--help", "-c")
        #expect(o.database == "--weird-db")
        #expect(o.scripts == [.command("--help"), .command("-c")])
        #expect(!o.showHelp)
        #expect(o.outputMode == .csv)
    }

    @Test func doubleDashAfterDatabaseMakesCommands() throws {
        let o = try parse("db", "--", "-1 looks like an option")
        #expect(o.database == "db")
        #expect(o.scripts == [.command("-1 looks like an option")])
    }

    @Test func loneDashIsAnOperand() throws {
        #expect(try parse("-").database == "-")
    }

    @Test func valuesMayBeAttachedOrSeparate() throws {
        let o = try parse("--schema=s.json", "-cfirst", "--command=second", "--arg=1", "--arg", "two", "-fx.trove", "--file", "-")
        #expect(o.schemaFile == "s.json")
        #expect(o.scripts == [.command("first"), .command("second"), .file("x.trove"), .file("-")])
        #expect(o.arguments == ["1", "two"])
    }

    /// sqlite3's one-dash long options say how they are spelt here, rather than `-csv`
    /// running the command `sv`.
    @Test func sqliteStyleLongOptionsNameTheirTwoDashForm() throws {
        #expect(usageError("db", "-csv", "count Person") == "unknown option '-csv'; long options take two dashes: --csv")
        #expect(usageError("-header", "db") == "unknown option '-header'; long options take two dashes: --headers")
        #expect(usageError("-readonly", "db") == "unknown option '-readonly'; long options take two dashes: --readonly")
        #expect(try parse("-ccount Person").scripts == [.command("count Person")])
        // Those with no two-dash form here say what does their work, rather than `-cmd`
        // running the command `md` and `-separator` reading the schema file `eparator`.
        #expect(usageError("db", "-cmd", "count Person")
                == "unknown option '-cmd'; -c COMMAND runs a command, then trove exits; --init FILE runs statements before the prompt")
        #expect(usageError("-separator", ";", "db")
                == "unknown option '-separator'; the mode picks the separator: .mode csv for commas, .mode tsv for tabs")
    }

    @Test func shortSchemaOption() throws {
        #expect(try parse("-s", "schema.json").schemaFile == "schema.json")
        #expect(try parse("--schema", "schema.json").schemaFile == "schema.json")
    }

    @Test func emptyValueIsAValue() throws {
        #expect(try parse("--arg", "").arguments == [""])
        #expect(try parse("--arg=").arguments == [""])
    }

    @Test func valueMayLookLikeAnOption() throws {
        #expect(try parse("--arg", "--json").arguments == ["--json"])
        #expect(try parse("-c", "-").scripts == [.command("-")])
    }

    @Test func clusteredShortOptionsEndWithAValueTakingOne() throws {
        let o = try parse("-hc", "count X")
        #expect(o.showHelp)
        #expect(o.scripts == [.command("count X")])
    }

    @Test(arguments: [("--json", OutputMode.json), ("--jsonl", .jsonl), ("--csv", .csv), ("--table", .table), ("--line", .line)])
    func modeFlagsSelectTheOutputMode(flag: String, mode: OutputMode) throws {
        #expect(try CommandLineParser.parse([flag]).outputMode == mode)
    }

    @Test func lastModeFlagWins() throws {
        #expect(try parse("--csv", "--json").outputMode == .json)
    }

    @Test func flagsSetTheirOptions() throws {
        let o = try parse("--readonly", "--reset-on-migration", "--bail", "--help", "--version")
        #expect(o.readOnly && o.resetOnMigration && o.bail && o.showHelp && o.showVersion)
        #expect(try parse("-h").showHelp)
    }

    @Test func unknownLongOptionIsNamed() {
        #expect(usageError("--frob") == "unknown option '--frob'")
        #expect(usageError("db", "count X", "--frob=1") == "unknown option '--frob'")
    }

    @Test func unknownShortOptionIsNamed() {
        #expect(usageError("-x") == "unknown option '-x'")
        #expect(usageError("-hx") == "unknown option '-x'")
    }

    @Test func missingValueIsNamed() {
        #expect(usageError("-c") == "option '-c' needs an argument")
        #expect(usageError("--schema") == "option '--schema' needs an argument")
        #expect(usageError("--arg") == "option '--arg' needs an argument")
        #expect(usageError("-f") == "option '-f' needs an argument")
    }

    @Test func flagGivenAValueIsAnError() {
        #expect(usageError("--json=yes") == "option '--json' takes no argument")
    }

    @Test func abbreviationsAreNotGuessed() {
        #expect(usageError("--sch", "x") == "unknown option '--sch'")
    }
}
