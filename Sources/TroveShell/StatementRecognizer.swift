import Trove

/// Recognizes the statement kinds of the shell language (see the contract) and cuts them
/// into raw pieces; queries, predicates, JSON and literals stay text for the store's parsers.
/// A query's clauses (`SORT(...)`, `LIMIT(...)`, ...) are the query parser's: the recognizer
/// only finds where a query ends, for `export`'s file name.
///
/// Keywords are case-insensitive; model and property names are case-sensitive.
public enum StatementRecognizer {
    /// The words that start a statement other than a plain query; also offered by completion.
    public static var keywords: [String] { CommandTable.statements.map(\.keyword) }

    /// Recognizes one complete statement (as produced by `StatementSplitter`).
    /// `primaryKey` tells what the schema says of a model's primary key, for the query an
    /// error suggests instead.
    public static func recognize(_ text: String, primaryKey: @escaping (String) -> PrimaryKey = { _ in .unknown }) throws(StatementError) -> ShellStatement {
        var r = Recognizer(text, primaryKey: primaryKey)
        return try r.statement()
    }

    /// What the schema says of a model's primary key, for the query `get` with a clause means.
    public enum PrimaryKey: Sendable, Equatable {
        /// No schema at hand: the query names the key `KEY`, said to stand for it.
        case unknown
        /// The schema has no such model: no query is suggested.
        case noModel
        /// The model has no primary key: `get` is told so, as `get MODEL KEY` is.
        case noKey
        /// The model's primary key.
        case named(String)
    }
}

private struct Recognizer {
    var s: StatementScanner
    let primaryKey: (String) -> StatementRecognizer.PrimaryKey

    init(_ text: String, primaryKey: @escaping (String) -> StatementRecognizer.PrimaryKey) {
        s = StatementScanner(text)
        self.primaryKey = primaryKey
    }

    // MARK: Statements

    mutating func statement() throws(StatementError) -> ShellStatement {
        s.skipSpace()
        guard let word = s.peekWord() else {
            if s.isAtEnd { throw StatementError("empty statement", at: 0) }
            throw expected("a model name or a statement keyword", at: s.position)
        }
        let keyword = s.text(word).lowercased()
        if StatementRecognizer.keywords.contains(keyword), !namesModelQuery(after: word) {
            s.position = word.upperBound
            return try keywordStatement(keyword)
        }
        return .query(try querySpec())
    }

    /// `count where x > 1` queries a model named `count`: a keyword followed by the end,
    /// `where` or a clause cannot start its own statement form (except transactions).
    func namesModelQuery(after word: Range<Int>) -> Bool {
        if CommandTable.statement(s.text(word).lowercased())?.takesModel == false { return false }
        var t = s
        t.position = word.upperBound
        t.skipSpace()
        if t.isAtEnd { return true }
        if t.peekKeyword("where") { return true }
        return clauseKeyword(at: t) != nil
    }

