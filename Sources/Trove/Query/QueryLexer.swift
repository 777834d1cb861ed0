/// Splits a statement into `QueryToken`s.
///
/// The lexer works on the UTF-8 bytes of the statement and tracks line and column as it goes,
/// so positions cost nothing extra. It recognises every token of the language but knows no
/// grammar: whether `sort` is a keyword or a property name is for the parser to decide.
package struct QueryLexer: Sendable {
    /// The statement being read.
    package let text: String
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var column = 1

    package init(_ text: String) {
        self.text = text
        self.bytes = Array(text.utf8)
    }

    /// Every token of `text`, ending with an `.end` token.
    package static func tokenize(_ text: String) throws(QueryError) -> [QueryToken] {
        var lexer = QueryLexer(text)
        var tokens: [QueryToken] = []
        repeat {
            tokens.append(try lexer.next())
        } while tokens.last?.kind != .end
        return tokens
    }

    /// The position of the next byte to read.
    package var location: QuerySourceLocation { QuerySourceLocation(offset: index, line: line, column: column) }

    /// The source text of `range`.
    package func text(of range: QuerySourceRange) -> String {
        let offsets = range.utf8Offsets.clamped(to: 0..<bytes.count)
        return String(decoding: bytes[offsets], as: UTF8.self)
    }

    /// The name an identifier or variable token stands for: its text without a leading `#` or `$`.
    package func name(of token: QueryToken) -> String {
        var offsets = token.range.utf8Offsets.clamped(to: 0..<bytes.count)
        if let first = offsets.first, bytes[first] == UInt8(ascii: "#") || bytes[first] == UInt8(ascii: "$") {
            offsets = offsets.dropFirst()
        }
        return String(decoding: bytes[offsets], as: UTF8.self)
    }

    /// Reads the next token; at the end of the text, returns `.end` tokens forever.
    package mutating func next() throws(QueryError) -> QueryToken {
        skipWhitespace()
        let start = location
        guard index < bytes.count else { return QueryToken(kind: .end, range: QuerySourceRange(at: start)) }
        let byte = bytes[index]
        let kind: QueryToken.Kind
        switch byte {
        case UInt8(ascii: "("): advance(); kind = .leftParen
        case UInt8(ascii: ")"): advance(); kind = .rightParen
        case UInt8(ascii: "{"): advance(); kind = .leftBrace
        case UInt8(ascii: "}"): advance(); kind = .rightBrace
        case UInt8(ascii: ","): advance(); kind = .comma
        case UInt8(ascii: "."): advance(); kind = .dot
        case UInt8(ascii: "="):
            advance()
            if consume("=") { kind = .equal }
            else if consume("<") { kind = .lessOrEqual }
            else if consume(">") { kind = .greaterOrEqual }
            else { kind = .equal }
        case UInt8(ascii: "!"):
            advance()
            kind = consume("=") ? .notEqual : .bang
        case UInt8(ascii: "<"):
            advance()
            if consume("=") { kind = .lessOrEqual } else if consume(">") { kind = .notEqual } else { kind = .less }
        case UInt8(ascii: ">"):
            advance()
            kind = consume("=") ? .greaterOrEqual : .greater
        case UInt8(ascii: "&"):
            advance()
            guard consume("&") else { throw error(.unexpectedCharacter, "expected '&&', found a single '&'", at: start) }
            kind = .ampersands
        case UInt8(ascii: "|"):
            advance()
            guard consume("|") else { throw error(.unexpectedCharacter, "expected '||', found a single '|'", at: start) }
            kind = .bars
        case UInt8(ascii: "'"), UInt8(ascii: "\""):
            kind = .string(try lexString(start: start))
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            kind = try lexNumber(start: start, negative: false)
        case UInt8(ascii: "-"):
            guard index + 1 < bytes.count, isDigit(bytes[index + 1]) else {
                throw error(.unexpectedCharacter, "expected a number after '-'", at: start)
            }
            advance()
            kind = try lexNumber(start: start, negative: true)
        case UInt8(ascii: "$"):
            kind = try lexDollar(start: start)
        case UInt8(ascii: "@"):
            kind = try lexAggregate(start: start)
        case UInt8(ascii: "["):
            kind = try lexModifier(start: start)
        case UInt8(ascii: "#"):
            advance()
            guard scanIdentifier() else {
                throw error(.unexpectedCharacter, "expected a name after '#'", at: start)
            }
            kind = .identifier
        default:
            if scanIdentifier() {
                if let keyword = QueryKeyword(utf8: bytes[start.offset..<index]) {
                    kind = .keyword(keyword)
                } else {
                    kind = .identifier
                }
            } else {
                let scalar = decodeScalar(at: index)
                throw error(.unexpectedCharacter, "unexpected character '\(Self.printable(scalar))'", at: start)
            }
        }
        return QueryToken(kind: kind, range: QuerySourceRange(start: start, end: location))
    }

    // MARK: Bytes

    @inline(__always)
    private mutating func advance() {
        let byte = bytes[index]
        index += 1
        if byte == 0x0A {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            // Continuation bytes belong to the scalar already counted.
            column += 1
        }
    }

    /// Advances past all the bytes of the scalar at the current index.
    private mutating func advanceScalar() {
        advance()
        while index < bytes.count, bytes[index] & 0xC0 == 0x80 { index += 1 }
    }

    @inline(__always)
    private mutating func consume(_ ascii: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: ascii) else { return false }
        advance()
        return true
    }

    private func decodeScalar(at offset: Int) -> Unicode.Scalar {
        var iterator = bytes[offset...].makeIterator()
        var decoder = UTF8()
        if case .scalarValue(let scalar) = decoder.decode(&iterator) { return scalar }
        return "\u{FFFD}"
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C {
                advance()
            } else if byte >= 0x80, decodeScalar(at: index).properties.isWhitespace {
                advanceScalar()
            } else {
                return
            }
        }
    }

    /// Reads a name (``SchemaName``'s letters, digits and `_`); false, having read nothing,
    /// when none starts here.
    private mutating func scanIdentifier() -> Bool {
        guard index < bytes.count else { return false }
        let first = bytes[index]
        if first < 0x80 {
            guard SchemaName.isStart(Unicode.Scalar(first)) else { return false }
            advance()
        } else {
            guard SchemaName.isStart(decodeScalar(at: index)) else { return false }
            advanceScalar()
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                guard SchemaName.isContinuation(Unicode.Scalar(byte)) else { break }
                advance()
            } else {
                guard SchemaName.isContinuation(decodeScalar(at: index)) else { break }
                advanceScalar()
            }
        }
        return true
    }

    // MARK: Literals

    private mutating func lexNumber(start: QuerySourceLocation, negative: Bool) throws(QueryError) -> QueryToken.Kind {
        let digitsStart = index
        if bytes[index] == UInt8(ascii: "0"), index + 1 < bytes.count, bytes[index + 1] | 0x20 == UInt8(ascii: "x") {
            advance(); advance()
            var magnitude: UInt64 = 0
            var count = 0
            while index < bytes.count, let digit = Self.hexValue(bytes[index]) {
                let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: 16)
                guard !overflow else { throw numberError("hexadecimal literal does not fit in 64 bits", start) }
                magnitude = shifted | UInt64(digit)
                count += 1
                advance()
            }
            guard count > 0 else { throw numberError("expected hexadecimal digits after '0x'", start) }
            try rejectTrailingLetters(start)
            guard let value = Self.signed(magnitude, negative: negative) else {
                throw numberError("hexadecimal literal does not fit in 64 bits", start)
            }
            return .integer(value)
        }
        while index < bytes.count, isDigit(bytes[index]) { advance() }
        var isInteger = true
        // A dot belongs to the number only when a digit follows: `1.5`, but not `1.` .
        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "."), isDigit(bytes[index + 1]) {
            isInteger = false
            advance()
            while index < bytes.count, isDigit(bytes[index]) { advance() }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            advance()
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { advance() }
            guard index < bytes.count, isDigit(bytes[index]) else { throw numberError("expected digits in the exponent", start) }
            while index < bytes.count, isDigit(bytes[index]) { advance() }
        }
        try rejectTrailingLetters(start)
        if isInteger {
            var magnitude: UInt64 = 0
            var fits = true
            for byte in bytes[digitsStart..<index] where fits {
                let (product, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = product.addingReportingOverflow(UInt64(byte - 0x30))
                fits = !overflow1 && !overflow2
                magnitude = sum
            }
            // A longer integer is still a number: a decimal holds it exactly, a double nearly.
            if fits, let value = Self.signed(magnitude, negative: negative) { return .integer(value) }
        }
        let text = String(decoding: bytes[start.offset..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw numberError("number literal is out of range", start)
        }
        return .double(value)
    }

    private static func signed(_ magnitude: UInt64, negative: Bool) -> Int64? {
        if negative {
            if magnitude == UInt64(Int64.max) + 1 { return Int64.min }
            return magnitude <= UInt64(Int64.max) ? -Int64(magnitude) : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `12abc` is one malformed number, not a number followed by a name.
    private mutating func rejectTrailingLetters(_ start: QuerySourceLocation) throws(QueryError) {
        guard scanIdentifier() else { return }
        let text = String(decoding: bytes[start.offset..<index], as: UTF8.self)
        throw numberError("malformed number '\(Self.truncated(text))'", start)
    }

    private func numberError(_ message: String, _ start: QuerySourceLocation) -> QueryError {
        error(.invalidNumber, message, at: start)
    }

    private mutating func lexString(start: QuerySourceLocation) throws(QueryError) -> String {
        let quote = bytes[index]
        advance()
        let contentStart = index
        // Most strings have no escapes: slice them in one go.
        while index < bytes.count, bytes[index] != quote, bytes[index] != UInt8(ascii: "\\") { advance() }
        guard index < bytes.count else { throw unterminated(start) }
        if bytes[index] == quote {
            let value = String(decoding: bytes[contentStart..<index], as: UTF8.self)
            advance()
            return value
        }
        var decoded = Array(bytes[contentStart..<index])
        while index < bytes.count, bytes[index] != quote {
            guard bytes[index] == UInt8(ascii: "\\") else {
                decoded.append(bytes[index])
                advance()
                continue
            }
            let escapeStart = location
            advance()
            guard index < bytes.count else { throw unterminated(start) }
            let escaped = bytes[index]
            switch escaped {
            case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "\\"):
                decoded.append(escaped)
                advance()
            case UInt8(ascii: "n"):
                decoded.append(0x0A)
                advance()
            case UInt8(ascii: "t"):
                decoded.append(0x09)
                advance()
            case UInt8(ascii: "u"):
                advance()
                let scalar = try lexUnicodeEscape(escapeStart)
                decoded.append(contentsOf: String(Character(scalar)).utf8)
            default:
                let scalar = decodeScalar(at: index)
                throw error(
                    .invalidEscape,
                    "unknown escape '\\\(Self.printable(scalar))' (write '\\\\' for a backslash)",
                    at: escapeStart
                )
            }
        }
        guard index < bytes.count else { throw unterminated(start) }
        advance()
        return String(decoding: decoded, as: UTF8.self)
    }

    /// Reads the `XXXX` of `\uXXXX`, and the low half of a surrogate pair written as two escapes.
    private mutating func lexUnicodeEscape(_ escapeStart: QuerySourceLocation) throws(QueryError) -> Unicode.Scalar {
        let high = try lexHex4(escapeStart)
        if (0xDC00...0xDFFF).contains(high) {
            throw error(.invalidEscape, "unpaired low surrogate in '\\u' escape", at: escapeStart)
        }
        guard (0xD800...0xDBFF).contains(high) else { return Unicode.Scalar(high)! }
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
            throw error(.invalidEscape, "high surrogate in '\\u' escape must be followed by a low surrogate escape", at: escapeStart)
        }
        let lowStart = location
        advance(); advance()
        let low = try lexHex4(lowStart)
        guard (0xDC00...0xDFFF).contains(low) else {
            throw error(.invalidEscape, "high surrogate in '\\u' escape must be followed by a low surrogate escape", at: lowStart)
        }
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
    }

    private mutating func lexHex4(_ escapeStart: QuerySourceLocation) throws(QueryError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = Self.hexValue(bytes[index]) else {
                throw error(.invalidEscape, "expected four hexadecimal digits after '\\u'", at: escapeStart)
            }
            value = value << 4 | UInt32(digit)
            advance()
        }
        return value
    }

    private func unterminated(_ start: QuerySourceLocation) -> QueryError {
        error(.unterminatedString, "unterminated string literal", at: start)
    }

    // MARK: Other tokens

    private mutating func lexDollar(start: QuerySourceLocation) throws(QueryError) -> QueryToken.Kind {
        advance()
        if index < bytes.count, isDigit(bytes[index]) {
            var value = 0
            while index < bytes.count, isDigit(bytes[index]) {
                value = value * 10 + Int(bytes[index] - 0x30)
                // No statement binds anywhere near this many arguments.
                guard value <= 1_000_000 else { throw error(.invalidParameter, "parameter number is too large", at: start) }
                advance()
            }
            if scanIdentifier() { throw error(.invalidParameter, "malformed parameter; expected '$' and digits", at: start) }
            return .parameter(value)
        }
        guard scanIdentifier() else {
            throw error(.invalidParameter, "expected a parameter number or a variable name after '$'", at: start)
        }
        return .variable
    }

    private mutating func lexAggregate(start: QuerySourceLocation) throws(QueryError) -> QueryToken.Kind {
        advance()
        let nameStart = index
        guard scanIdentifier() else { throw error(.invalidAggregate, "expected a collection operator name after '@'", at: start) }
        let name = bytes[nameStart..<index]
        for function in AggregateFunction.allCases
        where function.rawValue.utf8.dropFirst().elementsEqual(name.lazy.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }) {
            return .aggregate(function)
        }
        throw error(
            .invalidAggregate,
            "unknown collection operator '@\(Self.truncated(String(decoding: name, as: UTF8.self)))'; expected @count, @size, @sum, @avg, @min or @max",
            at: start
        )
    }

    private mutating func lexModifier(start: QuerySourceLocation) throws(QueryError) -> QueryToken.Kind {
        advance()
        var options: StringComparisonOptions = []
        while index < bytes.count, bytes[index] != UInt8(ascii: "]") {
            switch bytes[index] | 0x20 {
            case UInt8(ascii: "c") where !options.contains(.caseInsensitive): options.insert(.caseInsensitive)
            case UInt8(ascii: "d") where !options.contains(.diacriticInsensitive): options.insert(.diacriticInsensitive)
            default: throw error(.invalidModifier, "unknown modifier; expected [c], [d] or [cd]", at: start)
            }
            advance()
        }
        guard index < bytes.count, !options.isEmpty else {
            throw error(.invalidModifier, "unknown modifier; expected [c], [d] or [cd]", at: start)
        }
        advance()
        return .modifier(options)
    }

    // MARK: Errors

    private func error(_ kind: QueryError.Kind, _ message: String, at location: QuerySourceLocation) -> QueryError {
        QueryError(kind, message, at: location, in: text)
    }

    static func printable(_ scalar: Unicode.Scalar) -> String {
        scalar.value < 0x20 || scalar.value == 0x7F ? "\\u" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4) : String(scalar)
    }

    /// Keeps messages readable when they quote a long piece of the statement.
    static func truncated(_ text: String, limit: Int = 24) -> String {
        text.count <= limit ? text : String(text.prefix(limit)) + "..."
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
