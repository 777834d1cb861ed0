import Trove

/// The shell's commands, one row each. `DotCommand.parse`, `StatementRecognizer`, `.help`
/// and tab completion all read these rows, so a command is added or renamed in one place.
enum CommandTable {
    /// What tab completion offers for a command's argument.
    enum ArgumentCompletion: Equatable {
        case nothing
        case models
        case modes
        case onOff
        /// One of these words.
        case words([String])
        case files
    }

    /// A dot-command: `.name args`.
    struct DotCommandRow: Sendable {
        /// The name shown by `.help` and offered by completion.
        var name: String
        /// Other names that run it: the first ones are offered by completion too, and
        /// `hiddenAliases` are only accepted.
        var aliases: [String] = []
        var hiddenAliases: [String] = []
        /// The arguments as `.help` shows them after the name.
        var arguments: String = ""
        var help: String
        var completes: ArgumentCompletion = .nothing
        var parse: @Sendable (DotArguments) throws(StatementError) -> DotCommand
    }

    static let dotCommands: [DotCommandRow] = [
        DotCommandRow(name: ".apply-schema", arguments: "FILE|JSON",
                      help: "apply a schema file or JSON text as --schema does",
                      completes: .files, parse: { args throws(StatementError) in
                          guard !args.rest.isEmpty else { throw args.usage("FILE|JSON") }
                          if args.rest.hasPrefix("{") { return .applySchema(.inline(args.rest)) }
                          return .applySchema(.file(try args.one("FILE|JSON")))
                      }),
        DotCommandRow(name: ".backup", arguments: "FILE [KEYFILE]",
                      help: "copy the store to a new FILE (KEYFILE: the copy's key)",
                      completes: .files, parse: { args throws(StatementError) in
                          guard (1...2).contains(args.values.count) else { throw args.usage("FILE [KEYFILE]") }
                          return .backup(file: args.values[0], keyFile: args.values.count == 2 ? args.values[1] : nil)
                      }),
        DotCommandRow(name: ".bail", arguments: "on|off", help: "stop at the first error (scripts only)",
                      completes: .onOff, parse: { args throws(StatementError) in .bail(try args.flag()) }),
        DotCommandRow(name: ".copy", arguments: "TARGET [--replace]",
                      help: "copy every object to a postgres:// URL or FILE",
                      completes: .files, parse: { args throws(StatementError) in
                          let replacing = args.values.contains("--replace")
                          let rest = args.values.filter { $0 != "--replace" }
                          guard rest.count == 1, !rest[0].hasPrefix("-") else { throw args.usage("TARGET [--replace]") }
                          return .copy(target: rest[0], replacing: replacing)
                      }),
        DotCommandRow(name: ".dbinfo", help: "show how the store's file uses its space",
                      parse: { args throws(StatementError) in try args.none(.dbinfo) }),
        DotCommandRow(name: ".dump", arguments: "[MODEL ...]", help: "print statements that rebuild the store (or MODEL's objects)",
                      completes: .models, parse: { args in .dump(models: args.values) }),
        DotCommandRow(name: ".exit", arguments: "[CODE]", help: "leave the shell with status CODE (default 0)",
                      parse: { args throws(StatementError) in
                          guard !args.values.isEmpty else { return .exit(status: 0) }
                          guard let status = Int32(try args.one("[CODE]")) else { throw args.usage("[CODE]") }
                          return .exit(status: status)
                      }),
        DotCommandRow(name: ".headers", hiddenAliases: [".header"], arguments: "on|off",
                      help: "show the header line in table, markdown, csv and tsv modes",
                      completes: .onOff, parse: { args throws(StatementError) in .headers(try args.flag()) }),
        DotCommandRow(name: ".help", arguments: "[TOPIC]", help: "show this help, or a command's or clause's (mode, SORT)",
                      parse: { args throws(StatementError) in
                          guard args.values.count <= 1 else { throw args.usage("[TOPIC]") }
                          return .help(topic: args.values.first)
                      }),
        DotCommandRow(name: ".mode", arguments: "[MODE]", help: "set or show the mode: " + OutputMode.allCases.map(\.rawValue).joined(separator: " "),
                      completes: .modes, parse: { args throws(StatementError) in
                          guard !args.values.isEmpty else { return .mode(nil) }
                          let text = try args.one("MODE")
                          guard let mode = OutputMode(rawValue: text.lowercased()) else {
                              let habit = modeHabit(text).map { " (\($0))" } ?? ""
                              throw StatementError("unknown mode '\(text)'\(habit); modes: " + OutputMode.allCases.map(\.rawValue).joined(separator: ", "))
                          }
                          return .mode(mode)
                      }),
        DotCommandRow(name: ".models", aliases: [".tables"], help: "list the models (also .tables)",
                      parse: { args throws(StatementError) in try args.none(.models) }),
        DotCommandRow(name: ".nullvalue", arguments: "[TEXT]", help: "null as TEXT (none: mode's own); such a string shows quoted",
                      parse: { args throws(StatementError) in
                          guard args.values.count <= 1 else { throw args.usage("[TEXT]") }
                          return .nullValue(args.values.first)
                      }),
        DotCommandRow(name: ".once", arguments: "FILE", help: "send the next command's output to FILE",
                      completes: .files, parse: { args throws(StatementError) in .once(file: try args.one("FILE")) }),
        DotCommandRow(name: ".open", arguments: "[OPTIONS] [FILE]",
                      help: "open another store; options as on the command line",
                      completes: .files, parse: { args throws(StatementError) in
                          let options: CommandLineOptions
                          do throws(UsageError) { options = try CommandLineParser.parse(args.values) } catch { throw StatementError(error.message) }
                          var allowed = CommandLineOptions()
                          allowed.database = options.database
                          allowed.schemaFile = options.schemaFile
                          allowed.keyFile = options.keyFile
                          allowed.readOnly = options.readOnly
                          allowed.resetOnMigration = options.resetOnMigration
                          allowed.busyTimeout = options.busyTimeout
                          guard options == allowed else {
                              throw args.usage("[--readonly] [--schema FILE] [--key-file FILE] [--reset-on-migration] [--timeout MS] [FILE]")
                          }
                          return .open(options)
                      }),
        DotCommandRow(name: ".output", arguments: "[FILE]", help: "send output to FILE, or back to standard output",
                      completes: .files, parse: { args throws(StatementError) in
                          guard args.values.count <= 1 else { throw args.usage("[FILE]") }
                          return .output(file: args.values.first)
                      }),
        DotCommandRow(name: ".param", aliases: [".parameter"], arguments: "set N VALUE, .param list, .param clear",
                      help: "bind $N (as --arg), list, clear",
                      completes: .words(["set", "list", "clear"]), parse: { args throws(StatementError) in
                          let usage = "set N VALUE | list | clear"
                          switch args.values.first?.lowercased() {
                          case "set":
                              guard args.values.count == 3 else { throw args.usage("set N VALUE (quote a VALUE with blanks)") }
                              let name = args.values[1]
                              guard let index = Int(name.hasPrefix("$") ? String(name.dropFirst()) : name), index >= 0 else {
                                  throw StatementError("\(args.name) set: '\(name)' is not a parameter number ($0, $1, ...)",
                                                       at: args.offsets.count > 1 ? args.offsets[1] : nil)
                              }
                              return .parameter(.set(index: index, value: args.values[2]))
                          case "list":
                              guard args.values.count == 1 else { throw args.usage(usage) }
                              return .parameter(.list)
                          case "clear":
                              guard args.values.count == 1 else { throw args.usage(usage) }
                              return .parameter(.clear)
                          default:
                              throw args.usage(usage)
                          }
                      }),
        DotCommandRow(name: ".print", arguments: "TEXT", help: "print TEXT",
                      parse: { args in .print(args.values.joined(separator: " ")) }),
        DotCommandRow(name: ".quit", help: "leave the shell", parse: { args throws(StatementError) in try args.none(.quit) }),
        DotCommandRow(name: ".read", arguments: "FILE", help: "run the statements in FILE",
                      completes: .files, parse: { args throws(StatementError) in .read(file: try args.one("FILE")) }),
        DotCommandRow(name: ".rekey", arguments: "[KEYFILE|--none]",
                      help: "change the store's key (--none: remove it)",
                      completes: .files, parse: { args throws(StatementError) in
                          guard args.values.count <= 1 else { throw args.usage("[KEYFILE|--none]") }
                          guard let value = args.values.first else { return .rekey(.typed) }
                          return .rekey(value == "--none" ? .plain : .file(value))
                      }),
        DotCommandRow(name: ".schema", arguments: "[MODEL]", help: "show the schema of every model, or of MODEL",
                      completes: .models, parse: { args throws(StatementError) in
                          guard args.values.count <= 1 else { throw args.usage("[MODEL]") }
                          return .schema(model: args.values.first)
                      }),
        DotCommandRow(name: ".show", help: "show the current settings", parse: { args throws(StatementError) in try args.none(.show) }),
        DotCommandRow(name: ".timeout", arguments: "MS|wait",
                      help: "wait at most MS ms for another writer (wait: no limit)",
                      completes: .words(["wait"]), parse: { args throws(StatementError) in
                          let text = try args.one("MS|wait")
                          do throws(UsageError) { return .timeout(try BusyTimeout.parse(text)) } catch {
                              throw StatementError("\(args.name): \(error.message)", at: args.offsets.first)
                          }
                      }),
        DotCommandRow(name: ".timer", arguments: "on|off", help: "print each statement's run time on standard error",
                      completes: .onOff, parse: { args throws(StatementError) in .timer(try args.flag()) }),
        DotCommandRow(name: ".vacuum", help: "shrink the file to what its data needs, online",
                      parse: { args throws(StatementError) in try args.none(.vacuum) }),
        DotCommandRow(name: ".verify", help: "check every page of the store; print ok or each problem",
                      parse: { args throws(StatementError) in try args.none(.verify) }),
    ]