    mutating func keywordStatement(_ keyword: String) throws(StatementError) -> ShellStatement {
        switch keyword {
        case "begin", "commit", "rollback":
            s.skipSpace()
            if s.peekKeyword("transaction") { s.position = s.peekWord()!.upperBound }
            try expectEnd(after: "'\(keyword)'")
            return keyword == "begin" ? .begin : keyword == "commit" ? .commit : .rollback
        case "count":
            let model = try modelName(after: "count")
            s.skipSpace()
            if s.isAtEnd { return .count(model: model, predicate: nil) }
            guard s.peekKeyword("where") else {
                throw expected("'where' or the end of the statement", at: s.position)
            }
            return .count(model: model, predicate: try wherePredicate(upTo: s.bytes.count))
        case "get":
            let model = try modelName(after: "get")
            if let clause = firstClause(from: s.position) {
                var t = s
                t.position = clause
                let keys = s.chunks(in: s.position..<clause)
                let known = primaryKey(model.text)
                if known == .noKey { throw .noPrimaryKey(model.text, at: keys.first?.lowerBound ?? clause) }
                let rewrite = known == .noModel ? ""
                    : ", as in " + query(model.text, key: known, keys: keys.map { s.text($0) }, then: s.text(s.trimmed(clause..<s.bytes.count)))
                throw error("get takes primary keys only; \(clauseKeyword(at: t) ?? "")(...) belongs to a query" + rewrite, at: clause)
            }
            let keys = try keyList(upToSet: false, after: "get \(model.text)")
            return .get(model: model, keys: keys)
        case "insert", "upsert":
            let model = try modelName(after: keyword)
            s.skipSpace()
            guard let b = s.current, b == 0x7B || b == 0x5B else {
                throw expected("a JSON object or array after '\(keyword) \(model.text)'", at: s.position)
            }
            let json = s.fragment(s.trimmed(s.position..<s.bytes.count))
            return keyword == "insert" ? .insert(model: model, json: json) : .upsert(model: model, json: json)
        case "update":
            return try update()
        case "delete":
            let model = try modelName(after: "delete")
            s.skipSpace()
            if s.peekKeyword("where") {
                return .delete(model: model, target: .predicate(try wherePredicate(upTo: s.bytes.count)))
            }
            return .delete(model: model, target: .keys(try keyList(upToSet: false, after: "delete \(model.text)")))
        case "import":
            let model = try modelName(after: "import")
            s.skipSpace()
            if s.isAtEnd { throw expected("a file name (or '-' for standard input)", at: s.position) }
            var end = s.bytes.count
            var merge = false
            var format: ImportFormat?
            if let word = lastWord(s.position..<end), StatementScanner.equalsIgnoringCase(s.bytes[word], "merge") {
                merge = true
                end = word.lowerBound
            }
            if let word = lastWord(s.position..<end), let as_ = lastWord(s.position..<word.lowerBound),
               StatementScanner.equalsIgnoringCase(s.bytes[as_], "as") {
                guard let named = ImportFormat(rawValue: String(decoding: s.bytes[word], as: UTF8.self).lowercased()) else {
                    throw expected("CSV, TSV or JSON after 'AS'", at: word.lowerBound)
                }
                format = named
                end = as_.lowerBound
            }
            if s.trimmed(s.position..<end).isEmpty { throw expected("a file name (or '-' for standard input)", at: s.position) }
            if let extra = textAfterFileName(s.trimmed(s.position..<end)) {
                throw expected("AS CSV|TSV|JSON, MERGE or the end of the statement after the file name (quote a name with blanks)",
                               at: extra)
            }
            let file = fileName(s.position..<end)
            s.position = s.bytes.count
            return .importFile(model: model, file: file, format: format, merge: merge)
        case "export":
            return try export()
        case "sum", "avg", "min", "max":
            // The query parser reads the whole statement, from its first word.
            s.position = 0
            s.skipSpace()
            let start = s.position
            s.position = s.bytes.count
            return .query(QuerySpec(model: s.fragment(word(at: start)), text: s.fragment(s.trimmed(start..<s.bytes.count))))
        case "explain", "watch":
            s.skipSpace()
            if s.isAtEnd { throw expected("a query after '\(keyword)'", at: s.position) }
            if let word = s.peekWord(), case let first = s.text(word).lowercased(),
               first != "count", QueryAggregateStatement.words[first] == nil, CommandTable.statement(first) != nil,
               !namesModelQuery(after: word) {
                let lookup = first == "get" ? "; a key lookup is the query '\(keyword) MODEL where KEY == VALUE'" : ""
                throw error("\(keyword) takes a query (MODEL ..., count, sum, avg, min or max), not '\(s.text(word))'\(lookup)",
                            at: word.lowerBound)
            }
            let spec = try querySpec()
            return keyword == "explain" ? .explain(spec) : .watch(spec)
        default:
            throw error("unknown statement '\(keyword)'", at: 0)
        }
    }

    mutating func update() throws(StatementError) -> ShellStatement {
        let model = try modelName(after: "update")
        s.skipSpace()
        guard let setRange = lastTopLevelSet(from: s.position) else {
            throw expected("'set PROPERTY = VALUE' in update", at: s.bytes.count)
        }
        let target: WriteTarget
        if s.peekKeyword("where") {
            target = .predicate(try wherePredicate(upTo: setRange.lowerBound))
        } else {
            let keys = try keyList(in: s.position..<setRange.lowerBound, after: "update \(model.text)")
            target = .keys(keys)
        }
        let listStart = setRange.upperBound
        var assignments: [Assignment] = []
        for part in s.splitTopLevel(listStart..<s.bytes.count) {
            assignments.append(try assignment(s.trimmed(part), near: part.lowerBound))
        }
        return .update(model: model, target: target, assignments: assignments)
    }

