import Trove

/// Prints statement results in one output mode.
protocol ResultFormatter {
    func format(_ result: ShellResult, to out: OutputSink)
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