    /// What a command another shell takes, typed here out of habit, is here: a dot-command
    /// of sqlite3, a word psql takes at the start of a line, or SQL's SELECT (lowercased; SQL's
    /// habits inside a query are the parser's, `SQLHabit`).
    static let habits: [String: String] = [
        ".import": "import is a statement here: " + (statement("import")?.usage.first ?? "import"),
        ".indexes": ".schema MODEL shows its indexed properties",
        ".indices": ".schema MODEL shows its indexed properties",
        ".separator": "the mode picks the separator: .mode csv for commas, .mode tsv for tabs",
        "quit": ".quit leaves the shell",
        "exit": ".quit leaves the shell",
        "help": ".help lists the commands",
        "select": SQLHabit.select.hint(),
        "\\q": ".quit leaves the shell",
        "\\?": ".help lists the commands",
        "\\h": ".help lists the commands",
        "\\d": ".schema [MODEL] shows the models and their properties",
        "\\dt": ".models lists the models",
        "\\i": ".read FILE runs the statements in FILE",
        "\\o": ".output [FILE] sends the output to FILE",
        "\\copy": "import MODEL FILE and export MODEL FILE read and write CSV, TSV and JSON",
        "\\x": ".mode line prints each value on its own line",
        "\\timing": ".timer on|off",
        "\\pset": ".mode, .headers and .nullvalue set how results print",
    ]

