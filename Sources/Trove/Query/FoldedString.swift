#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A string in its folded form under some `[c]`/`[d]` options, ready to compare many times.
///
/// Fold the constant side of a comparison once, then each value read:
///
/// ```swift
/// let needle = FoldedString("arg", options: [.caseInsensitive, .diacriticInsensitive])
/// FoldedString("Ärger", options: needle.options).hasPrefix(needle) // true
/// ```
///
/// Matching works on UTF-8 bytes and is exact for ASCII; when either side is not ASCII a match
/// must also start and end on `Character` boundaries, so `CONTAINS "e"` does not match the
/// `e` of `e` + U+0307 (a letter with no precomposed form), nor a single emoji inside a
/// family emoji. Equality, hashing and order (`<`) are those of the folded bytes, which is
/// Unicode scalar order: folded forms are usable as index keys.
package struct FoldedString: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The folded form, in NFC.
    package let value: String
    /// The options `value` was folded under.
    package let options: StringComparisonOptions
    private let isASCII: Bool

    /// Folds `string` under `options`.
    package init(_ string: String, options: StringComparisonOptions) {
        var folded = StringFolding.fold(string, options: options)
        folded.makeContiguousUTF8()
        self.value = folded
        self.options = options
        self.isASCII = folded.withUTF8 { StringFolding.isASCII($0) }
    }

    package var description: String { value }

    /// Whether the string starts with `prefix` (folded under the same options).
    package func hasPrefix(_ prefix: FoldedString) -> Bool {
        withBytes(prefix) { bytes, needle in
            needle.count <= bytes.count
                && Self.equal(bytes, 0, needle)
                && isBoundary(bytes, needle.count, needle)
        }
    }

    /// Whether the string ends with `suffix` (folded under the same options).
    package func hasSuffix(_ suffix: FoldedString) -> Bool {
        withBytes(suffix) { bytes, needle in
            let start = bytes.count - needle.count
            return start >= 0
                && Self.equal(bytes, start, needle)
                && isBoundary(bytes, start, needle)
        }
    }

    /// Whether the string contains `other` (folded under the same options). Every string
    /// contains the empty string.
    package func contains(_ other: FoldedString) -> Bool {
        withBytes(other) { bytes, needle in
            if needle.isEmpty { return true }
            guard needle.count <= bytes.count else { return false }
            let first = needle[0]
            var start = 0
            let last = bytes.count - needle.count
            while start <= last {
                if bytes[start] == first, Self.equal(bytes, start, needle),
                   isBoundary(bytes, start, needle), isBoundary(bytes, start + needle.count, needle) {
                    return true
                }
                start += 1
            }
            return false
        }
    }

    package static func == (a: FoldedString, b: FoldedString) -> Bool {
        a.withBytes(b) { x, y in x.count == y.count && equal(x, 0, y) }
    }

    package func hash(into hasher: inout Hasher) {
        var copy = value
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Byte order of the folded forms, which is Unicode scalar order.
    package static func < (a: FoldedString, b: FoldedString) -> Bool {
        a.withBytes(b) { x, y in
            let common = min(x.count, y.count)
            if common > 0, let p = x.baseAddress, let q = y.baseAddress {
                let order = memcmp(p, q, common)
                if order != 0 { return order < 0 }
            }
            return x.count < y.count
        }
    }

    // MARK: Bytes

    private func withBytes<R>(_ other: FoldedString, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> R) -> R {
        var mine = value
        var theirs = other.value
        return mine.withUTF8 { bytes in theirs.withUTF8 { needle in body(bytes, needle) } }
    }

    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = bytes.baseAddress, let q = needle.baseAddress else { return needle.isEmpty }
        return memcmp(p + start, q, needle.count) == 0
    }

    /// Whether byte `offset` of the string is a `Character` boundary, when a match of `needle`
    /// begins or ends there.
    private func isBoundary(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        if offset == 0 || offset == bytes.count { return true }
        let before = bytes[offset - 1], after = bytes[offset]
        // Between two ASCII scalars every position is a boundary but inside CR LF; a
        // non-ASCII neighbour (a combining mark, a prepended sign, a joiner) needs the rules.
        if before < 0x80 && after < 0x80 { return !(before == 0x0D && after == 0x0A) }
        let index = value.utf8.index(value.utf8.startIndex, offsetBy: offset)
        return String.Index(index, within: value) != nil
    }
}
