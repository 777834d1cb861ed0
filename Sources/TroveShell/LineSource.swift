/// Lines of input without their line endings.
protocol LineSource: AnyObject {
    func readLine() -> String?
}

extension LineSource {
    /// Everything left, lines joined with `\n` (for `import MODEL -`).
    func readRemaining() -> [UInt8] {
        var bytes: [UInt8] = []
        while let line = readLine() {
            bytes.append(contentsOf: line.utf8)
            bytes.append(0x0A)
        }
        return bytes
    }
}

extension LineReader: LineSource {}

/// Lines of an in-memory text (`-c COMMAND`, tests).
final class TextLines: LineSource {
    private var lines: [String]
    private var index = 0

    init(_ text: String) {
        lines = text.lines
        if lines.last == "" { lines.removeLast() }
    }

    func readLine() -> String? {
        guard index < lines.count else { return nil }
        defer { index += 1 }
        return lines[index]
    }
}
