/// A hand-written GNU-style argument parser.
///
/// Options may appear anywhere (arguments are permuted as GNU getopt does) up to a lone
/// `--`, after which every argument is a COMMAND. The first non-option argument is the
/// DATABASE, later ones are COMMANDs. Long options take values as `--opt VALUE` or
/// `--opt=VALUE`; short ones as `-c VALUE` or `-cVALUE`; flags without values cluster
/// (`-h`), and a value-taking short option may end a cluster. A lone `-` is an argument.
public enum CommandLineParser {
    private enum Option: Sendable {
        case flag(@Sendable (inout CommandLineOptions) -> Void)
        case value(@Sendable (inout CommandLineOptions, String) -> Void)
    }

    /// The option `--NAME`. A switch, not a dictionary: a one-shot command builds no table.
    private static func longOption(_ name: String) -> Option? {
        switch name {
        case "command": .value { $0.scripts.append(.command($1)) }
        case "file": .value { $0.scripts.append(.file($1)) }
        case "schema": .value { $0.schemaFile = $1 }
        case "readonly": .flag { $0.readOnly = true }
        case "reset-on-migration": .flag { $0.resetOnMigration = true }
        case "key-file": .value { $0.keyFile = $1 }
        case "timeout": .value { $0.busyTimeout = $1 }
        case "json": .flag { $0.outputMode = .json }
        case "jsonl": .flag { $0.outputMode = .jsonl }
        case "csv": .flag { $0.outputMode = .csv }
        case "tsv": .flag { $0.outputMode = .tsv }
        case "table": .flag { $0.outputMode = .table }
        case "markdown": .flag { $0.outputMode = .markdown }
        case "line": .flag { $0.outputMode = .line }
        case "headers": .flag { $0.showHeaders = true }
        case "no-headers": .flag { $0.showHeaders = false }
        case "nullvalue": .value { $0.nullText = $1 }
        case "init": .value { $0.initFile = $1 }
        case "no-init": .flag { $0.skipInit = true }
        case "bail": .flag { $0.bail = true }
        case "arg": .value { $0.arguments.append($1) }
        case "help": .flag { $0.showHelp = true }
        case "version": .flag { $0.showVersion = true }
        default: nil
        }
    }

    /// The option `-LETTER`: a short name of a long option.
    private static func shortOption(_ letter: Character) -> Option? {
        switch letter {
        case "c": longOption("command")
        case "f": longOption("file")
        case "s": longOption("schema")
        case "h": longOption("help")
        default: nil
        }
    }

    /// Parses the arguments (without the program name).
    public static func parse(_ arguments: [String]) throws(UsageError) -> CommandLineOptions {
        var options = CommandLineOptions()
        var i = 0
        func value(for name: String) throws(UsageError) -> String {
            i += 1
            guard i < arguments.count else { throw UsageError("option '\(name)' needs an argument") }
            return arguments[i]
        }
        while i < arguments.count {
            let argument = arguments[i]
            if argument == "--" {
                for operand in arguments[(i + 1)...] { addOperand(operand, to: &options) }
                break
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name: String
                let inline: String?
                if let eq = body.firstIndex(of: "=") {
                    name = String(body[..<eq])
                    inline = String(body[body.index(after: eq)...])
                } else {
                    name = String(body)
                    inline = nil
                }
                guard let option = longOption(name) else {
                    throw UsageError("unknown option '--\(name)'" + modeHabit(name))
                }
                switch option {
                case .flag(let apply):
                    if inline != nil { throw UsageError("option '--\(name)' takes no argument") }
                    apply(&options)
                case .value(let apply):
                    if let inline { apply(&options, inline) } else { apply(&options, try value(for: "--\(name)")) }
                }
            } else if argument.hasPrefix("-"), argument.count > 1 {
                // sqlite3 spells its long options with one dash (`-csv`, `-header`, `-cmd`):
                // here `-csv` would run the command `sv`.
                let word = String(argument.dropFirst())
                if word.count > 1, let long = longOption(word) != nil ? word : word == "header" ? "headers" : nil {
                    throw UsageError("unknown option '-\(word)'; long options take two dashes: --\(long)")
                }
                if word.count > 1, CommandTable.modeHabit(word) != nil {
                    throw UsageError("unknown option '-\(word)'" + modeHabit(word))
                }
                if let habit = CommandTable.optionHabits[word] {
                    throw UsageError("unknown option '-\(word)'; \(habit)")
                }
                var rest = Substring(argument.dropFirst())
                while let letter = rest.first {
                    rest = rest.dropFirst()
                    guard let option = shortOption(letter) else {
                        throw UsageError("unknown option '-\(letter)'")
                    }
                    switch option {
                    case .flag(let apply):
                        apply(&options)
                    case .value(let apply):
                        if rest.isEmpty { apply(&options, try value(for: "-\(letter)")) } else { apply(&options, String(rest)) }
                        rest = ""
                    }
                }
            } else {
                addOperand(argument, to: &options)
            }
            i += 1
        }
        return options
    }

    /// sqlite3's `-box` or `--column` as an option: " (sqlite3's box is table here: --table)".
    private static func modeHabit(_ name: String) -> String {
        guard let habit = CommandTable.modeHabit(name), let mode = CommandTable.modeHabits[name.lowercased()] else { return "" }
        return " (\(habit): --\(mode.rawValue))"
    }

    /// The first operand is the DATABASE; later ones are COMMANDs, kept in order among `-c`s.
    private static func addOperand(_ operand: String, to options: inout CommandLineOptions) {
        if options.database == nil {
            options.database = operand
        } else {
            options.scripts.append(.command(operand))
        }
    }
}