    func assignment(_ range: Range<Int>, near: Int) throws(StatementError) -> Assignment {
        var t = s
        t.position = range.lowerBound
        // `#name`, NSPredicate's escape of a keyword, names the property as predicates take it.
        if t.position < range.upperBound, t.current == 0x23 { t.position += 1 }
        guard let name = t.peekWord(), name.upperBound <= range.upperBound else {
            throw expected("'PROPERTY = VALUE'", at: range.isEmpty ? near : range.lowerBound)
        }
        t.position = name.upperBound
        t.skipSpace()
        guard t.position < range.upperBound, t.current == 0x3D,
              t.position + 1 >= range.upperBound || t.bytes[t.position + 1] != 0x3D else {
            throw expected("'=' after '\(s.text(name))'", at: t.position)
        }
        t.position += 1
        let value = t.trimmed(t.position..<range.upperBound)
        if value.isEmpty { throw expected("a value after '\(s.text(name)) ='", at: value.lowerBound) }
        return Assignment(property: s.fragment(name), value: s.fragment(value))
    }

    /// The last `set` word outside quotes and brackets that an operator does not follow: the
    /// last one, so that a property named `set` may still appear in the predicate, and not
    /// one an operator follows, which is that property (`set set = 3`). When every `set` is
    /// followed by an operator, the property was left out (`set = 3`): the last `set` is the
    /// keyword, so that the error names the missing property where it belongs.
    func lastTopLevelSet(from start: Int) -> Range<Int>? {
        let chunks = s.chunks(in: start..<s.bytes.count)
        let sets = chunks.indices.filter { StatementScanner.equalsIgnoringCase(s.bytes[chunks[$0]], "set") }
        let keyword = sets.last { i in
            guard i + 1 < chunks.count, let next = s.bytes[chunks[i + 1]].first else { return true }
            return !"=!<>".utf8.contains(next)
        }
        return (keyword ?? sets.last).map { chunks[$0] }
    }

    mutating func export() throws(StatementError) -> ShellStatement {
        let model = try modelName(after: "export")
        s.skipSpace()
        var file: SourceFragment?
        var end = s.bytes.count
        if s.peekKeyword("where") {
            let whereEnd = s.peekWord()!.upperBound
            if let clause = firstClause(from: whereEnd) {
                s.position = clause
            } else {
                // No clauses follow, so a file name can only be the predicate's last word:
                // it is one when the word before it completes an operand.
                let chunks = s.chunks(in: whereEnd..<s.bytes.count)
                if chunks.count >= 2, !expectsOperand(chunks[chunks.count - 2]),
                   let first = s.bytes[chunks.last!].first, first != 0x28, first != 0x7B {
                    file = fileName(chunks.last!)
                    end = chunks.last!.lowerBound
                }
                s.position = s.bytes.count
            }
        } else if !s.isAtEnd, clauseKeyword(at: s) == nil {
            let chunks = s.chunks(in: s.position..<s.bytes.count)
            guard chunks.count == 1 else { throw expected("'where', a clause or a file name", at: s.position) }
            return .export(QuerySpec(model: model, text: model), file: fileName(chunks[0]))
        }
        // Clauses, each skipped whole; what follows the last one is the file.
        while true {
            s.skipSpace()
            if s.isAtEnd { break }
            if clauseKeyword(at: s) != nil {
                s.position = s.peekWord()!.upperBound
                s.skipSpace()
                let open = s.position
                guard s.skipGroup() else { throw error("'(' is never closed", at: open) }
                end = s.position
                continue
            }
            let rest = s.chunks(in: s.position..<s.bytes.count)
            guard rest.count == 1 else {
                throw expected(Self.clauseList + " or a file name", at: s.position)
            }
            file = fileName(rest[0])
            end = rest[0].lowerBound
            break
        }
        return .export(QuerySpec(model: model, text: s.fragment(s.trimmed(model.offset..<end))), file: file)
    }

    /// Whether the predicate chunk is an operator or keyword that still needs an operand.
    func expectsOperand(_ chunk: Range<Int>) -> Bool {
        guard let last = s.bytes[chunk].last else { return true }
        if [0x3D, 0x3C, 0x3E, 0x21, 0x26, 0x7C].contains(last) { return true }  // = < > ! & |
        var word = s.text(chunk).lowercased()
        if word.hasSuffix("]"), let open = word.lastIndex(of: "[") { word = String(word[..<open]) }
        return ["where", "and", "or", "not", "between", "in", "beginswith", "endswith", "contains",
                "like", "matches", "any", "some", "all", "none"].contains(word)
    }

