import Trove

/// `table` mode, for people: a box around the columns, numbers right-aligned, a row count
/// below. When a terminal width is known, the widest columns are cut (ending in `…`) until
/// the table fits. Its look may change between versions; scripts use the other modes.
struct TableFormatter: ResultFormatter {
    var showHeaders = true
    /// What null prints as (`.nullvalue`).
    var null = "null"
    var width: Int?
    var unicode = true

    func format(_ result: ShellResult, to out: OutputSink) {
        switch result {
        case .objects(let set):
            out.write(render(columns: set.effectiveColumns, rows: set.rows, decimalColumns: set.decimalColumns))
            out.write(set.rows.count == 1 ? "(1 row)\n" : "(\(set.rows.count) rows)\n")
        case .lookup(let columns, let objects, let decimalColumns):
            let rows = objects.compactMap { $0 }
            out.write(render(columns: ResultSet(columns: columns, rows: rows).effectiveColumns, rows: rows, decimalColumns: decimalColumns))
            let missing = objects.count - rows.count
            out.write(rows.count == 1 ? "(1 row" : "(\(rows.count) rows")
            out.write(missing > 0 ? ", \(missing) not found)\n" : ")\n")
        case .count(let n):
            out.write(render(columns: ["count"], rows: [JSONObject([("count", .int(Int64(n)))])]))
        case .value(let name, let value):
            let decimal: Set<String> = if case .decimal = value { [name] } else { [] }
            out.write(render(columns: [name], rows: [JSONObject([(name, QueryRow.json(value))])], decimalColumns: decimal))
        case .written(let summary):
            out.write(Self.describe(summary) + "\n")
        case .plan(let plan):
            out.write(render(columns: plan.keys, rows: [plan]))
        case .none: break
        }
    }

    /// `3 objects inserted`, `2 objects inserted, 1 updated`.
    static func describe(_ summary: WriteSummary) -> String {
        let parts = summary.object.pairs.map { pair -> (Int, String) in
            if case .int(let n) = pair.value { return (Int(n), pair.key) }
            return (0, pair.key)
        }
        return parts.enumerated().map { i, part in
            i == 0 ? "\(part.0) \(part.0 == 1 ? "object" : "objects") \(part.1)" : "\(part.0) \(part.1)"
        }.joined(separator: ", ")
    }

    func render(columns: [String], rows: [JSONObject], decimalColumns: Set<String> = []) -> String {
        guard !columns.isEmpty else { return "" }
        let cells = rows.map { row in columns.map { CellText.visible(row[$0], null: null) } }
        let numeric = columns.map { ColumnAlignment.alignsRight($0, in: rows, decimalColumns: decimalColumns) }
        var widths = columns.map { showHeaders ? DisplayWidth.of($0) : 0 }
        for row in cells {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], DisplayWidth.of(cell)) }
        }
        widths = widths.map { max($0, 1) }
        if let width { widths = Self.fit(widths, into: width) }

        let box = unicode
            ? (h: "─", v: "│", tl: "┌", tm: "┬", tr: "┐", ml: "├", mm: "┼", mr: "┤", bl: "└", bm: "┴", br: "┘")
            : (h: "-", v: "|", tl: "+", tm: "+", tr: "+", ml: "+", mm: "+", mr: "+", bl: "+", bm: "+", br: "+")
        func rule(_ left: String, _ middle: String, _ right: String) -> String {
            left + widths.map { String(repeating: box.h, count: $0 + 2) }.joined(separator: middle) + right + "\n"
        }
        func line(_ values: [String], alignRight: [Bool]) -> String {
            var text = box.v
            for (i, value) in values.enumerated() {
                let cut = DisplayWidth.truncate(value, to: widths[i])
                let pad = String(repeating: " ", count: widths[i] - DisplayWidth.of(cut))
                text += " " + (alignRight[i] ? pad + cut : cut + pad) + " " + box.v
            }
            return text + "\n"
        }
        var text = rule(box.tl, box.tm, box.tr)
        if showHeaders {
            text += line(columns, alignRight: numeric)
            text += rule(box.ml, box.mm, box.mr)
        }
        for row in cells { text += line(row, alignRight: numeric) }
        text += rule(box.bl, box.bm, box.br)
        return text
    }

    /// Column widths cut so the table fits `total` columns: the widest ones are capped at
    /// the largest width that fits, narrow ones keep theirs. Hopelessly many columns
    /// (fewer than 3 characters each) are left to wrap.
    static func fit(_ widths: [Int], into total: Int) -> [Int] {
        let overhead = 3 * widths.count + 1
        func size(_ cap: Int) -> Int { widths.reduce(0) { $0 + min($1, cap) } + overhead }
        guard size(Int.max) > total else { return widths }
        var lo = 3, hi = widths.max() ?? 3
        guard size(lo) <= total else { return widths.map { min($0, lo) } }
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if size(mid) <= total { lo = mid } else { hi = mid - 1 }
        }
        var result = widths.map { min($0, lo) }
        // Hand the columns left over to the cut columns, from the left.
        var spare = total - size(lo)
        for i in result.indices where spare > 0 && widths[i] > result[i] {
            let extra = min(spare, widths[i] - result[i])
            result[i] += extra
            spare -= extra
        }
        return result
    }
}