    /// sqlite3's one-dash options that no option here spells, which would otherwise read as
    /// a short option and its value (`-cmd` as `-c md`), by name without the dash.
    static let optionHabits: [String: String] = [
        "cmd": "-c COMMAND runs a command, then trove exits; --init FILE runs statements before the prompt",
        "separator": habits[".separator"]!,
    ]

    /// What an error naming a model adds when the database has none.
    static let noModelsHint = "(the store has no models: open it with --schema FILE, or run .apply-schema FILE)"

    /// Why a clause at the start of a line is no part of the question on the line before.
    static let continuation = "a statement ends at the end of its line unless a quote or a bracket is still open, "
        + "so a question goes on to the next line only inside a bracket left open, as after 'Person GROUP(age) SELECT(age,'"

    /// sqlite3's output modes that are another mode here, by lowercased name: the habits of
    /// `.mode box`, `-box` and `--column`, beside `habits`, which `.help` reads with them.
    static let modeHabits: [String: OutputMode] = ["column": .table, "box": .table, "tabs": .tsv]

    /// What a user typing sqlite3's mode `name` out of habit is told ("sqlite3's box is table
    /// here"); nil for a name with no counterpart.
    static func modeHabit(_ name: String) -> String? {
        modeHabits[name.lowercased()].map { "sqlite3's \(name) is \($0.rawValue) here" }
    }

