/// Lines of input without their line endings.
protocol LineSource: AnyObject {
    func readLine() -> String?
    /// Hands over the rest of the input as raw bytes (for `import MODEL -`): what is
    /// buffered already, then the descriptor to read on, if any, and the line of the input
    /// the rest starts on (after the lines read so far).
    func takeRemainingInput() -> (buffered: [UInt8], fd: Int32?, firstLine: Int)
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

extension TextLines {
    func takeRemainingInput() -> (buffered: [UInt8], fd: Int32?, firstLine: Int) {
        let firstLine = linesRead + 1
        return (readRemaining(), nil, firstLine)
    }
}

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

    var linesRead: Int { index }
}
