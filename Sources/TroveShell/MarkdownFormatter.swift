import Trove

/// `markdown` mode: a GitHub-flavoured Markdown pipe table per result, numbers aligned right,
/// to paste into a document. `|` in a value is escaped, and a string holding a line break
/// shows quoted with the break escaped as JSON writes it (`CellText.distinct`), so a row
/// stays one line. Without headers the header row is left blank, since Markdown has no
/// table without one. Counts and write summaries read as in `table` mode.
struct MarkdownFormatter: ResultFormatter {
    var showHeaders = true
    /// What null prints as (`.nullvalue`).
    var null = ""

    func format(_ result: ShellResult, to out: OutputSink) {
        switch result {
        case .objects(let set):
            out.write(render(columns: set.effectiveColumns, rows: set.rows, decimalColumns: set.decimalColumns))
        case .lookup(let columns, let objects, let decimalColumns):
            let rows = objects.compactMap { $0 }
            out.write(render(columns: ResultSet(columns: columns, rows: rows).effectiveColumns, rows: rows, decimalColumns: decimalColumns))
        case .count(let n):
            out.write(render(columns: ["count"], rows: [JSONObject([("count", .int(Int64(n)))])]))
        case .value(let name, let value):
            let decimal: Set<String> = if case .decimal = value { [name] } else { [] }
            out.write(render(columns: [name], rows: [JSONObject([(name, QueryRow.json(value))])], decimalColumns: decimal))
        case .written(let summary):
            out.write(TableFormatter.describe(summary) + "\n")
        case .plan(let plan):
            out.write(render(columns: plan.keys, rows: [plan]))
        case .none: break
        }
    }

    func render(columns: [String], rows: [JSONObject], decimalColumns: Set<String> = []) -> String {
        guard !columns.isEmpty else { return "" }
        let header = columns.map { showHeaders ? Self.cell($0) : "" }
        let cells = rows.map { row in columns.map { Self.cell(CellText.distinct(row[$0], null: null)) } }
        let numeric = columns.map { ColumnAlignment.alignsRight($0, in: rows, decimalColumns: decimalColumns) }
        var widths = header.map { max(DisplayWidth.of($0), 3) }
        for row in cells {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], DisplayWidth.of(cell)) }
        }
        func line(_ values: [String]) -> String {
            var text = "|"
            for (i, value) in values.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - DisplayWidth.of(value))
                text += " " + (numeric[i] ? pad + value : value + pad) + " |"
            }
            return text + "\n"
        }
        var text = line(header)
        text += "|" + widths.indices.map { i in
            " " + String(repeating: "-", count: widths[i] - (numeric[i] ? 1 : 0)) + (numeric[i] ? ":" : "") + " |"
        }.joined() + "\n"
        for row in cells { text += line(row) }
        return text
    }

    /// `text` as one cell: pipes escaped, control characters escaped as `table` mode shows them.
    static func cell(_ text: String) -> String {
        CellText.visible(text.replacingAll("|", with: "\\|"))
    }
}