    // MARK: Queries

    /// A query: its model, and its text from the model name to the end of the statement.
    mutating func querySpec() throws(StatementError) -> QuerySpec {
        let model = try modelName(after: nil)
        let text = s.trimmed(model.offset..<s.bytes.count)
        s.position = s.bytes.count
        return QuerySpec(model: model, text: s.fragment(text))
    }

    /// The clause words as messages list them: `SORT(...), DISTINCT(...), ...`.
    static let clauseList = QueryParser.clauseKeywords.map { $0 + "(...)" }.joined(separator: ", ")

    /// A clause keyword (`SORT`, `LIMIT`, ...) at the scanner's cursor when an opening
    /// parenthesis follows: a property may be called `limit`, but it is never followed by `(`.
    func clauseKeyword(at scanner: StatementScanner) -> String? {
        guard let word = scanner.peekWord() else { return nil }
        let name = scanner.text(word).uppercased()
        guard QueryParser.clauseKeywords.contains(name) else { return nil }
        var t = scanner
        t.position = word.upperBound
        t.skipSpace()
        return t.current == 0x28 ? name : nil
    }

    /// Offset of the first clause keyword outside quotes and brackets at or after `start`.
    func firstClause(from start: Int) -> Int? {
        var t = s
        t.position = start
        while let b = t.current {
            switch b {
            case 0x22, 0x27: _ = t.skipQuoted()
            case 0x28, 0x5B, 0x7B: _ = t.skipGroup()
            default:
                if StatementScanner.nameCharacterLength(t.bytes, at: t.position, first: true) > 0,
                   StatementScanner.keyPathCharacterStart(t.bytes, endingAt: t.position) == nil {
                    if clauseKeyword(at: t) != nil { return t.position }
                    t.position = t.peekWord()!.upperBound
                } else {
                    t.position += 1
                }
            }
        }
        return nil
    }

    // MARK: Pieces

    /// The word at `start`.
    func word(at start: Int) -> Range<Int> {
        var t = s
        t.position = start
        return t.peekWord() ?? start..<start
    }

    mutating func modelName(after keyword: String?) throws(StatementError) -> SourceFragment {
        s.skipSpace()
        guard let word = s.peekWord() else {
            let context = keyword.map { " after '\($0)'" } ?? ""
            throw expected("a model name\(context)", at: s.position)
        }
        s.position = word.upperBound
        if let b = s.current, !StatementScanner.isSpace(b) {
            // The whole character, not its first byte alone.
            var end = s.position + 1
            while end < s.bytes.count, s.bytes[end] & 0xC0 == 0x80 { end += 1 }
            let character = String(decoding: s.bytes[s.position..<end], as: UTF8.self)
            throw error("unexpected '\(character)' after model name '\(s.text(word))'", at: s.position)
        }
        return s.fragment(word)
    }

    /// Consumes `where PREDICATE` up to `end`; the predicate must not be empty.
    mutating func wherePredicate(upTo end: Int) throws(StatementError) -> SourceFragment {
        let word = s.peekWord()!
        s.position = word.upperBound
        let range = s.trimmed(s.position..<end)
        if range.isEmpty { throw expected("a predicate after 'where'", at: s.trimmed(word.upperBound..<s.bytes.count).lowerBound) }
        s.position = end
        return s.fragment(range)
    }

    /// The query that finds the objects of `model` with primary keys `keys` (as written, commas
    /// between them or a `{...}` list too), then runs `clauses`: `Tag where id IN {'a', 'b'}
    /// LIMIT(1)`. Without the schema, the key's name is `KEY`, said to stand for it.
    func query(_ model: String, key: StatementRecognizer.PrimaryKey, keys written: [String], then clauses: String) -> String {
        let keys = written.map { $0.trimmingCommas() }.filter { !$0.isEmpty }
        let condition = if keys.count == 1, let list = keys.first, list.hasPrefix("{"), list.hasSuffix("}") { "IN \(list)" }
            else if keys.count > 1 { "IN {\(keys.joined(separator: ", "))}" }
            else { "== \(keys.first ?? "VALUE")" }
        guard case .named(let name) = key else { return "\(model) where KEY \(condition) \(clauses) (KEY being \(model)'s primary key)" }
        return "\(model) where \(name) \(condition) \(clauses)"
    }

