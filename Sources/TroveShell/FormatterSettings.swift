/// The settings formatters depend on, gathered so the session can rebuild a formatter
/// when `.mode`, `.headers` or `.nullvalue` change.
struct FormatterSettings: Sendable, Equatable {
    var mode: OutputMode
    var showHeaders = true
    /// `.nullvalue`: what null prints as in the text modes, or nil for the mode's own.
    var nullText: String?
    /// The width tables must fit, or nil for no limit (output to a pipe or a file).
    var terminalWidth: Int?
    /// Box-drawing characters instead of ASCII `+-|`; nil: when the user's locale is UTF-8.
    var unicodeBoxes: Bool? = true

    /// What null prints as in the current mode.
    var effectiveNullText: String { nullText ?? mode.defaultNullText }

    func makeFormatter() -> ResultFormatter {
        let null = effectiveNullText
        return switch mode {
        case .json: JSONFormatter()
        case .jsonl: JSONLinesFormatter()
        case .csv: CSVFormatter(showHeaders: showHeaders, null: null)
        case .tsv: CSVFormatter(separator: "\t", showHeaders: showHeaders, null: null)
        case .table: TableFormatter(showHeaders: showHeaders, null: null, width: terminalWidth, unicode: unicodeBoxes ?? UserLocale.isUTF8)
        case .markdown: MarkdownFormatter(showHeaders: showHeaders, null: null)
        case .line: LineFormatter(null: null)
        }
    }
}
