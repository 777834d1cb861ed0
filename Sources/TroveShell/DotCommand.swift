/// A meta-command of the shell, written `.name args` at the start of a line; they work in
/// every mode and never reach the store's statement language.
enum DotCommand: Equatable {
    case help
    case models
    case schema(model: String?)
    case mode(OutputMode?)
    case headers(Bool)
    case timer(Bool)
    case bail(Bool)
    case read(file: String)
    case quit
    case exit(status: Int32)
    case print(String)
    case show
    case backup(file: String)
    case dbinfo
    case verify

    /// The names, for completion and `.help`.
    static let names = [".backup", ".bail", ".dbinfo", ".exit", ".headers", ".help", ".mode", ".models",
                        ".print", ".quit", ".read", ".schema", ".show", ".tables", ".timer", ".verify"]

    /// Parses a dot-command line (leading blanks already removed).
    static func parse(_ line: String) throws(StatementError) -> DotCommand {
        let words = arguments(of: line)
        let name = words.first ?? "."
        let args = Array(words.dropFirst())
        func noArguments(_ command: DotCommand) throws(StatementError) -> DotCommand {
            guard args.isEmpty else { throw StatementError("\(name) takes no arguments") }
            return command
        }
        func one(_ what: String) throws(StatementError) -> String {
            guard args.count == 1 else { throw StatementError("usage: \(name) \(what)") }
            return args[0]
        }
        func flag() throws(StatementError) -> Bool {
            switch try one("on|off").lowercased() {
            case "on", "yes", "true", "1": return true
            case "off", "no", "false", "0": return false
            default: throw StatementError("usage: \(name) on|off")
            }
        }
        switch name {
        case ".help": return try noArguments(.help)
        case ".models", ".tables": return try noArguments(.models)
        case ".schema":
            guard args.count <= 1 else { throw StatementError("usage: .schema [MODEL]") }
            return .schema(model: args.first)
        case ".mode":
            guard !args.isEmpty else { return .mode(nil) }
            let text = try one("MODE")
            guard let mode = OutputMode(rawValue: text.lowercased()) else {
                throw StatementError("unknown mode '\(text)'; modes: " + OutputMode.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return .mode(mode)
        case ".headers", ".header": return .headers(try flag())
        case ".timer": return .timer(try flag())
        case ".bail": return .bail(try flag())
        case ".read": return .read(file: try one("FILE"))
        case ".quit": return try noArguments(.quit)
        case ".exit":
            guard !args.isEmpty else { return .exit(status: 0) }
            guard let status = Int32(try one("[CODE]")) else { throw StatementError("usage: .exit [CODE]") }
            return .exit(status: status)
        case ".print": return .print(args.joined(separator: " "))
        case ".show": return try noArguments(.show)
        case ".backup": return .backup(file: try one("FILE"))
        case ".dbinfo": return try noArguments(.dbinfo)
        case ".verify": return try noArguments(.verify)
        default:
            throw StatementError("unknown command '\(name)'; .help lists the commands")
        }
    }

    /// Words separated by blanks; single or double quotes group words (`.read 'my file'`).
    static func arguments(of line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for c in line {
            if let q = quote {
                if c == q { quote = nil } else { current.append(c) }
            } else if c == "'" || c == "\"" {
                quote = c
                inWord = true
            } else if c == " " || c == "\t" {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(c)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }
}
