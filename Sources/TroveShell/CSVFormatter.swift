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
        line(columns.count, separator: separator) { i, byte in field(columns[i], separator: byte) }
    }

    /// One line of `object`'s values in `columns`' order.
    static func record(_ columns: [String], _ object: JSONObject, separator: Character = ",", null: String = "") -> String {
        line(columns.count, separator: separator) { i, byte in
            let value = object[columns[i]]
            if case .string("")? = value { return "\"\"" }
            return field(CellText.plain(value, null: null), separator: byte)
        }
    }

    /// `count` fields, each given the separator's byte, between separators, and the line's
    /// end. Appended one by one rather than `joined`: the standard library's unspecialized
    /// `joined(separator:)` has the runtime scan the binary's conformance records on its
    /// first call, a tenth of a one-shot page's instructions.
    private static func line(_ count: Int, separator: Character, _ field: (Int, UInt8) -> String) -> String {
        let byte = separator.asciiValue ?? 0x2C
        var line = ""
        for i in 0..<count {
            if i > 0 { line.append(separator) }
            line += field(i, byte)
        }
        line += "\n"
        return line
    }

    /// `text` as a field: quoted when it holds the separator (`separator`, an ASCII byte), a
    /// quote, CR or LF.
    private static func field(_ text: String, separator: UInt8) -> String {
        guard text.utf8.contains(where: { $0 == separator || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return text }
        return "\"" + text.replacingAll("\"", with: "\"\"") + "\""
    }
}
