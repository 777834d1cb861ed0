import Foundation

/// Prints the results as a Markdown table: one row per phase, one column per engine, then the
/// ratios Trove ÷ LMDB and Trove ÷ SQLite.
struct Table {
    let phases: [Workloads.Phase]
    /// Engine name -> values in phase order (seconds or bytes).
    let columns: [(name: String, values: [Double])]
    let reference = "Trove"
    let peers = ["LMDB", "SQLite"]

    func render() -> String {
        var header = ["workload"] + columns.map(\.name)
        let trove = columns.first { $0.name == reference }
        let ratioPeers = trove == nil ? [] : peers.filter { p in columns.contains { $0.name == p } }
        header += ratioPeers.map { "\(reference)/\($0)" }
        var rows: [[String]] = []
        for (i, phase) in phases.enumerated() {
            var row = [phase.label]
            for column in columns { row.append(format(column.values[i], phase.kind)) }
            for peer in ratioPeers {
                let other = columns.first { $0.name == peer }!.values[i]
                row.append(Table.formatRatio(trove!.values[i] / other))
            }
            rows.append(row)
        }
        var widths = header.map(\.count)
        for row in rows { for (j, cell) in row.enumerated() { widths[j] = max(widths[j], cell.count) } }
        func line(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { j, cell in
                j == 0 ? cell.padding(toLength: widths[j], withPad: " ", startingAt: 0)
                       : String(repeating: " ", count: widths[j] - cell.count) + cell
            }
            return "| " + padded.joined(separator: " | ") + " |"
        }
        var out = [line(header)]
        out.append("|" + widths.enumerated().map { j, w in j == 0 ? " " + String(repeating: "-", count: w) + " " : " " + String(repeating: "-", count: w) + ":" }.joined(separator: "|") + "|")
        out += rows.map(line)
        if !ratioPeers.isEmpty {
            out.append("")
            out.append("Ratios are \(reference)'s time (or size) divided by the peer's: below 1.00x \(reference) is faster (or smaller), above 1.00x it is slower (or larger). Lower is better everywhere.")
        }
        return out.joined(separator: "\n")
    }

    private func format(_ value: Double, _ kind: Workloads.Kind) -> String {
        switch kind {
        case .time: return Table.formatTime(value)
        case .size: return String(format: "%.1f MiB", value / 1_048_576)
        }
    }

    static func formatTime(_ seconds: Double) -> String {
        seconds >= 10 ? String(format: "%.2f s", seconds) : String(format: "%.1f ms", seconds * 1000)
    }

    static func formatRatio(_ ratio: Double) -> String {
        String(format: "%.2fx", ratio)
    }
}
