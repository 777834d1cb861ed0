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

    private static let longOptions: [String: Option] = [
        "command": .value { $0.scripts.append(.command($1)) },
        "file": .value { $0.scripts.append(.file($1)) },
        "schema": .value { $0.schemaFile = $1 },
        "readonly": .flag { $0.readOnly = true },
        "reset-on-migration": .flag { $0.resetOnMigration = true },
        "key-file": .value { $0.keyFile = $1 },
        "timeout": .value { $0.busyTimeout = $1 },
        "json": .flag { $0.outputMode = .json },
        "jsonl": .flag { $0.outputMode = .jsonl },
        "csv": .flag { $0.outputMode = .csv },
        "tsv": .flag { $0.outputMode = .tsv },
        "table": .flag { $0.outputMode = .table },
        "markdown": .flag { $0.outputMode = .markdown },
        "line": .flag { $0.outputMode = .line },
        "headers": .flag { $0.showHeaders = true },
        "no-headers": .flag { $0.showHeaders = false },
        "nullvalue": .value { $0.nullText = $1 },
        "init": .value { $0.initFile = $1 },
        "no-init": .flag { $0.skipInit = true },
        "bail": .flag { $0.bail = true },
        "arg": .value { $0.arguments.append($1) },
        "help": .flag { $0.showHelp = true },
        "version": .flag { $0.showVersion = true },
    ]

    private static let shortOptions: [Character: Option] = [
        "c": longOptions["command"]!,
        "f": longOptions["file"]!,
        "s": longOptions["schema"]!,
        "h": longOptions["help"]!,
    ]

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
                guard let option = longOptions[name] else {
                    throw UsageError("unknown option '--\(name)'")
                }
                switch option {
                case .flag(let apply):
                    if inline != nil { throw UsageError("option '--\(name)' takes no argument") }
                    apply(&options)
                case .value(let apply):
                    if let inline { apply(&options, inline) } else { apply(&options, try value(for: "--\(name)")) }
                }
            } else if argument.hasPrefix("-"), argument.count > 1 {
                // sqlite3 spells its long options with one dash (`-csv`, `-header`): here
                // `-csv` would run the command `sv`.
                let word = String(argument.dropFirst())
                if word.count > 1, let long = longOptions[word] != nil ? word : word == "header" ? "headers" : nil {
                    throw UsageError("unknown option '-\(word)'; long options take two dashes: --\(long)")
                }
                var rest = Substring(argument.dropFirst())
                while let letter = rest.first {
                    rest = rest.dropFirst()
                    guard let option = shortOptions[letter] else {
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

    /// The first operand is the DATABASE; later ones are COMMANDs, kept in order among `-c`s.
    private static func addOperand(_ operand: String, to options: inout CommandLineOptions) {
        if options.database == nil {
            options.database = operand
        } else {
            options.scripts.append(.command(operand))
        }
    }
}
