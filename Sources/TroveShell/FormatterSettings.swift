/// The settings formatters depend on, gathered so the session can rebuild a formatter
/// when `.mode` or `.headers` change.
struct FormatterSettings: Sendable, Equatable {
    var mode: OutputMode
    var showHeaders = true
    /// The width tables must fit, or nil for no limit (output to a pipe or a file).
    var terminalWidth: Int?
    /// Box-drawing characters instead of ASCII `+-|` (when the locale is UTF-8).
    var unicodeBoxes = true

    func makeFormatter() -> ResultFormatter {
        switch mode {
        case .json: JSONFormatter()
        case .jsonl: JSONLinesFormatter()
        case .csv: CSVFormatter(showHeaders: showHeaders)
        case .table: TableFormatter(showHeaders: showHeaders, width: terminalWidth, unicode: unicodeBoxes)
        case .line: LineFormatter()
        }
    }
}
