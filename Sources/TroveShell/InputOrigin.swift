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
