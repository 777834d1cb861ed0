#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A strict RFC 8259 parser from UTF-8 bytes to ``JSONValue``.
///
/// - Integer literals that fit in `Int64` become ``JSONValue/int(_:)``, longer ones
///   ``JSONValue/bigInteger(_:)`` (their text); every other number becomes
///   ``JSONValue/double(_:)`` (`-0` is the integer 0). Numbers beyond `Double`'s range
///   are errors rather than infinities, because JSON cannot write infinities back.
/// - Strings must be well-formed UTF-8 without raw control characters; `\uXXXX` escapes must
///   pair surrogates.
/// - Duplicate keys are errors unless ``allowsDuplicateKeys`` is set, in which case every
///   pair is kept in order (for callers that want to report duplicates themselves).
/// - A leading UTF-8 byte order mark is skipped, as RFC 8259 permits.
/// - Nesting is limited to ``maxDepth`` so that hostile input cannot exhaust the stack.
///
/// ```swift
/// let value = try JSONParser().parse(#"{"a":[1,2.5,"x"]}"#)
/// ```
package struct JSONParser: Sendable {
    /// The default nesting limit.
    package static let defaultMaxDepth = 512

    /// The deepest nesting of arrays and objects accepted.
    package var maxDepth: Int
    /// Keep repeated keys instead of failing with ``JSONError/Reason/duplicateKey(_:)``.
    package var allowsDuplicateKeys: Bool

    package init(maxDepth: Int = JSONParser.defaultMaxDepth, allowsDuplicateKeys: Bool = false) {
        self.maxDepth = maxDepth
        self.allowsDuplicateKeys = allowsDuplicateKeys
    }

    /// Parses one JSON text; only whitespace may follow the value.
    package func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> JSONValue {
        try parse(bytes, notingElements: false).value
    }

    /// Parses one JSON text and, when it is an array, gives the byte offset in `text` where
    /// each of its elements starts, so that a caller can place what it finds in an element.
    package func parseWithElementOffsets(_ text: String) throws(JSONError) -> (value: JSONValue, elementOffsets: [Int]) {
        var text = text
        return try text.withUTF8 { buffer in
            Result { () throws(JSONError) in try parse(UnsafeRawBufferPointer(buffer), notingElements: true) }
        }.get()
    }

    private func parse(_ bytes: UnsafeRawBufferPointer, notingElements: Bool) throws(JSONError) -> (value: JSONValue, elementOffsets: [Int]) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else {
            throw JSONError(.unexpectedEndOfInput(expected: "a value"), line: 1, column: 1, byteOffset: 0)
        }
        var skip = 0
        if bytes.count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF { skip = 3 }
        var core = JSONParserCore(base: base + skip, count: bytes.count - skip, options: self)
        core.recordsElementStarts = notingElements
        do {
            let value = try core.parseDocument()
            return (value, core.elementStarts.map { $0 + skip })
        } catch {
            var e = error
            e.byteOffset += skip
            throw e
        }
    }

    /// Parses one JSON text; only whitespace may follow the value.
    package func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        try bytes.withUnsafeBytes { buffer in Result { () throws(JSONError) in try parse(buffer) } }.get()
    }

    /// Parses one JSON text; only whitespace may follow the value.
    package func parse(_ data: Data) throws(JSONError) -> JSONValue {
        try data.withUnsafeBytes { buffer in Result { () throws(JSONError) in try parse(buffer) } }.get()
    }

    /// Parses one JSON text; only whitespace may follow the value.
    package func parse(_ text: String) throws(JSONError) -> JSONValue {
        var text = text
        return try text.withUTF8 { buffer in
            Result { () throws(JSONError) in try parse(UnsafeRawBufferPointer(buffer)) }
        }.get()
    }
}

extension JSONValue {
    /// Parses a JSON text (RFC 8259; duplicate keys and nesting deeper than 512 are errors).
    public init(parsing text: String) throws(JSONError) {
        self = try JSONParser().parse(text)
    }

    /// Parses UTF-8 JSON bytes, by the same rules as the text form.
    public init(parsing bytes: [UInt8]) throws(JSONError) {
        self = try JSONParser().parse(bytes)
    }
}

