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
    case backup(file: String, keyFile: String?)
    case copy(target: String, replacing: Bool)
    case applySchema(SchemaSource)
    case dump(models: [String])
    case open(CommandLineOptions)
    case dbinfo
    case verify
    case vacuum
    case output(file: String?)
    case once(file: String)
    case nullValue(String?)
    case parameter(ParameterAction)
    case rekey(NewKey)

    /// Where `.rekey` finds the store's new key.
    enum NewKey: Equatable {
        /// A key file, read as `--key-file` reads one.
        case file(String)
        /// Typed at the terminal, twice, without echo.
        case typed
        /// No key: the store becomes a plain one.
        case plain
    }

    /// What `.param` does to the `$N` bindings.
    enum ParameterAction: Equatable {
        case set(index: Int, value: String)
        case list
        case clear
    }

    /// Parses a dot-command line (leading blanks already removed) by its row in `CommandTable`.
    static func parse(_ line: String) throws(StatementError) -> DotCommand {
        let words = arguments(of: line)
        let name = words.first ?? "."
        guard let row = CommandTable.dotCommand(named: name) else {
            throw StatementError("unknown command '\(name)'; .help lists the commands")
        }
        var rest = Substring(line.drop { $0 == " " || $0 == "\t" }.dropFirst(name.count))
        rest = rest.drop { $0 == " " || $0 == "\t" }
        while let last = rest.last, last == " " || last == "\t" { rest = rest.dropLast() }
        return try row.parse(DotArguments(name: name, values: Array(words.dropFirst()), rest: String(rest)))
    }

    /// Where `.apply-schema` reads its schema.
    enum SchemaSource: Equatable {
        case file(String)
        /// The schema's JSON text, written after the command on its line (as `.dump` does).
        case inline(String)
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