    /// The dot-command that `name` (as typed, with its dot) runs.
    static func dotCommand(named name: String) -> DotCommandRow? {
        dotCommands.first { $0.name == name || $0.aliases.contains(name) || $0.hiddenAliases.contains(name) }
    }

    /// The dot-command names completion offers.
    static var dotCommandNames: [String] { dotCommands.flatMap { [$0.name] + $0.aliases } }

    /// A statement that starts with a keyword (every other statement is a query, which starts
    /// with its model's name).
    struct StatementRow: Sendable {
        var keyword: String
        /// The forms `.help` lists for it, one line each.
        var usage: [String]
        /// What it does, one line each, and an example: `.help KEYWORD` shows them.
        var description: [String] = []
        var example = ""
        /// Whether the word after the keyword is a model name (completion offers them).
        var takesModel = true
        /// Where it takes a file name, for completion.
        var file: FilePlace = .none
    }

    enum FilePlace {
        case none
        /// Right after the model (`import MODEL FILE`).
        case afterModel
        /// Last, after optional clauses (`export`): offered once the word looks like a path.
        case last
    }

    static let statements: [StatementRow] = [
        StatementRow(keyword: "count", usage: ["count MODEL [where PREDICATE]"],
                     description: ["print how many objects match"],
                     example: "count Car where Origin == 'Japan'"),
        StatementRow(keyword: "sum", usage: ["sum MODEL.KEYPATH [where PREDICATE]   (likewise avg, min, max)"],
                     description: ["print the sum, mean, least or greatest value of the key path over the",
                                   "objects that match; nulls and NaN are skipped; sum is 0 over no value,",
                                   "the others null; min and max also take dates"],
                     example: "avg Car.Miles_per_Gallon where Origin == 'Japan'"),
        StatementRow(keyword: "avg", usage: []),
        StatementRow(keyword: "min", usage: []),
        StatementRow(keyword: "max", usage: []),
        StatementRow(keyword: "get", usage: ["get MODEL PK [PK ...]"],
                     description: ["print the objects with the given primary keys"],
                     example: "get Person 1 2"),
        StatementRow(keyword: "insert", usage: ["insert MODEL JSON"],
                     description: ["insert a JSON object or an array of objects; fails if a primary key exists"],
                     example: #"insert Person {"id": 1, "name": "Ada"}"#),
        StatementRow(keyword: "upsert", usage: ["upsert MODEL JSON"],
                     description: ["create each object, or update only the given properties of the existing",
                                   "one"],
                     example: #"upsert Person {"id": 1, "age": 37}"#),
        StatementRow(keyword: "update", usage: ["update MODEL PK set PROP = VALUE [, PROP = VALUE ...]",
                                                "update MODEL where PREDICATE set PROP = VALUE [, ...]"],
                     description: ["change only the named properties of the objects with the given keys (each",
                                   "must exist), or of those that match; print how many were updated"],
                     example: "update Person where age > 30 set active = true"),
        StatementRow(keyword: "delete", usage: ["delete MODEL PK [PK ...]", "delete MODEL where PREDICATE"],
                     description: ["delete objects and print how many; a key with no object is no error;",
                                   "links to a deleted object become null and lists drop it"],
                     example: "delete Person where age == nil"),
        StatementRow(keyword: "import", usage: ["import MODEL FILE [AS CSV|TSV|JSON] [MERGE]"],
                     description: ["insert the objects of FILE (- is standard input): CSV or TSV by the name's",
                                   "ending or AS, else JSON (an array or JSON lines); MERGE upserts them;",
                                   "at the first bad record nothing is imported"],
                     example: "import Person people.csv MERGE", file: .afterModel),
        StatementRow(keyword: "export", usage: ["export MODEL [where PREDICATE] [FILE]"],
                     description: ["write the matching objects to FILE as import reads them: JSON, CSV or TSV",
                                   "by the name's ending, else JSON lines; without FILE to standard output;",
                                   "a query's clauses may come before FILE, and with SELECT or GROUP the rows",
                                   "are written as a query prints them (import reads them back only as objects)"],
                     example: "export Person where age > 30 adults.csv", file: .last),
        StatementRow(keyword: "explain", usage: ["explain QUERY"],
                     description: ["print how a query (or count, sum, avg, min, max) runs: the access path",
                                   "(scan, index, primary key), the plan's steps, estimated and examined rows"],
                     example: "explain Car where Origin == 'Japan' SORT(Horsepower DESC) LIMIT(3)"),
        StatementRow(keyword: "watch", usage: ["watch QUERY"],
                     description: ["print the query's results, then, after each commit from any process, each",
                                   "change as one JSON line (insert, delete, move, update; an aggregate's new",
                                   "value); Ctrl-C ends it, and a later run's error ends it with status 1"],
                     example: "watch Car GROUP(Origin) SELECT(Origin, @count)"),
        StatementRow(keyword: "begin", usage: ["begin | commit | rollback"],
                     description: ["open, commit or roll back a transaction around several statements; it",
                                   "holds the write lock until it ends, and a write that fails in it fails it"],
                     example: "begin; update Person 1 set age = 37; commit", takesModel: false),
        StatementRow(keyword: "commit", usage: [], takesModel: false),
        StatementRow(keyword: "rollback", usage: [], takesModel: false),
    ]

    /// A clause of a query: `.help` shows its form, what it does and an example.
    struct ClauseRow: Sendable {
        var keyword: String
        /// Its form, then what it does, one line each.
        var usage: [String]
        var example: String
    }

    /// The clauses, in the order a query writes them (`where`, then `QueryParser.clauseKeywords`).
    static let clauses: [ClauseRow] = [
        ClauseRow(keyword: "WHERE", usage: ["where PREDICATE   after MODEL (also in count, sum, update, delete, export)",
                                            "compare with == != < <= > >=, BETWEEN {lo, hi}, IN {a, b}; strings also",
                                            "with BEGINSWITH, ENDSWITH, CONTAINS, LIKE (* ?), MATCHES (ICU regex), and",
                                            "[c] ignores case, [d] diacritics; AND, OR, NOT, parentheses; nil is null;",
                                            "through lists ANY, ALL, NONE (a bare comparison means ANY), dogs.@count,",
                                            "@sum.KP, @avg.KP, @min.KP, @max.KP, SUBQUERY(dogs, $d, P).@count;",
                                            "every rule: trove(1), QUERY LANGUAGE"],
                  example: "Person where name BEGINSWITH[c] 'a' AND ANY dogs.age > 3"),
        ClauseRow(keyword: "GROUP", usage: ["GROUP(KEYPATH, ...)   after where; then SELECT, SORT, OFFSET, LIMIT",
                                            "one row per distinct combination of the key paths' values (null is one);",
                                            "in key order (a link by its target's primary key), unless SORT orders them;",
                                            "without SELECT a row holds the key paths and @count"],
                  example: "Car GROUP(Origin) SELECT(Origin, @avg.Horsepower AS hp) SORT(hp DESC)"),
        ClauseRow(keyword: "SORT", usage: ["SORT(KEYPATH [ASC|DESC], ...)",
                                           "order the results, null first ascending and last descending; without",
                                           "GROUP it orders objects: a property, else a SELECT item's name or text;",
                                           "under GROUP it orders rows: an item's name or text, else a GROUP key",
                                           "path; a name that is one item's name and another's text is an error"],
                  example: "Person SORT(n DESC) LIMIT(3) SELECT(name, dogs.@count AS n)"),
        ClauseRow(keyword: "DISTINCT", usage: ["DISTINCT(KEYPATH, ...)",
                                               "keep the first object of each combination of values, after SORT;",
                                               "key paths only, not SELECT items' names nor aggregates"],
                  example: "Car SORT(Horsepower DESC) DISTINCT(Origin)"),
        ClauseRow(keyword: "OFFSET", usage: ["OFFSET(N)",
                                             "skip the first N results (or groups) after SORT and DISTINCT, before LIMIT;",
                                             "N is an integer from 0 to 9223372036854775807 in the statement, not $0"],
                  example: "Airport where state == 'TX' SORT(iata) OFFSET(50) LIMIT(50)"),
        ClauseRow(keyword: "LIMIT", usage: ["LIMIT(N)", "keep at most N results (or groups); N as for OFFSET"],
                  example: "Car SORT(Horsepower DESC) LIMIT(3)"),
        ClauseRow(keyword: "SELECT", usage: ["SELECT(ITEM [AS NAME], ...)",
                                             "print only the items, in order: key paths (a null link gives null, a",
                                             "list an array), list aggregates such as dogs.@count, and under GROUP",
                                             "@count, @sum.KP, @avg.KP, @min.KP, @max.KP; last, or right after GROUP"],
                  example: "Person where age > 30 SELECT(name, bestFriend.name AS bf, dogs.@count)"),
    ]

    /// The clause `keyword` (in any case).
    static func clause(_ keyword: String) -> ClauseRow? {
        clauses.first { $0.keyword == keyword.uppercased() }
    }

    /// The row whose `.help` text the statement `keyword` shows. A row without lines of its
    /// own shares those of the row before it: `avg`, `min`, `max` those of `sum`; `commit`,
    /// `rollback` those of `begin`.
    static func helpRow(of keyword: String) -> StatementRow? {
        guard var i = statements.firstIndex(where: { $0.keyword == keyword }) else { return nil }
        while statements[i].usage.isEmpty, i > 0 { i -= 1 }
        return statements[i]
    }

    /// The statement that starts with `keyword` (lowercased).
    static func statement(_ keyword: String) -> StatementRow? {
        statements.first { $0.keyword == keyword }
    }
}

/// The arguments of a dot-command, with the checks their parsers share.
struct DotArguments {
    /// The command's name as typed.
    var name: String
    var values: [String]
    /// The text after the name, as typed (for an argument that is not words, such as JSON).
    var rest: String = ""
    /// Where each of `values` starts in the command's line (UTF-8 offsets).
    var offsets: [Int] = []

    /// A misuse of the command, at its first argument or, without one, at the command.
    func usage(_ what: String) -> StatementError {
        StatementError("usage: \(name) \(what)", at: offsets.first ?? 0)
    }

    func none(_ command: DotCommand) throws(StatementError) -> DotCommand {
        guard values.isEmpty else { throw StatementError("\(name) takes no arguments") }
        return command
    }

    func one(_ what: String) throws(StatementError) -> String {
        guard values.count == 1 else { throw usage(what) }
        return values[0]
    }

    func flag() throws(StatementError) -> Bool {
        switch try one("on|off").lowercased() {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: throw usage("on|off")
        }
    }
}
