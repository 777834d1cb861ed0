import Trove

/// Prints statement results in one output mode.
protocol ResultFormatter {
    func format(_ result: ShellResult, to out: OutputSink)
}

/// Where table and markdown modes put a column's values: numbers (decimals too) to the
/// right; text, and a column that holds nothing but nulls, to the left.
enum ColumnAlignment {
    static func alignsRight(_ column: String, in rows: [JSONObject], decimalColumns: Set<String>) -> Bool {
        var holdsNumbers = false
        for row in rows {
            switch row[column] {
            case nil, .null?: continue
            case .int?, .bigInteger?, .double?: holdsNumbers = true
            // A float's or double's NaN or infinity: a number, whose JSON form is a string.
            case .string(let s)? where NonFiniteNumber.value(ofJSONString: s) != nil: continue
            case .string? where decimalColumns.contains(column): holdsNumbers = true
            default: return false
            }
        }
        return holdsNumbers
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
