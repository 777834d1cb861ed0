import Trove
#if canImport(Glibc)
import Glibc
#endif

/// Tab completion for the REPL: statement keywords and model names at the start,
/// dot-commands and their arguments, model names after a keyword, property names (and,
/// after a `.`, the properties of the linked model) inside a statement, file names where
/// a statement or dot-command takes a file.
struct ShellCompleter {
    /// The models to complete, asked at each Tab so new models show up.
    var models: () -> [ModelDescription]

    static let clauseWords = ["where", "set"] + QueryParser.clauseKeywords.map { $0 + "(" } + [
                              "@count", "@sum.", "@avg.", "@min.", "@max.", "AND", "OR", "NOT",
                              "ASC", "DESC", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES",
                              "IN", "BETWEEN", "ANY", "SOME", "ALL", "NONE", "SUBQUERY(",
                              "TRUEPREDICATE", "FALSEPREDICATE", "nil", "true", "false"]

    func complete(line: String, cursor: Int) -> Completion {
        let bytes = Array(line.utf8.prefix(cursor))
        // The statement being typed starts after the last `;` outside quotes.
        var statementStart = 0
        var quote: UInt8?
        for (i, b) in bytes.enumerated() {
            if let q = quote { if b == q { quote = nil } } else if b == 0x22 || b == 0x27 { quote = b } else if b == 0x3B { statementStart = i + 1 }
        }
        var wordStart = bytes.count
        let isFileByte = { (b: UInt8) in !StatementScanner.isSpace(b) && b != 0x3B && b != 0x22 && b != 0x27 }
        while wordStart > statementStart, isFileByte(bytes[wordStart - 1]) { wordStart -= 1 }
        let before = String(decoding: bytes[statementStart..<wordStart], as: UTF8.self)
        let tokens = before.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let fullWord = String(decoding: bytes[wordStart...], as: UTF8.self)

        if tokens.isEmpty {
            if fullWord.hasPrefix(".") { return Completion(start: wordStart, candidates: Self.match(fullWord, CommandTable.dotCommandNames)) }
            let names = StatementRecognizer.keywords + models().map(\.name)
            return Completion(start: wordStart, candidates: Self.match(fullWord, names))
        }
        let first = tokens[0]
        if first.hasPrefix(".") {
            guard tokens.count == 1 else { return Completion(start: wordStart, candidates: []) }
            switch CommandTable.dotCommand(named: first)?.completes ?? .nothing {
            case .models: return Completion(start: wordStart, candidates: Self.match(fullWord, models().map(\.name)))
            case .modes: return Completion(start: wordStart, candidates: Self.match(fullWord, OutputMode.allCases.map(\.rawValue)))
            case .onOff: return Completion(start: wordStart, candidates: Self.match(fullWord, ["on", "off"]))
            case .words(let words): return Completion(start: wordStart, candidates: Self.match(fullWord, words))
            case .files: return Completion(start: wordStart, candidates: Self.files(matching: fullWord))
            case .nothing: return Completion(start: wordStart, candidates: [])
            }
        }
        let statement = CommandTable.statement(first.lowercased())
        let isKeyword = statement != nil
        if statement != nil, tokens.count == 1, QueryAggregateStatement.words[first.lowercased()] != nil,
           let dot = fullWord.firstIndex(of: ".") {
            // `sum Model.keyPath`: the key path after the model's name.
            return completePath(String(fullWord[fullWord.index(after: dot)...]), model: String(fullWord[..<dot]),
                                prefix: String(fullWord[...dot]), start: wordStart)
        }
        if statement != nil, tokens.count == 2, QueryAggregateStatement.words[first.lowercased()] != nil, fullWord.hasPrefix(".") {
            // `avg Car .Hor`: the key path after a model written apart from it.
            return completePath(String(fullWord.dropFirst()), model: tokens[1], prefix: ".", start: wordStart)
        }
        if statement != nil, tokens.count == 1, QueryAggregateStatement.words[first.lowercased()] != nil {
            // `avg C`: the model, then its key path (`Car.`, no space: the key path follows).
            return Completion(start: wordStart, candidates: Self.match(fullWord, models().map(\.name)).map { $0 + "." })
        }
        if let statement, tokens.count == 1 {
            guard statement.takesModel else { return Completion(start: wordStart, candidates: []) }
            return Completion(start: wordStart, candidates: Self.match(fullWord, models().map(\.name)))
        }
        if let statement, (statement.file == .afterModel && tokens.count == 2)
            || (statement.file == .last && tokens.count >= 2 && fullWord.contains("/")) {
            return Completion(start: wordStart, candidates: Self.files(matching: fullWord))
        }
        if let item = Self.selectItemBefore(bytes[statementStart..<wordStart]) {
            // After a SELECT item only its name can follow (`city AS town`); a name is the user's.
            return Completion(start: wordStart, candidates: item ? Self.match(fullWord, [QueryParser.aliasWord]) : [])
        }
        // Inside a statement: key paths start after an operator or bracket as well.
        var keyStart = bytes.count
        while keyStart > wordStart, let start = StatementScanner.keyPathCharacterStart(bytes, endingAt: keyStart) { keyStart = start }
        let word = String(decoding: bytes[keyStart...], as: UTF8.self)
        var modelName = isKeyword ? tokens[1] : first
        if isKeyword, let dot = modelName.firstIndex(of: ".") { modelName = String(modelName[..<dot]) }
        return completePath(word, model: modelName, prefix: "", start: keyStart, offersClauses: true)
    }

