/// Cuts input lines into complete statements and dot-commands.
///
/// Rules (the contract's, plus comments):
/// - a statement ends at the end of a line unless a quote, `(`, `[` or `{` is still open;
///   then the next line continues it (the REPL shows the continuation prompt);
/// - `;` outside quotes and brackets separates statements on one line;
/// - `--` outside quotes starts a comment that runs to the end of the line (as in SQL);
/// - a line whose first non-blank character is `.` is a dot-command, but only where a new
///   statement could start (inside an unfinished statement it is just text);
/// - a first line starting with `#!` is ignored, so scripts can be executable.
public struct StatementSplitter: Sendable {
    /// What the splitter hands out, in input order.
    public enum Item: Sendable, Equatable {
        case statement(SplitStatement)
        /// A dot-command's line, blanks before it left out (its column says where it starts).
        case dotCommand(SplitStatement)
    }

    private var buffer: [UInt8] = []
    private var startLine = 1
    private var startColumn = 1
    /// An open quote or bracket and its UTF-8 offset in the pending statement's text.
    private typealias Opening = (byte: UInt8, offset: Int)
    private var quote: Opening?
    private var escaped = false
    private var open: [Opening] = []

    public init() {}

    /// True while a statement is unfinished: a quote or bracket is open.
    public var isIncomplete: Bool { quote != nil || !open.isEmpty }

    /// What keeps the pending statement unfinished (`'('`, `the string`) and its UTF-8 offset
    /// in the statement's text, so that an error can place it as it places any other.
    public var unclosed: (what: String, offset: Int)? {
        if let q = quote { return ("the string", q.offset - leadingBlanks) }
        if let b = open.last { return ("'\(String(UnicodeScalar(b.byte)))'", b.offset - leadingBlanks) }
        return nil
    }

    /// Drops an unfinished statement (Ctrl-C in the REPL).
    public mutating func reset() {
        buffer = []
        quote = nil
        escaped = false
        open = []
    }

    /// Feeds one line (without its newline) numbered `number` (1-based) in its source.
    public mutating func feed(line: String, number: Int) -> [Item] {
        // A byte order mark (Windows editors start files with one) is not part of the first line.
        var line = line
        if number == 1, line.unicodeScalars.first == "\u{FEFF}" { line.unicodeScalars.removeFirst() }
        if !isIncomplete, buffer.allSatisfy(StatementScanner.isSpace) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix(".") {
                buffer = []
                return [.dotCommand(SplitStatement(text: String(trimmed), line: number, column: line.count - trimmed.count + 1))]
            }
            if number == 1, line.hasPrefix("#!") { return [] }
        }
        var items: [Item] = []
        if buffer.isEmpty {
            startLine = number
            startColumn = 1
        }
        var column = 0  // in characters, for messages and error positions
        let bytes = Array(line.utf8)
        var i = 0
        scan: while i < bytes.count {
            let b = bytes[i]
            if b & 0xC0 != 0x80 { column += 1 }
            if let q = quote {
                if escaped { escaped = false } else if b == 0x5C { escaped = true } else if b == q.byte { quote = nil }
                buffer.append(b)
                i += 1
                continue
            }
            switch b {
            case 0x22, 0x27:
                quote = (b, buffer.count)
            case 0x28, 0x5B, 0x7B:
                open.append((b, buffer.count))
            case 0x29, 0x5D, 0x7D:
                let opener: UInt8 = b == 0x29 ? 0x28 : b - 2
                if let k = open.lastIndex(where: { $0.byte == opener }) { open.removeSubrange(k...) }
            case 0x2D where i + 1 < bytes.count && bytes[i + 1] == 0x2D:
                break scan
            case 0x3B where open.isEmpty:
                emit(into: &items)
                startLine = number
                startColumn = column + 1
                i += 1
                continue
            default:
                break
            }
            buffer.append(b)
            i += 1
        }
        if isIncomplete {
            buffer.append(0x0A)
        } else {
            emit(into: &items)
        }
        return items
    }

    /// Ends the input: returns the unfinished statement, if any, and resets.
    public mutating func finish() -> SplitStatement? {
        defer { reset() }
        guard isIncomplete else { return nil }
        return pending
    }

    private mutating func emit(into items: inout [Item]) {
        if !buffer.allSatisfy(StatementScanner.isSpace) { items.append(.statement(pending)) }
        buffer = []
    }

    /// The pending statement from its first word, so that a place in it (offset 0: the
    /// statement itself) is the word's, after `;` and indentation too.
    private var pending: SplitStatement {
        let blanks = leadingBlanks
        return SplitStatement(text: String(decoding: buffer.dropFirst(blanks), as: UTF8.self), line: startLine, column: startColumn + blanks)
    }

    private var leadingBlanks: Int { buffer.prefix { $0 == 0x20 || $0 == 0x09 }.count }
}

/// A complete statement and where it starts in its source, so errors can name line and column.
public struct SplitStatement: Sendable, Equatable {
    public var text: String
    /// 1-based line of the statement's first character in its source.
    public var line: Int
    /// 1-based column (in characters) of the statement's first character.
    public var column: Int

    public init(text: String, line: Int = 1, column: Int = 1) {
        self.text = text
        self.line = line
        self.column = column
    }

    /// The source line and column (1-based, in characters) of a UTF-8 offset in `text`.
    public func position(ofOffset offset: Int) -> (line: Int, column: Int) {
        let bytes = Array(text.utf8)
        let end = min(max(offset, 0), bytes.count)
        var line = self.line
        var lineStart = 0
        for i in 0..<end where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        let characters = String(decoding: bytes[lineStart..<end], as: UTF8.self).count
        return (line, line == self.line ? column + characters : characters + 1)
    }
}
