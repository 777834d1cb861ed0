import Trove

/// `line` mode, as sqlite3's `.mode line`: `name = value` per property with the names
/// right-aligned, a blank line between records. Control characters in values show escaped,
/// as in `table` mode.
struct LineFormatter: ResultFormatter {
    /// What null prints as (`.nullvalue`).
    var null = "null"

    func format(_ result: ShellResult, to out: OutputSink) {
        switch result {
        case .objects(let set):
            writeRecords(columns: set.effectiveColumns, rows: set.rows, to: out)
        case .lookup(let columns, let objects, _):
            let rows = objects.compactMap { $0 }
            writeRecords(columns: ResultSet(columns: columns, rows: rows).effectiveColumns, rows: rows, to: out)
        case .count(let n): out.write("count = \(n)\n")
        case .value(let name, let value): out.write("\(name) = " + CellText.visible(QueryRow.json(value), null: null) + "\n")
        case .written(let summary):
            writeRecords(columns: summary.object.keys, rows: [summary.object], to: out)
        case .plan(let plan): writeRecords(columns: plan.keys, rows: [plan], to: out)
        case .none: break
        }
    }

    private func writeRecords(columns: [String], rows: [JSONObject], to out: OutputSink) {
        let width = columns.map(DisplayWidth.of).max() ?? 0
        for (i, row) in rows.enumerated() {
            var text = i > 0 ? "\n" : ""
            for column in columns {
                let pad = String(repeating: " ", count: width - DisplayWidth.of(column))
                text += pad + column + " = " + CellText.visible(row[column], null: null) + "\n"
            }
            out.write(text)
        }
    }
}
