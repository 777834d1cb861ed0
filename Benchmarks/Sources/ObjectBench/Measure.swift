import Foundation

/// What one phase cost: wall and CPU time, and memory read from /proc/self/status.
struct Sample {
    var wall: Double
    var cpu: Double
    /// VmHWM during the phase: the peak resident set, reset at the phase's start by writing 5 to
    /// /proc/self/clear_refs (so it is the phase's own peak, baseline included).
    var peakKiB: Int
    /// VmRSS at the end minus VmRSS at the start.
    var rssDeltaKiB: Int
    /// The largest resident anonymous memory (heap, dirty page copies) and resident file pages
    /// (for Trove mostly its mmap'd file: page cache, shared and reclaimable) seen during the
    /// phase, sampled every 50 ms by a background thread.
    var anonKiB = 0
    var fileKiB = 0
}

/// Polls RssAnon and RssFile of /proc/self/status until stopped, keeping the maxima.
final class RSSSampler: @unchecked Sendable {
    private let lock = NSLock()
    private var running = true
    private var maxAnon = 0, maxFile = 0
    private let done = DispatchSemaphore(value: 0)

    init() {
        let thread = Thread { [self] in
            while true {
                sample()
                lock.lock(); let go = running; lock.unlock()
                if !go { break }
                usleep(50_000)
            }
            done.signal()
        }
        thread.start()
    }

    private func sample() {
        let anon = Measure.status("RssAnon"), file = Measure.status("RssFile")
        lock.lock(); maxAnon = max(maxAnon, anon); maxFile = max(maxFile, file); lock.unlock()
    }

    /// Stops the thread (after one last sample) and returns the maxima in KiB.
    func stop() -> (anon: Int, file: Int) {
        lock.lock(); running = false; lock.unlock()
        done.wait()
        sample()
        lock.lock(); defer { lock.unlock() }
        return (maxAnon, maxFile)
    }
}

enum Measure {
    /// Whether writing /proc/self/clear_refs resets VmHWM here (checked once).
    nonisolated(unsafe) static var canResetPeak = resetPeak()

    @discardableResult
    static func resetPeak() -> Bool {
        guard let f = fopen("/proc/self/clear_refs", "w") else { return false }
        defer { fclose(f) }
        return fputs("5", f) >= 0
    }

    /// A field of /proc/self/status in KiB ("VmRSS", "VmHWM").
    static func status(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
        }
        return 0
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return s(usage.ru_utime) + s(usage.ru_stime)
    }

    static func monotonic() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Runs `body`, measuring it; logs its CLOCK_MONOTONIC interval (for `perf report --time`).
    static func run<R>(_ label: String, log: (String) -> Void, sampleRSS: Bool = false, _ body: () throws -> R) rethrows -> (R, Sample) {
        if canResetPeak { resetPeak() }
        let sampler = sampleRSS ? RSSSampler() : nil
        let rss0 = status("VmRSS")
        let cpu0 = cpuSeconds()
        let t0 = monotonic()
        let r = try body()
        let t1 = monotonic()
        let cpu1 = cpuSeconds()
        let maxima = sampler?.stop() ?? (anon: status("RssAnon"), file: status("RssFile"))
        let sample = Sample(wall: t1 - t0, cpu: cpu1 - cpu0, peakKiB: status("VmHWM"), rssDeltaKiB: status("VmRSS") - rss0,
                            anonKiB: maxima.anon, fileKiB: maxima.file)
        log(String(format: "%@: %.3f s wall, %.3f s cpu, peak %d MiB, anon %d MiB + file %d MiB [monotonic %.6f,%.6f]",
                   label, sample.wall, sample.cpu, sample.peakKiB >> 10, sample.anonKiB >> 10, sample.fileKiB >> 10, t0, t1))
        return (r, sample)
    }
}

/// A Markdown table with right-aligned numeric columns.
func renderTable(_ header: [String], _ rows: [[String]]) -> String {
    var widths = header.map(\.count)
    for row in rows { for (j, cell) in row.enumerated() { widths[j] = max(widths[j], cell.count) } }
    func line(_ cells: [String]) -> String {
        "| " + cells.enumerated().map { j, cell in
            j == 0 ? cell.padding(toLength: widths[j], withPad: " ", startingAt: 0)
                   : String(repeating: " ", count: widths[j] - cell.count) + cell
        }.joined(separator: " | ") + " |"
    }
    let rule = "|" + widths.enumerated().map { j, w in " " + String(repeating: "-", count: w) + (j == 0 ? " " : ":") }.joined(separator: "|") + "|"
    return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
}

func formatTime(_ seconds: Double) -> String {
    seconds >= 10 ? String(format: "%.2f s", seconds) : String(format: "%.1f ms", seconds * 1000)
}

func formatMiB(_ kib: Int) -> String { String(format: "%.0f MiB", Double(kib) / 1024) }

extension Int {
    /// 1000000 -> "1,000,000".
    var grouped: String {
        let digits = String(Swift.abs(self))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return self < 0 ? "-" + out : out
    }
}
