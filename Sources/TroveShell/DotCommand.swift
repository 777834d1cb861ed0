/// A meta-command of the shell, written `.name args` at the start of a line; they work in
/// every mode and never reach the store's statement language.
enum DotCommand: Equatable {
    /// `.help [TOPIC]`: everything, or the lines of the commands and statements named TOPIC.
    case help(topic: String?)
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
    /// `.timeout MS|wait`; nil: wait.
    case timeout(Duration?)
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
        let words = self.words(of: line)
        let name = words.first?.text ?? "."
        guard let row = CommandTable.dotCommand(named: name) else {
            let instead = CommandTable.habits[name].map { "; \($0)" } ?? "; .help lists the commands"
            throw StatementError("unknown command '\(name)'" + instead, at: 0)
        }
        var rest = Substring(line.drop { $0 == " " || $0 == "\t" }.dropFirst(name.count))
        rest = rest.drop { $0 == " " || $0 == "\t" }
        while let last = rest.last, last == " " || last == "\t" { rest = rest.dropLast() }
        let arguments = words.dropFirst()
        return try row.parse(DotArguments(name: name, values: arguments.map(\.text), rest: String(rest),
                                          offsets: arguments.map(\.offset)))
    }

    /// Where an error of the command `line` stands when it names no place: at its first
    /// argument (the file that cannot be read, the model that does not exist); nil for a
    /// command without arguments, whose failure has no place in its line.
    static func errorOffset(in line: String) -> Int? {
        words(of: line).dropFirst().first?.offset
    }

    /// Where `.apply-schema` reads its schema.
    enum SchemaSource: Equatable {
        case file(String)
        /// The schema's JSON text, written after the command on its line (as `.dump` does).
        case inline(String)
    }

    /// Words separated by blanks, each with the UTF-8 offset where it starts; single or
    /// double quotes group words (`.read 'my file'`).
    static func words(of line: String) -> [(text: String, offset: Int)] {
        var words: [(text: String, offset: Int)] = []
        var current = ""
        var start = 0
        var offset = 0
        var quote: Character?
        var inWord = false
        for c in line {
            defer { offset += c.utf8.count }
            if let q = quote {
                if c == q { quote = nil } else { current.append(c) }
            } else if c == "'" || c == "\"" {
                quote = c
                if !inWord { start = offset }
                inWord = true
            } else if c == " " || c == "\t" {
                if inWord { words.append((current, start)) }
                current = ""
                inWord = false
            } else {
                current.append(c)
                if !inWord { start = offset }
                inWord = true
            }
        }
        if inWord { words.append((current, start)) }
        return words
    }
}
