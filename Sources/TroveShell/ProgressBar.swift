#if canImport(Glibc)
import Glibc
#endif
import CLibEdit

/// A progress bar for long imports and exports, drawn on standard error only when it is
/// a terminal: scripts and logs never see it.
public final class ProgressBar {
    private let enabled: Bool
    private let label: String
    private var lastDraw: UInt64 = 0
    private var drawn = false

    /// `enabled` is normally `isatty(STDERR_FILENO)`.
    public init(label: String, enabled: Bool) {
        self.label = label
        self.enabled = enabled
    }

    /// Redraws at most ten times a second; the last update before `finish()` may be skipped.
    public func update(completed: Int, total: Int?) {
        guard enabled else { return }
        let now = Self.monotonicNanoseconds()
        guard !drawn || now - lastDraw >= 100_000_000 || completed == total else { return }
        lastDraw = now
        drawn = true
        let columns = max(Int(trove_terminal_columns(STDERR_FILENO)), 40)
        var text = "\r" + label + " "
        if let total, total > 0 {
            let fraction = min(Double(completed) / Double(total), 1)
            let counts = " \(Int(fraction * 100))% \(completed)/\(total)"
            let barWidth = max(columns - DisplayWidth.of(label) - counts.count - 4, 10)
            let filled = Int(fraction * Double(barWidth))
            text += "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]" + counts
        } else {
            text += "\(completed)"
        }
        text += "\u{1B}[K"
        Self.writeError(text)
    }

    /// Erases the bar, so that following output starts on a clean line.
    public func finish() {
        guard enabled, drawn else { return }
        Self.writeError("\r\u{1B}[K")
        drawn = false
    }

    private static func writeError(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