    /// Where `text` (a statement up to the word being completed) ends inside `SELECT(...)`
    /// past the start of an item: true when one item has been written since the last `,`
    /// (`AS` can follow), false after its `AS` or its name; nil elsewhere (at an item's start,
    /// outside SELECT).
    static func selectItemBefore(_ text: ArraySlice<UInt8>) -> Bool? {
        // The innermost open bracket, and where it and the last comma in it are.
        var opens: [Int] = []
        var lastComma: [Int: Int] = [:]
        var quote: UInt8?
        for i in text.indices {
            let b = text[i]
            if let q = quote {
                if b == q { quote = nil }
                continue
            }
            switch b {
            case 0x22, 0x27: quote = b
            case 0x28, 0x5B, 0x7B: opens.append(i)
            case 0x29, 0x5D, 0x7D: if let open = opens.popLast() { lastComma[open] = nil }
            case 0x2C: if let open = opens.last { lastComma[open] = i }
            default: break
            }
        }
        guard let open = opens.last, text[open] == 0x28 else { return nil }
        // The word before `(`: SELECT, in any case.
        var wordEnd = open
        while wordEnd > text.startIndex, StatementScanner.isSpace(text[wordEnd - 1]) { wordEnd -= 1 }
        var wordStart = wordEnd
        while wordStart > text.startIndex, StatementScanner.isWordByte(text[wordStart - 1]) { wordStart -= 1 }
        guard String(decoding: text[wordStart..<wordEnd], as: UTF8.self).uppercased() == "SELECT" else { return nil }
        let item = String(decoding: text[((lastComma[open] ?? open) + 1)...], as: UTF8.self)
        let words = item.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
        if words.isEmpty { return nil }
        return words.count == 1
    }

    /// Key paths of `modelName` completing `word`, each after `prefix`. An aggregate in the
    /// path reads the values of what comes before it: a group aggregate at its start
    /// (`@avg.age`), a list aggregate after a list (`dogs.@`, `dogs.@avg.age`).
    private func completePath(_ word: String, model modelName: String, prefix: String, start: Int, offersClauses: Bool = false) -> Completion {
        let all = models()
        guard var model = all.first(where: { $0.name == modelName }) else {
            return Completion(start: start, candidates: offersClauses ? Self.match(word, Self.clauseWords) : [])
        }
        var path = word.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let last = path.removeLast()
        // Whether `model` is where the path has got to: a list of values ends it.
        var reachesObjects = true
        for component in path where !component.hasPrefix("@") {
            guard reachesObjects, let property = model.properties.first(where: { $0.name == component }) else {
                return Completion(start: start, candidates: [])
            }
            if let target = property.objectType, let next = all.first(where: { $0.name == target }) {
                model = next
            } else {
                reachesObjects = false
            }
        }
        let pathPrefix = prefix + path.map { $0 + "." }.joined()
        if last.hasPrefix("@") {
            guard !path.isEmpty || offersClauses else { return Completion(start: start, candidates: []) }
            let aggregates = Self.clauseWords.filter { $0.hasPrefix("@") }
            return Completion(start: start, candidates: Self.match(last, aggregates).map { pathPrefix + $0 })
        }
        guard reachesObjects, path.last != "@count" else { return Completion(start: start, candidates: []) }
        var candidates = Self.match(last, model.properties.map(\.name)).map { pathPrefix + $0 }
        if offersClauses, path.isEmpty, !last.isEmpty { candidates += Self.match(last, Self.clauseWords) }
        return Completion(start: start, candidates: candidates)
    }

    /// Words starting with `prefix`: case-sensitive matches, else case-insensitive ones
    /// (keywords are case-insensitive, and `per` should still find `Person`).
    static func match(_ prefix: String, _ words: [String]) -> [String] {
        let exact = words.filter { $0.hasPrefix(prefix) }
        let chosen = exact.isEmpty ? words.filter { $0.lowercased().hasPrefix(prefix.lowercased()) } : exact
        var seen: Set<String> = []
        return chosen.filter { seen.insert($0).inserted }.sorted()
    }

    /// Entries of the directory named by `partial` whose names continue it; directories
    /// end in `/`. Hidden files only when asked for with a leading dot.
    static func files(matching partial: String) -> [String] {
        let slash = partial.lastIndex(of: "/")
        let directory = slash.map { String(partial[...$0]) } ?? ""
        let namePrefix = slash.map { String(partial[partial.index(after: $0)...]) } ?? partial
        guard let dir = opendir(directory.isEmpty ? "." : directory) else { return [] }
        defer { closedir(dir) }
        var result: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name != ".", name != "..", name.hasPrefix(namePrefix),
                  !name.hasPrefix(".") || namePrefix.hasPrefix(".") else { continue }
            var st = stat()
            let isDirectory = stat(directory + name, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
            result.append(directory + name + (isDirectory ? "/" : ""))
        }
        return result.sorted()
    }
}
