/// A 1-based line and column in UTF-8 text, advanced over bytes.
///
/// Positions are only needed when something fails, so parsers keep a byte offset and build
/// a position on demand; the streaming reader advances one when it discards consumed bytes.
struct JSONTextPosition: Sendable, Equatable {
    var line = 1
    /// Counts Unicode scalars: UTF-8 continuation bytes do not advance it.
    var column = 1

    /// Advances over `bytes`. Line breaks are LF; a CR before it counts as a column.
    mutating func advance(over bytes: UnsafeBufferPointer<UInt8>) {
        guard !bytes.isEmpty else { return }
        // Count newlines in a tight loop, then columns only after the last one.
        var lastNewline = -1
        var newlines = 0
        for i in bytes.indices where bytes[i] == 0x0A {
            newlines += 1
            lastNewline = i
        }
        if newlines > 0 {
            line += newlines
            column = 1
        }
        var i = lastNewline + 1
        while i < bytes.count {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
    }

    /// The position of byte `offset`, where the byte at offset 0 is at `self`.
    func advanced(over base: UnsafePointer<UInt8>, count offset: Int) -> JSONTextPosition {
        var p = self
        p.advance(over: UnsafeBufferPointer(start: base, count: offset))
        return p
    }

    /// The position of a byte at `relative`, a position counted from some later start at `self`.
    func composed(with relative: JSONTextPosition) -> JSONTextPosition {
        relative.line == 1
            ? JSONTextPosition(line: line, column: column + relative.column - 1)
            : JSONTextPosition(line: line + relative.line - 1, column: relative.column)
    }
}
