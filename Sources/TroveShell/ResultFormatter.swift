import Trove

/// Prints statement results in one output mode.
protocol ResultFormatter {
    func format(_ result: ShellResult, to out: OutputSink)
}

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

extension ResultSet {
    /// The declared columns, or (when a backend gave none) every key in order of appearance.
    var effectiveColumns: [String] {
        if !columns.isEmpty { return columns }
        var seen: Set<String> = []
        var result: [String] = []
        for row in rows {
            for key in row.keys where seen.insert(key).inserted { result.append(key) }
        }
        return result
    }
}

/// How a value reads in a cell of csv, table and line output: strings without quotes,
/// null as empty (csv) or `null`, arrays and objects as compact JSON.
enum CellText {
    static func plain(_ value: JSONValue?, null: String) -> String {
        switch value {
        case nil, .null?: null
        case .string(let s)?: s
        case .bool(let b)?: b ? "true" : "false"
        case .int(let i)?: String(i)
        case .double(let d)?: JSONText.number(d)
        case let other?: JSONText.string(other)
        }
    }

    static func isNumber(_ value: JSONValue?) -> Bool {
        switch value {
        case .int?, .double?: true
        default: false
        }
    }
}
