import Trove

/// The texts of `--help`, `--version` and `.help`. Every line fits an 80-column terminal.
enum HelpText {
    static var version: String { "trove \(TroveInfo.version)\n" }

    static let usage = """
        Usage: trove [OPTIONS] [DATABASE] [COMMAND ...]

        The command-line shell of the Trove object database. DATABASE is a file,
        created if missing; without it (or with :memory:) the store is in memory.
        Each COMMAND runs in order, then trove exits. Without commands, trove reads
        statements from standard input, or starts an interactive shell on a terminal.

        Options (anywhere on the command line, up to a lone --):
          -c, --command COMMAND  run COMMAND (repeatable), then exit
          -f, --file FILE        run the statements in FILE (- is standard input)
          -s, --schema FILE      apply the JSON schema FILE when opening
              --readonly         open read-only: any write is an error
              --reset-on-migration
                                 wipe the store if the schema needs a migration
                                 that its schemaVersion does not allow
              --key-file FILE    the encrypted store's 64-byte key (raw or hex) in FILE
              --timeout MS       give up a write after waiting MS ms for another
                                 writer (default: wait; a store says so on
                                 stderr after 1 s)
              --json             output: one JSON array per query
              --jsonl            output: one JSON object per line (when piped)
              --csv              output: CSV with a header line
              --tsv              output: CSV with tabs between fields
              --table            output: a table for people (on a terminal)
              --markdown         output: a Markdown table
              --line             output: one "name = value" line per property
              --headers, --no-headers
                                 show or hide header lines (table, csv, ...)
              --nullvalue TEXT   print null as TEXT in the text modes
              --init FILE        run FILE first (default ~/.troverc, at a terminal)
              --no-init          run no init file
              --bail             stop at the first failing statement
              --arg VALUE        bind VALUE to $0, $1, ... in order (repeatable)
          -h, --help             show this help and exit
              --version          show the version and exit

        Statements (one per line; ; separates several; type .help in the shell):
          MODEL [where P] [SORT(..)] [DISTINCT(..)] [OFFSET(N)] [LIMIT(N)] [SELECT(..)]
          MODEL [where P] GROUP(..) [SELECT(..)] [SORT(..)] [OFFSET(N)] [LIMIT(N)]
          sum|avg|min|max MODEL.KEYPATH [where PREDICATE]
          count MODEL [where PREDICATE]       get MODEL PK [PK ...]
          insert MODEL JSON                   upsert MODEL JSON
          update MODEL PK|where PREDICATE set PROP = VALUE [, ...]
          delete MODEL PK [PK ...]            delete MODEL where PREDICATE
          import MODEL FILE [AS CSV|TSV|JSON] [MERGE]
          export MODEL [where PREDICATE] [FILE]
          explain QUERY    watch QUERY        begin | commit | rollback

        Exit status: 0 success, 1 a statement failed, 2 bad usage.
        See trove(1) for the full manual.

        """

    static var shellHelp: String {
        var text = "Dot-commands:\n"
        for command in CommandTable.dotCommands { text += line(of: command) }
        text += """

            Statements (keywords in any case; a statement ends at the end of the line
            unless a quote or bracket is open; ; separates statements; -- comments):
              MODEL [where PREDICATE] [SORT(KEYPATH [ASC|DESC], ...)]
                    [DISTINCT(KEYPATH, ...)] [OFFSET(N)] [LIMIT(N)]
                    [SELECT(ITEM [AS NAME], ...)]
              MODEL [where PREDICATE] GROUP(KEYPATH, ...)
                    [SELECT(ITEM [AS NAME], ...)] [SORT(ITEM [ASC|DESC], ...)]
                    [OFFSET(N)] [LIMIT(N)]
              (ITEM: a key path, a list aggregate such as dogs.@count, and under GROUP
               @count, @sum.KEYPATH, @avg.KEYPATH, @min.KEYPATH, @max.KEYPATH;
               .help where, .help GROUP, .help SORT, ... show a clause with an example)

            """
        for usage in CommandTable.statements.flatMap(\.usage) { text += "  " + usage + "\n" }
        return text
    }

    /// The `.help` lines of the dot-command, statement or clause `topic` names, with or
    /// without its dot (`mode`, `.mode`, `import`, `tables`, `offset`), as sqlite3's `.help
    /// mode` shows one (a clause's with an example); for a
    /// command of another shell (`.import`, `.indexes`, `select`), the answer typing it gets
    /// (`CommandTable.habits`, and `modeHabits` for sqlite3's modes); nil when it names none.
    static func help(on topic: String) -> String? {
        let word = topic.lowercased()
        let name = word.hasPrefix(".") ? word : "." + word
        if let command = CommandTable.dotCommand(named: name) { return line(of: command) }
        if !word.hasPrefix("."), let row = CommandTable.helpRow(of: word) {
            return topicText(forms: row.usage, description: row.description, example: row.example)
        }
        let habit = (CommandTable.habits[word] ?? CommandTable.habits[name] ?? CommandTable.modeHabit(word)).map { "  " + $0 + "\n" }
        if !word.hasPrefix("."), let clause = CommandTable.clause(word) {
            // SQL's SELECT is a clause here too: its lines, then the tip typing it as SQL gets.
            return topicText(forms: Array(clause.usage.prefix(1)), description: Array(clause.usage.dropFirst()), example: clause.example)
                + (habit ?? "")
        }
        return habit
    }

    /// A statement's or clause's `.help`: its forms, what it does (indented further) and an
    /// example.
    private static func topicText(forms: [String], description: [String], example: String) -> String {
        forms.map { "  " + $0 + "\n" }.joined() + description.map { "    " + $0 + "\n" }.joined()
            + (example.isEmpty ? "" : "  e.g. " + example + "\n")
    }

    private static func line(of command: CommandTable.DotCommandRow) -> String {
        let usage = command.arguments.isEmpty ? command.name : command.name + " " + command.arguments
        return "  " + usage.padding(to: 18) + command.help + "\n"
    }
}
