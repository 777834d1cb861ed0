/// A JSON text that cannot be read, with the position of the problem.
///
/// `line` and `column` are 1-based; columns count Unicode scalars, so they match what an
/// editor shows for UTF-8 text. When the error comes from a ``JSONStreamReader``, `record`
/// is the 1-based number of the value being read.
public struct JSONError: DescribedError, Sendable, Equatable {
    /// What is wrong.
    public enum Reason: Sendable, Equatable {
        /// The input ended where `expected` was still required.
        case unexpectedEndOfInput(expected: String)
        /// `found` (a quoted character or a byte description) stands where `expected` was required.
        case unexpectedCharacter(found: String, expected: String)
        /// A word that starts like `true`, `false` or `null` but is not.
        case invalidLiteral(expected: String)
        /// A number that breaks the JSON grammar; the associated text says how.
        case invalidNumber(String)
        /// A number too large in magnitude for a `Double`.
        case numberOutOfRange
        /// A bad backslash escape in a string; the associated text says how.
        case invalidEscape(String)
        /// Bytes that are not well-formed UTF-8.
        case invalidUTF8
        /// A control character (U+0000 to U+001F) written raw inside a string.
        case controlCharacterInString(UInt8)
        /// An object repeats a key.
        case duplicateKey(String)
        /// Arrays and objects nest deeper than the parser's limit.
        case nestingTooDeep(limit: Int)
        /// A single streamed value is larger than the reader's limit.
        case recordTooLarge(limit: Int)
        /// The byte source failed.
        case readFailed(String)
    }

    public var reason: Reason
    /// 1-based line of the problem.
    public var line: Int
    /// 1-based column of the problem, in Unicode scalars.
    public var column: Int
    /// 0-based byte offset of the problem from the start of the input.
    public var byteOffset: Int
    /// The 1-based number of the value being read, for errors from a ``JSONStreamReader``.
    public var record: Int?

    public init(_ reason: Reason, line: Int, column: Int, byteOffset: Int, record: Int? = nil) {
        self.reason = reason
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
        self.record = record
    }

    /// `record 3, line 4, column 7: expected ',' or '}' after an object member, found ']'`.
    public var description: String {
        (record.map { "record \($0), " } ?? "") + "line \(line), column \(column): " + message
    }

    /// What is wrong, without the position: for callers that print the position their own way.
    public var message: String {
        var s = ""
        switch reason {
        case .unexpectedEndOfInput(let expected):
            s += "unexpected end of input, expected \(expected)"
        case .unexpectedCharacter(let found, let expected):
            s += "expected \(expected), found \(found)"
        case .invalidLiteral(let expected):
            s += "invalid literal, expected '\(expected)'"
        case .invalidNumber(let why):
            s += "invalid number: \(why)"
        case .numberOutOfRange:
            s += "number out of range: too large for a 64-bit floating-point value"
        case .invalidEscape(let why):
            s += "invalid escape in string: \(why)"
        case .invalidUTF8:
            s += "invalid UTF-8 byte sequence"
        case .controlCharacterInString(let byte):
            s += "control character \(Self.scalarName(byte)) must be escaped in a string"
            switch byte {
            case 0x0A: s += " (write \\n)"
            case 0x09: s += " (write \\t)"
            case 0x0D: s += " (write \\r)"
            default: break
            }
        case .duplicateKey(let key):
            s += "duplicate key \"\(key)\" in object"
        case .nestingTooDeep(let limit):
            s += "arrays and objects nest deeper than \(limit) levels"
        case .recordTooLarge(let limit):
            s += "value is larger than the limit of \(limit) bytes"
        case .readFailed(let why):
            s += "read failed: \(why)"
        }
        return s
    }

    static func scalarName(_ byte: UInt8) -> String {
        let hex = String(byte, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}