    mutating func keyList(upToSet: Bool, after context: String) throws(StatementError) -> [SourceFragment] {
        let keys = try keyList(in: s.position..<s.bytes.count, after: context)
        s.position = s.bytes.count
        return keys
    }

    func keyList(in range: Range<Int>, after context: String) throws(StatementError) -> [SourceFragment] {
        let chunks = s.chunks(in: range)
        if chunks.isEmpty { throw expected("a primary key after '\(context)'", at: s.trimmed(range).lowerBound) }
        for chunk in chunks {
            if let first = s.bytes[chunk].first, first == 0x22 || first == 0x27 {
                var t = s
                t.position = chunk.lowerBound
                if !t.skipQuoted() || t.position != chunk.upperBound {
                    throw error("unterminated or malformed string", at: chunk.lowerBound)
                }
            }
        }
        return chunks.map { s.fragment($0) }
    }

    /// A file argument: the quotes of a quoted name are removed (backslash escapes apply).
    /// The range of the last word of `range` when a blank comes before it (so that it is not
    /// the whole of a file name).
    func lastWord(_ range: Range<Int>) -> Range<Int>? {
        let r = s.trimmed(range)
        var lo = r.upperBound
        while lo > r.lowerBound, StatementScanner.isWordByte(s.bytes[lo - 1]) { lo -= 1 }
        guard lo < r.upperBound, lo > r.lowerBound, StatementScanner.isSpace(s.bytes[lo - 1]) else { return nil }
        return lo..<r.upperBound
    }

    /// Where text starts after the first file name in `range` (one word, or a quoted name),
    /// or nil when the name is all there is.
    func textAfterFileName(_ range: Range<Int>) -> Int? {
        var t = s
        t.position = range.lowerBound
        if let b = t.current, b == 0x22 || b == 0x27 {
            _ = t.skipQuoted()
        } else {
            while let b = t.current, t.position < range.upperBound, !StatementScanner.isSpace(b) { t.position += 1 }
        }
        t.skipSpace()
        return t.position < range.upperBound ? t.position : nil
    }

    func fileName(_ range: Range<Int>) -> SourceFragment {
        let r = s.trimmed(range)
        let raw = s.bytes[r]
        guard let q = raw.first, q == 0x22 || q == 0x27, raw.count >= 2, raw.last == q else {
            return s.fragment(r)
        }
        var out: [UInt8] = []
        var i = r.lowerBound + 1
        while i < r.upperBound - 1 {
            if s.bytes[i] == 0x5C, i + 1 < r.upperBound - 1 { i += 1 }
            out.append(s.bytes[i])
            i += 1
        }
        return SourceFragment(String(decoding: out, as: UTF8.self), offset: r.lowerBound)
    }

    mutating func expectEnd(after context: String) throws(StatementError) {
        s.skipSpace()
        if !s.isAtEnd { throw error("unexpected text after \(context)", at: s.position) }
    }

    /// An error at `offset`.
    func error(_ message: String, at offset: Int) -> StatementError {
        StatementError(message, at: offset)
    }

    /// "expected WHAT" at `offset`, saying what was found there instead.
    func expected(_ what: String, at offset: Int) -> StatementError {
        let message = "expected " + what
        guard offset < s.bytes.count else {
            return StatementError(message + ", found the end of the statement", at: offset)
        }
        var t = s
        t.position = offset
        if StatementScanner.keyPathCharacterLength(s.bytes, at: offset) > 0 {
            while case let n = StatementScanner.keyPathCharacterLength(t.bytes, at: t.position), n > 0 { t.position += n }
        } else {
            t.skipChunk()
        }
        var text = s.text(offset..<max(t.position, offset + 1))
        if text.count > 20 { text = String(text.prefix(20)) + "…" }
        return StatementError(message + ", found '\(text)'", at: offset)
    }
}

private extension String {
    /// The text without the commas that separate it from keys before and after it.
    func trimmingCommas() -> String {
        var text = Substring(self)
        while text.first == "," { text = text.dropFirst() }
        while text.last == "," { text = text.dropLast() }
        return String(text)
    }
}
