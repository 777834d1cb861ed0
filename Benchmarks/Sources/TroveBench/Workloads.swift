import BenchSupport
import Foundation

/// The workloads of redb's `lmdb_benchmark`, sized by `n`, run in order against one store.
struct Workloads {
    let n: Int
    let individualWrites = 1_000
    let batches = 100
    let batchSize = 1_000
    let scanLength = 10
    var reads: Int { n }
    var scans: Int { n / 2 }
    var removals: Int { n / 2 }
    /// Every pair any phase inserts: bulk, then individual, then batches.
    var totalPairs: Int { n + individualWrites + batches * batchSize }

    /// What a phase measures: a duration (lower is better) or a file size after a phase.
    enum Kind { case time, size }

    struct Phase {
        let label: String
        let kind: Kind
    }

    var phases: [Phase] {
        [
            Phase(label: "bulk load: \(n.grouped) inserts, 1 txn", kind: .time),
            Phase(label: "individual writes: \(individualWrites.grouped) txns x 1 insert", kind: .time),
            Phase(label: "batch writes: \(batches) txns x \(batchSize.grouped) inserts", kind: .time),
            Phase(label: "random reads: \(reads.grouped) gets, 1 read txn", kind: .time),
            Phase(label: "range scans: \(scans.grouped) seeks x \(scanLength) entries, 1 read txn", kind: .time),
            Phase(label: "removals: \(removals.grouped) deletes, 1 txn", kind: .time),
            Phase(label: "file size after bulk load", kind: .size),
            Phase(label: "file size after individual writes", kind: .size),
            Phase(label: "file size after batch writes", kind: .size),
            Phase(label: "file size after removals", kind: .size),
        ]
    }

    /// One engine's results, in the order of `phases` (seconds or bytes), plus what the reads
    /// returned, for checking the engines against each other.
    struct Result {
        var values: [Double] = []
        /// CPU time (user + system) of each timed phase, in seconds: less sensitive than wall
        /// time to other processes on a shared machine, and blind to time spent waiting on fsync.
        var cpuTimes: [Double] = []
        var readChecksum: UInt64 = 0
        var scanChecksum: UInt64 = 0
        var scanEntries = 0
    }

    /// Runs every phase against a fresh store of `engine` in `directory`.
    func run<E: Engine>(_ engine: E.Type, settings: EngineSettings, data: Dataset, readKeys: [Int], scanStarts: [Int],
                        directory: String, log: (String) -> Void) throws -> Result {
        let store = try E(directory: directory, settings: settings)
        defer { store.close() }
        var times: [Double] = []
        var sizes: [Double] = []
        var result = Result()

        func timed<R>(_ what: String, _ body: () throws -> R) rethrows -> R {
            let cpuStart = Workloads.cpuSeconds()
            let start = Workloads.monotonicSeconds()
            let r = try body()
            let end = Workloads.monotonicSeconds()
            let cpu = Workloads.cpuSeconds() - cpuStart
            times.append(end - start)
            result.cpuTimes.append(cpu)
            // The CLOCK_MONOTONIC interval lets `perf report --time` cut a `perf record -k monotonic` profile to one phase.
            log("\(E.name): \(what) in \(Table.formatTime(end - start)) (CPU \(Table.formatTime(cpu))) "
                + String(format: "[monotonic %.6f,%.6f]", start, end))
            return r
        }
        func recordSize() throws { sizes.append(Double(try store.fileSize())) }

        try timed("bulk load") { try store.insert(data, 0..<n) }
        try recordSize()

        try timed("individual writes") {
            for i in n..<(n + individualWrites) { try store.insert(data, i..<(i + 1)) }
        }
        try recordSize()

        let batchStart = n + individualWrites
        try timed("batch writes") {
            for b in 0..<batches {
                let first = batchStart + b * batchSize
                try store.insert(data, first..<(first + batchSize))
            }
        }
        try recordSize()

        result.readChecksum = try timed("random reads") { try store.read(data, keys: readKeys) }
        let scan = try timed("range scans") { try store.scan(data, starts: scanStarts, length: scanLength) }
        result.scanChecksum = scan.checksum
        result.scanEntries = scan.entries

        let removed = try timed("removals") { try store.remove(data, 0..<removals) }
        guard removed == removals else { throw BenchError("\(E.name) removed \(removed) of \(removals) keys") }
        try recordSize()

        result.values = times + sizes
        return result
    }

    static func monotonicSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }

    /// User plus system CPU time of this process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) * 1e-6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The checksum every engine's random reads must return.
    func expectedReadChecksum(_ data: Dataset, readKeys: [Int]) -> UInt64 {
        var sum: UInt64 = 0
        for i in readKeys { Dataset.fold(data.value(i), into: &sum) }
        return sum
    }
}

extension Int {
    /// 1000000 -> "1,000,000".
    var grouped: String {
        let digits = Array(String(self))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }
}
