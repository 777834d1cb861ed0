import Trove

/// A cursor over a statement's UTF-8 bytes that knows the lexical rules the splitter uses:
/// quotes with backslash escapes, and balanced `(`, `[`, `{`.
///
/// It works on bytes because every delimiter is ASCII and offsets must be UTF-8 offsets.
struct StatementScanner {
    let bytes: [UInt8]
    var position: Int

    init(_ text: String) {
        bytes = Array(text.utf8)
        position = 0
    }

    var isAtEnd: Bool { position >= bytes.count }

    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    func fragment(_ range: Range<Int>) -> SourceFragment {
        SourceFragment(text(range), offset: range.lowerBound)
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
    /// An ASCII letter, digit or `_`: a byte of a keyword.
    static func isWordByte(_ b: UInt8) -> Bool {
        (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A || b == 0x5F || (b >= 0x30 && b <= 0x39)
    }

    /// The bytes of the name character at `i` (`SchemaName`'s letters, digits and `_`;
    /// `first`: one that may start a name), 0 when there is none.
    static func nameCharacterLength(_ bytes: [UInt8], at i: Int, first: Bool = false) -> Int {
        guard let (scalar, length) = scalar(bytes, at: i) else { return 0 }
        return (first ? SchemaName.isStart(scalar) : SchemaName.isContinuation(scalar)) ? length : 0
    }

    /// The bytes of the key path character at `i`: a name character, or the `.`, `@` and `$`
    /// of `dogs.@count` and `$0`; 0 when there is none.
    static func keyPathCharacterLength(_ bytes: [UInt8], at i: Int) -> Int {
        guard i < bytes.count else { return 0 }
        let b = bytes[i]
        return b == 0x2E || b == 0x40 || b == 0x24 ? 1 : nameCharacterLength(bytes, at: i)
    }

    /// Where the key path character that ends at `end` starts, or nil when none ends there.
    static func keyPathCharacterStart(_ bytes: [UInt8], endingAt end: Int) -> Int? {
        guard end > 0, end <= bytes.count else { return nil }
        var start = end - 1
        while start > 0, bytes[start] & 0xC0 == 0x80 { start -= 1 }
        return start + keyPathCharacterLength(bytes, at: start) == end ? start : nil
    }

    private static func scalar(_ bytes: [UInt8], at i: Int) -> (Unicode.Scalar, Int)? {
        guard i < bytes.count else { return nil }
        if bytes[i] < 0x80 { return (Unicode.Scalar(bytes[i]), 1) }
        var iterator = bytes[i...].makeIterator()
        var decoder = UTF8()
        guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return nil }
        return (scalar, UTF8.width(scalar))
    }

    mutating func skipSpace() {
        while let b = current, Self.isSpace(b) { position += 1 }
    }

    /// The name or keyword at the cursor (without moving), if any.
    func peekWord() -> Range<Int>? {
        var end = position + Self.nameCharacterLength(bytes, at: position, first: true)
        guard end > position else { return nil }
        while case let n = Self.nameCharacterLength(bytes, at: end), n > 0 { end += n }
        return position..<end
    }

    /// Whether the identifier at the cursor is `keyword` (ASCII case-insensitive).
    func peekKeyword(_ keyword: String) -> Bool {
        guard let range = peekWord() else { return false }
        return Self.equalsIgnoringCase(bytes[range], keyword)
    }

    static func equalsIgnoringCase(_ slice: ArraySlice<UInt8>, _ keyword: String) -> Bool {
        let k = Array(keyword.utf8)
        guard slice.count == k.count else { return false }
        return zip(slice, k).allSatisfy { ($0 | 0x20) == ($1 | 0x20) }
    }

    /// Moves past a quoted string starting at the cursor; returns false if it never closes.
    mutating func skipQuoted() -> Bool {
        let quote = bytes[position]
        position += 1
        while let b = current {
            position += 1
            if b == 0x5C { position += 1 } else if b == quote { return true }
        }
        position = bytes.count
        return false
    }

    /// Moves past a bracketed group starting at the cursor; returns false if it never closes.
    mutating func skipGroup() -> Bool {
        var depth = 0
        while let b = current {
            switch b {
            case 0x22, 0x27:
                if !skipQuoted() { return false }
                continue
            case 0x28, 0x5B, 0x7B: depth += 1
            case 0x29, 0x5D, 0x7D:
                depth -= 1
                if depth == 0 { position += 1; return true }
            default: break
            }
            position += 1
        }
        return false
    }

    /// Moves past one whitespace-delimited chunk, treating quotes and groups as single units.
    mutating func skipChunk() {
        while let b = current, !Self.isSpace(b) {
            switch b {
            case 0x22, 0x27: _ = skipQuoted()
            case 0x28, 0x5B, 0x7B: _ = skipGroup()
            default: position += 1
            }
        }
    }

    /// The whitespace-separated chunks of `range` that are outside quotes and brackets.
    func chunks(in range: Range<Int>) -> [Range<Int>] {
        var s = self
        s.position = range.lowerBound
        var result: [Range<Int>] = []
        while true {
            while s.position < range.upperBound, Self.isSpace(s.bytes[s.position]) { s.position += 1 }
            if s.position >= range.upperBound { break }
            let start = s.position
            s.skipChunk()
            result.append(start..<min(s.position, range.upperBound))
        }
        return result
    }

    /// Range with surrounding whitespace removed.
    func trimmed(_ range: Range<Int>) -> Range<Int> {
        var lo = range.lowerBound, hi = range.upperBound
        while lo < hi, Self.isSpace(bytes[lo]) { lo += 1 }
        while hi > lo, Self.isSpace(bytes[hi - 1]) { hi -= 1 }
        return lo..<hi
    }

    /// Splits `range` at commas outside quotes and brackets.
    func splitTopLevel(_ range: Range<Int>, separator: UInt8 = 0x2C) -> [Range<Int>] {
        var s = self
        s.position = range.lowerBound
        var parts: [Range<Int>] = []
        var start = range.lowerBound
        while s.position < range.upperBound {
            let b = s.bytes[s.position]
            switch b {
            case 0x22, 0x27: _ = s.skipQuoted()
            case 0x28, 0x5B, 0x7B: _ = s.skipGroup()
            case separator:
                parts.append(start..<s.position)
                s.position += 1
                start = s.position
            default: s.position += 1
            }
        }
        parts.append(start..<min(s.position, range.upperBound))
        return parts
    }
}