/// The recursive-descent parser over one contiguous buffer.
///
/// Also used by ``JSONStreamReader`` for each record once it has found the record's extent.
/// Errors carry positions relative to `base`.
struct JSONParserCore {
    let base: UnsafePointer<UInt8>
    let end: Int
    let maxDepth: Int
    let allowsDuplicateKeys: Bool
    var i = 0
    var depth = 0
    /// Reused for strings with escapes, so decoding them allocates only the final String.
    var scratch: [UInt8] = []
    /// Whether to note where each element of a top-level array starts, in `elementStarts`.
    var recordsElementStarts = false
    var elementStarts: [Int] = []

    init(base: UnsafePointer<UInt8>, count: Int, options: JSONParser) {
        self.base = base
        self.end = count
        self.maxDepth = options.maxDepth
        self.allowsDuplicateKeys = options.allowsDuplicateKeys
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        let value = try parseValue()
        skipWhitespace()
        if i < end { throw unexpected(expected: "end of input") }
        return value
    }

    // MARK: Errors

    func error(_ reason: JSONError.Reason, at offset: Int) -> JSONError {
        let p = JSONTextPosition().advanced(over: base, count: offset)
        return JSONError(reason, line: p.line, column: p.column, byteOffset: offset)
    }

    func unexpected(expected: String) -> JSONError {
        i < end
            ? error(.unexpectedCharacter(found: describeCharacter(at: i), expected: expected), at: i)
            : error(.unexpectedEndOfInput(expected: expected), at: i)
    }

