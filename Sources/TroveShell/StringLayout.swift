/// Small text helpers for layout, without Foundation.
extension String {
    /// The string padded with spaces to `width` characters; a longer one is kept whole
    /// and followed by one space, so columns never run together.
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }

    /// Every occurrence of `target` replaced (Foundation-free).
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for c in self { if c == target { result += replacement } else { result.append(c) } }
        return result
    }

    /// The lines of the text, split at `\n` with a `\r` before it dropped. Splits the
    /// UTF-8 bytes: as Characters, `\r\n` is one grapheme and would not split at `\n`, and
    /// both are ASCII, never part of a longer sequence, so each piece is whole UTF-8.
    var lines: [String] {
        utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { bytes in
            String(Substring(bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes))
        }
    }
}
