/// Where statements come from; it decides how errors name their position and whether a
/// failure stops the run.
enum InputOrigin: Equatable {
    /// A `-c COMMAND` or trailing COMMAND argument.
    case command
    /// `-f FILE` or `.read FILE`.
    case file(String)
    /// Piped or redirected standard input (also `-f -`).
    case standardInput
    /// The REPL; line numbers count within the statement being typed.
    case interactive

    /// The prefix naming a position: `FILE:3:7: `, `line 3, column 7: `, `column 7: `.
    func describe(line: Int, column: Int?) -> String {
        switch self {
        case .file(let name):
            return column.map { "\(name):\(line):\($0): " } ?? "\(name):\(line): "
        case .command, .interactive:
            guard let column else { return line > 1 ? "line \(line): " : "" }
            return line > 1 ? "line \(line), column \(column): " : "column \(column): "
        case .standardInput:
            return column.map { "line \(line), column \($0): " } ?? "line \(line): "
        }
    }
}

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
    private var lines: [Substring]
    private var index = 0

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
    }

    func readLine() -> String? {
        guard index < lines.count else { return nil }
        defer { index += 1 }
        var line = lines[index]
        if line.hasSuffix("\r") { line = line.dropLast() }
        return String(line)
    }
}
