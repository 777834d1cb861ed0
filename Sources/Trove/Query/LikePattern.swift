/// A compiled `LIKE` pattern: `*` matches any run of characters (including none), `?` exactly
/// one `Character`, everything else itself, and the pattern must cover the whole string.
///
/// Matching takes time proportional to the string's length times the pattern's, never more:
/// the pattern is split at its stars into literal segments, the first anchored at the start,
/// the last at the end, and each one in between is matched at its leftmost place after the
/// previous one. Leftmost is always a safe choice, because a star may absorb whatever lies
/// between, so the matcher never backtracks (`*a*a*a*a*b` against a long run of `a`s is linear
/// in the run).
///
/// With `[c]`/`[d]` both pattern and string are folded first (see `StringFolding`), so `?`
/// counts characters of the folded string: under `[c]`, `ß` is `ss`, two characters. This keeps
/// a pattern without wildcards equivalent to `==` with the same modifiers. There is no escape
/// for a literal `*` or `?`, as in Realm.
package struct LikePattern: Sendable {
    /// The pattern as written.
    package let pattern: String
    package let options: StringComparisonOptions
    /// The folded pattern, split at `*`; nil elements are `?`.
    private let characterSegments: [[Character?]]
    /// The same in bytes, when the folded pattern is ASCII.
    private let byteSegments: [[UInt8?]]?

    package init(_ pattern: String, options: StringComparisonOptions = []) {
        self.pattern = pattern
        self.options = options
        let folded = StringFolding.fold(pattern, options: options)
        characterSegments = folded.split(separator: "*", omittingEmptySubsequences: false).map { part in
            part.map { $0 == "?" ? nil : $0 }
        }
        // Bytes stand for characters only in ASCII without CR: CR LF is one character.
        if folded.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x0D }) {
            byteSegments = folded.utf8.split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false).map { part in
                part.map { $0 == UInt8(ascii: "?") ? nil : $0 }
            }
        } else {
            byteSegments = nil
        }
    }

    /// Whether the whole of `string` matches the pattern.
    package func matches(_ string: String) -> Bool {
        var folded = StringFolding.fold(string, options: options)
        if let byteSegments {
            let result: Bool? = folded.withUTF8 { bytes in
                StringFolding.isASCII(bytes) && !bytes.contains(0x0D) ? Self.match(bytes, byteSegments) : nil
            }
            if let result { return result }
        }
        return Self.match(Array(folded), characterSegments)
    }

    private static func match<Subject: RandomAccessCollection, Element: Equatable>(
        _ subject: Subject, _ segments: [[Element?]]
    ) -> Bool where Subject.Element == Element, Subject.Index == Int {
        let base = subject.startIndex
        let count = subject.count
        let first = segments[0]
        guard segments.count > 1 else {
            return count == first.count && matches(first, subject, at: base)
        }
        guard first.count <= count, matches(first, subject, at: base) else { return false }
        let last = segments[segments.count - 1]
        let lastStart = count - last.count
        guard lastStart >= first.count, matches(last, subject, at: base + lastStart) else { return false }
        var position = first.count
        for segment in segments[1..<(segments.count - 1)] where !segment.isEmpty {
            guard let found = find(segment, in: subject, from: base + position, before: base + lastStart) else { return false }
            position = found - base + segment.count
        }
        return true
    }

    /// The leftmost index at or after `start` where `segment` matches and ends by `end`.
    private static func find<Subject: RandomAccessCollection, Element: Equatable>(
        _ segment: [Element?], in subject: Subject, from start: Int, before end: Int
    ) -> Int? where Subject.Element == Element, Subject.Index == Int {
        var candidate = start
        while candidate + segment.count <= end {
            if matches(segment, subject, at: candidate) { return candidate }
            candidate += 1
        }
        return nil
    }

    private static func matches<Subject: RandomAccessCollection, Element: Equatable>(
        _ segment: [Element?], _ subject: Subject, at start: Int
    ) -> Bool where Subject.Element == Element, Subject.Index == Int {
        for (offset, element) in segment.enumerated() {
            if let element, subject[start + offset] != element { return false }
        }
        return true
    }
}