    /// `'x'` for printable characters, `U+000A` for controls, `byte 0xFF` for bad UTF-8.
    func describeCharacter(at offset: Int) -> String {
        let b = base[offset]
        if b < 0x20 || b == 0x7F { return JSONError.scalarName(b) }
        if b < 0x80 { return "'\(Character(Unicode.Scalar(b)))'" }
        if let n = utf8SequenceLength(at: offset) {
            return "'" + String(decoding: UnsafeBufferPointer(start: base + offset, count: n), as: UTF8.self) + "'"
        }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    // MARK: Values

    @inline(__always)
    mutating func skipWhitespace() {
        while i < end {
            switch base[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONError) -> JSONValue {
        skipWhitespace()
        guard i < end else { throw error(.unexpectedEndOfInput(expected: "a value"), at: i) }
        switch base[i] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try parseLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try parseLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try parseLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw unexpected(expected: "a value")
        }
    }

    mutating func enterContainer() throws(JSONError) {
        depth += 1
        if depth > maxDepth { throw error(.nestingTooDeep(limit: maxDepth), at: i) }
        i += 1
    }

    mutating func parseObject() throws(JSONError) -> JSONValue {
        try enterContainer()
        var pairs: [(key: String, value: JSONValue)] = []
        // Small objects search linearly; a set takes over for wide ones.
        var seen: Set<String>? = nil
        skipWhitespace()
        if i < end && base[i] == UInt8(ascii: "}") {
            i += 1
            depth -= 1
            return .object(JSONObject())
        }
        while true {
            skipWhitespace()
            guard i < end, base[i] == UInt8(ascii: "\"") else {
                throw unexpected(expected: pairs.isEmpty ? "a string key or '}'" : "a string key (trailing commas are not allowed)")
            }
            let keyOffset = i
            let key = try parseString()
            if !allowsDuplicateKeys {
                let duplicate: Bool
                if pairs.count < 16 {
                    duplicate = pairs.contains { $0.key == key }
                } else {
                    if seen == nil { seen = Set(pairs.map(\.key)) }
                    duplicate = !seen!.insert(key).inserted
                }
                if duplicate { throw error(.duplicateKey(key), at: keyOffset) }
            }
            skipWhitespace()
            guard i < end, base[i] == UInt8(ascii: ":") else { throw unexpected(expected: "':' after an object key") }
            i += 1
            let value = try parseValue()
            pairs.append((key, value))
            skipWhitespace()
            guard i < end else { throw unexpected(expected: "',' or '}' after an object member") }
            if base[i] == UInt8(ascii: ",") {
                i += 1
            } else if base[i] == UInt8(ascii: "}") {
                i += 1
                break
            } else {
                throw unexpected(expected: "',' or '}' after an object member")
            }
        }
        depth -= 1
        return .object(JSONObject(pairs))
    }

    mutating func parseArray() throws(JSONError) -> JSONValue {
        try enterContainer()
        var elements: [JSONValue] = []
        skipWhitespace()
        if i < end && base[i] == UInt8(ascii: "]") {
            i += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            if i < end && base[i] == UInt8(ascii: "]") {
                throw unexpected(expected: "a value (trailing commas are not allowed)")
            }
            if recordsElementStarts && depth == 1 { elementStarts.append(i) }
            elements.append(try parseValue())
            skipWhitespace()
            guard i < end else { throw unexpected(expected: "',' or ']' after an array element") }
            if base[i] == UInt8(ascii: ",") {
                i += 1
            } else if base[i] == UInt8(ascii: "]") {
                i += 1
                break
            } else {
                throw unexpected(expected: "',' or ']' after an array element")
            }
        }
        depth -= 1
        return .array(elements)
    }

    mutating func parseLiteral(_ word: StaticString) throws(JSONError) {
        let n = word.utf8CodeUnitCount
        let w = word.utf8Start
        guard end - i >= n else {
            // A prefix of the word cut off by the end of input is an unexpected end, not a bad word.
            var k = 0
            while i + k < end && base[i + k] == w[k] { k += 1 }
            if i + k == end { throw error(.unexpectedEndOfInput(expected: "'\(word)'"), at: end) }
            throw error(.invalidLiteral(expected: "\(word)"), at: i)
        }
        for k in 0..<n where base[i + k] != w[k] {
            throw error(.invalidLiteral(expected: "\(word)"), at: i)
        }
        i += n
    }

    // MARK: Numbers

    @inline(__always)
    func isDigit(_ k: Int) -> Bool { k < end && base[k] &- UInt8(ascii: "0") < 10 }

    mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = i
        let negative = base[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard isDigit(i) else {
            throw i < end
                ? error(.invalidNumber("expected a digit after '-'"), at: i)
                : error(.unexpectedEndOfInput(expected: "a digit"), at: i)
        }
        if base[i] == UInt8(ascii: "0") {
            i += 1
            if isDigit(i) { throw error(.invalidNumber("leading zeros are not allowed"), at: start) }
        } else {
            while isDigit(i) { i += 1 }
        }
        let integerEnd = i
        var isInteger = true
        if i < end && base[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard isDigit(i) else { throw digitExpected("after '.'") }
            while isDigit(i) { i += 1 }
        }
        if i < end && (base[i] | 0x20) == UInt8(ascii: "e") {
            isInteger = false
            i += 1
            if i < end && (base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-")) { i += 1 }
            guard isDigit(i) else { throw digitExpected("in the exponent") }
            while isDigit(i) { i += 1 }
        }
        if isInteger {
            // Accumulate negatively so that Int64.min parses too.
            var value: Int64 = 0
            var k = negative ? start + 1 : start
            var overflow = false
            while k < integerEnd {
                let (m, o1) = value.multipliedReportingOverflow(by: 10)
                let (s, o2) = m.subtractingReportingOverflow(Int64(base[k] &- UInt8(ascii: "0")))
                if o1 || o2 { overflow = true; break }
                value = s
                k += 1
            }
            if !overflow {
                if negative { return .int(value) }
                if value != .min { return .int(-value) }
            }
        }
        // Short numbers fit a small String, which does not allocate.
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: i - start), as: UTF8.self)
        guard let d = Double(text), d.isFinite else { throw error(.numberOutOfRange, at: start) }
        return isInteger ? .bigInteger(text) : .double(d)
    }

    func digitExpected(_ place: String) -> JSONError {
        i < end
            ? error(.invalidNumber("expected a digit \(place), found \(describeCharacter(at: i))"), at: i)
            : error(.unexpectedEndOfInput(expected: "a digit \(place)"), at: i)
    }

    // MARK: Strings

    /// The length of the well-formed UTF-8 sequence at `k` (Unicode Table 3-7), or nil.
    @inline(__always)
    func utf8SequenceLength(at k: Int) -> Int? {
        let b0 = base[k]
        @inline(__always) func cont(_ j: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> Bool {
            j < end && base[j] >= lo && base[j] <= hi
        }
        switch b0 {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return cont(k + 1) ? 2 : nil
        case 0xE0: return cont(k + 1, 0xA0) && cont(k + 2) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF: return cont(k + 1) && cont(k + 2) ? 3 : nil
        case 0xED: return cont(k + 1, 0x80, 0x9F) && cont(k + 2) ? 3 : nil
        case 0xF0: return cont(k + 1, 0x90) && cont(k + 2) && cont(k + 3) ? 4 : nil
        case 0xF1...0xF3: return cont(k + 1) && cont(k + 2) && cont(k + 3) ? 4 : nil
        case 0xF4: return cont(k + 1, 0x80, 0x8F) && cont(k + 2) && cont(k + 3) ? 4 : nil
        default: return nil
        }
    }

    /// Parses a string starting at its opening quote.
    mutating func parseString() throws(JSONError) -> String {
        i += 1
        let start = i
        // Fast path: no escapes, so the String is decoded straight from the input.
        while i < end {
            let c = base[i]
            if c == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(start: base + start, count: i - start), as: UTF8.self)
                i += 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw error(.controlCharacterInString(c), at: i) }
            if c < 0x80 {
                i += 1
            } else {
                guard let n = utf8SequenceLength(at: i) else { throw error(.invalidUTF8, at: i) }
                i += n
            }
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(start: base + start, count: i - start))
        while i < end {
            let c = base[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if c == UInt8(ascii: "\\") {
                try parseEscape()
            } else if c < 0x20 {
                throw error(.controlCharacterInString(c), at: i)
            } else if c < 0x80 {
                scratch.append(c)
                i += 1
            } else {
                guard let n = utf8SequenceLength(at: i) else { throw error(.invalidUTF8, at: i) }
                scratch.append(contentsOf: UnsafeBufferPointer(start: base + i, count: n))
                i += n
            }
        }
        throw error(.unexpectedEndOfInput(expected: "'\"' to close the string"), at: i)
    }

    mutating func parseEscape() throws(JSONError) {
        let escapeStart = i
        i += 1
        guard i < end else { throw error(.unexpectedEndOfInput(expected: "an escape character after '\\'"), at: i) }
        let c = base[i]
        i += 1
        switch c {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                guard end - i >= 2, base[i] == UInt8(ascii: "\\"), base[i + 1] == UInt8(ascii: "u") else {
                    throw error(.invalidEscape("high surrogate \\u\(hex4(scalar)) is not followed by a low surrogate"), at: escapeStart)
                }
                i += 2
                let low = try parseHex4()
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw error(.invalidEscape("high surrogate \\u\(hex4(scalar)) is followed by \\u\(hex4(low)), not a low surrogate"), at: escapeStart)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw error(.invalidEscape("lone low surrogate \\u\(hex4(scalar))"), at: escapeStart)
            }
            appendUTF8(scalar)
        default:
            i -= 1
            throw error(.invalidEscape("'\\' followed by \(describeCharacter(at: i)); valid escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"), at: escapeStart)
        }
    }

    func hex4(_ v: UInt32) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    mutating func parseHex4() throws(JSONError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard i < end else { throw error(.unexpectedEndOfInput(expected: "4 hexadecimal digits after \\u"), at: i) }
            let c = base[i]
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: throw error(.invalidEscape("expected 4 hexadecimal digits after \\u, found \(describeCharacter(at: i))"), at: i)
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    mutating func appendUTF8(_ v: UInt32) {
        switch v {
        case 0..<0x80:
            scratch.append(UInt8(v))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | v >> 6))
            scratch.append(UInt8(0x80 | v & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | v >> 12))
            scratch.append(UInt8(0x80 | v >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | v & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | v >> 18))
            scratch.append(UInt8(0x80 | v >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | v >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | v & 0x3F))
        }
    }
}
