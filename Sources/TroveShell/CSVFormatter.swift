import Trove

/// `csv` and `tsv` modes: a header line, then one record per object, quoted as RFC 4180 says
/// (a field with the separator, a quote, CR or LF is enclosed in quotes, quotes doubled).
/// Records end with LF, as Unix tools expect. Null is an empty field (unless `.nullvalue`
/// says otherwise) and an empty string `""`, so that `import` reads each back as it was;
/// arrays and objects are JSON text.
/// A count is a bare integer and a write summary a JSON line, as in the JSON modes.
struct CSVFormatter: ResultFormatter {
    /// `,` for csv, a tab for tsv.
    var separator: Character = ","
    var showHeaders = true
    var null = ""

    func format(_ result: ShellResult, to out: OutputSink) {
        switch result {
        case .objects(let set):
            writeTable(columns: set.effectiveColumns, rows: set.rows, to: out)
        case .lookup(let columns, let objects, _):
            let rows = objects.compactMap { $0 }
            writeTable(columns: ResultSet(columns: columns, rows: rows).effectiveColumns, rows: rows, to: out)
        case .count(let n): out.write("\(n)\n")
        case .value(_, let value): out.write(CellText.plain(QueryRow.json(value), null: "null") + "\n")
        case .written(let summary): out.write(JSONText.string(summary.object) + "\n")
        case .plan(let plan): writeTable(columns: plan.keys, rows: [plan], to: out)
        case .none: break
        }
    }

    private func writeTable(columns: [String], rows: [JSONObject], to out: OutputSink) {
        if showHeaders { out.write(Self.header(columns, separator: separator)) }
        for row in rows { out.write(Self.record(columns, row, separator: separator, null: null)) }
    }

    /// The header line of `columns`; `separator` is `,` for CSV, a tab for TSV.
    static func header(_ columns: [String], separator: Character = ",") -> String {
        columns.map { field($0, separator: separator) }.joined(separator: String(separator)) + "\n"
    }

    /// One line of `object`'s values in `columns`' order.
    static func record(_ columns: [String], _ object: JSONObject, separator: Character = ",", null: String = "") -> String {
        columns.map { name in
            if case .string("")? = object[name] { return "\"\"" }
            return field(CellText.plain(object[name], null: null), separator: separator)
        }.joined(separator: String(separator)) + "\n"
    }

    static func field(_ text: String, separator: Character = ",") -> String {
        let s = separator.asciiValue ?? 0x2C
        guard text.utf8.contains(where: { $0 == s || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return text }
        return "\"" + text.replacingAll("\"", with: "\"\"") + "\""
    }
}
