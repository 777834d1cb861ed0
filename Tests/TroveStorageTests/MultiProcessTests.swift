import Foundation
import TestWaits
import Testing
@testable import TroveStorage
import TestRandom

/// The built StorageProbe helper, next to the test bundle.
func probePath() throws -> String {
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = dir.appendingPathComponent("StorageProbe").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    for b in Bundle.allBundles {
        let candidate = b.bundleURL.deletingLastPathComponent().appendingPathComponent("StorageProbe").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    throw StorageError.invalidArgument("StorageProbe not found near \(CommandLine.arguments[0])")
}

func runProbe(_ args: [String], stdout: Pipe? = nil) throws -> Process {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: try probePath())
    p.arguments = args
    if let stdout { p.standardOutput = stdout }
    try p.run()
    return p
}

/// The commit counters a probe prints, a line each, as it acknowledges commits.
private struct Acknowledgements {
    let handle: FileHandle
    /// The greatest counter read so far.
    var last: Int64
    private var buffer = Data()

    init(handle: FileHandle, last: Int64) {
        self.handle = handle
        self.last = last
    }

    /// Reads until `wanted` more counters have come, or the output ends.
    mutating func read(_ wanted: Int) {
        var got = 0
        while got < wanted {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let nl = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...nl)
                if let v = Int64(line) { last = max(last, v); got += 1 }
            }
        }
    }

    /// After the probe is gone: the counters it printed before dying count too.
    mutating func readToEnd() {
        buffer.append(handle.readDataToEndOfFile())
        for line in String(decoding: buffer, as: UTF8.self).split(separator: "\n") {
            if let v = Int64(line) { last = max(last, v) }
        }
        buffer = Data()
    }
}

@Suite(.serialized) struct MultiProcessTests {
    @Test func killNineNeverLosesAnAcknowledgedCommitNorLeavesAPartialOne() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("kill.trove")
        var rng = SplitMix64(seed: 42)
        var lastAcked: Int64 = 0
        for round in 0..<8 {
            let pipe = Pipe()
            let child = try runProbe(["count-writer", path, "1000000"], stdout: pipe)
            // Read a random number of acknowledgements, then kill the writer mid-stream.
            let wanted = 1 + Int(rng.next() % 150)
            var acknowledged = Acknowledgements(handle: pipe.fileHandleForReading, last: lastAcked)
            acknowledged.read(wanted)
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            acknowledged.readToEnd()
            lastAcked = acknowledged.last

            let s = try Storage(path: path)
            try s.read { (tx) throws in
                let t = try #require(try tx.tree(named: "log"))
                let n = try #require(try tx.get(t, bytes("n"))).withUnsafeBytes { Int64(bigEndian: $0.loadUnaligned(as: Int64.self)) }
                #expect(n >= lastAcked, "round \(round): acknowledged \(lastAcked), found \(n)")
                let sum = try #require(try tx.get(t, bytes("sum"))).withUnsafeBytes { Int64(bigEndian: $0.loadUnaligned(as: Int64.self)) }
                #expect(sum == n * (n + 1) / 2, "round \(round): a partial transaction")
                #expect(try tx.get(t, bytes("rec-\(n)"))?.count == Int(n % 3000))
                #expect(try tx.get(t, bytes("rec-\(n + 1)")) == nil)
                #expect(t.count == Int(n) + 2)
            }
            let report = try s.verify()
            #expect(report.isValid, "\(report)")
        }
    }

    /// A writer that fills, empties and vacuums the store, killed at random points (often
    /// mid-vacuum): every acknowledged commit is there, the store verifies, and the file is
    /// cut back by the next vacuum.
    @Test func killNineDuringVacuumsLosesNothingAcknowledged() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("vacuum.trove")
        var rng = SplitMix64(seed: 7)
        var lastAcked: Int64 = 0
        for round in 0..<6 {
            let pipe = Pipe()
            let child = try runProbe(["churn-vacuum", path, "1000"], stdout: pipe)
            let wanted = 1 + Int(rng.next() % 4)
            var acknowledged = Acknowledgements(handle: pipe.fileHandleForReading, last: lastAcked)
            acknowledged.read(wanted)
            // An acknowledgement is printed just before a vacuum starts: kill during it.
            usleep(UInt32(rng.next() % 30_000))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            acknowledged.readToEnd()
            lastAcked = acknowledged.last

            let s = try Storage(path: path)
            try s.read { (tx) throws in
                let t = try #require(try tx.tree(named: "log"))
                let n = try #require(try tx.get(t, bytes("n"))).withUnsafeBytes { Int64(bigEndian: $0.loadUnaligned(as: Int64.self)) }
                #expect(n >= lastAcked, "round \(round): acknowledged \(lastAcked), found \(n)")
                let sum = try #require(try tx.get(t, bytes("sum"))).withUnsafeBytes { Int64(bigEndian: $0.loadUnaligned(as: Int64.self)) }
                #expect(sum == n * (n + 1) / 2, "round \(round): a partial transaction")
                #expect(try tx.get(t, bytes("rec-\(n)"))?.count == Int(n % 3000))
                #expect(try tx.tree(named: "churn")?.count ?? 0 <= 3020)
            }
            #expect(try s.verify().isValid, "round \(round)")
            let report = try s.vacuum()
            let stats = try s.stats()
            #expect(report.bytesAfter == UInt64(stats.pageCount * stats.pageSize), "round \(round): \(report) \(stats)")
            #expect(try s.verify().isValid, "round \(round)")
        }
    }

    @Test func readersInOtherProcessesAlwaysSeeAConsistentSnapshot() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("bank.trove")
        let accounts = 50
        let s = try Storage(path: path)
        try s.write { tx in
            let t = try tx.createTree(named: "accounts")
            for a in 0..<accounts { try tx.put(t, bytes("acct-\(a)"), withUnsafeBytes(of: Int64(1000).bigEndian) { Array($0) }) }
        }
        let total = String(accounts * 1000)
        let writer = try runProbe(["transfer", path, "600", String(accounts)])
        let readers = try (0..<3).map { _ in try runProbe(["check-sum", path, "300", total]) }
        // This process reads too, while the others write.
        var reads = 0
        while writer.isRunning || reads < 50 {
            let sum = try s.read { tx -> Int64 in
                let c = try tx.cursor(try #require(try tx.tree(named: "accounts")))
                var sum: Int64 = 0
                var ok = try c.first()
                while ok { sum += try c.value().withUnsafeBytes { Int64(bigEndian: $0.loadUnaligned(as: Int64.self)) }; ok = try c.next() }
                return sum
            }
            #expect(sum == Int64(accounts * 1000))
            reads += 1
            if reads > 100_000 { break }
        }
        writer.waitUntilExit()
        for r in readers { r.waitUntilExit() }
        #expect(writer.terminationStatus == 0)
        #expect(readers.allSatisfy { $0.terminationStatus == 0 })
        #expect(try s.verify().isValid)
    }

    @Test func aDeadReadersSlotDoesNotPinPagesForever() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("pin.trove")
        let s = try Storage(path: path)
        try s.write { tx in try tx.put(try tx.createTree(named: "accounts"), bytes("acct-0"), withUnsafeBytes(of: Int64(5).bigEndian) { Array($0) }) }
        // A reader process that hangs inside a read transaction, then is killed.
        let reader = try runProbe(["check-sum", path, "100000000", "5"])
        // Wait until its slot is visible.
        var seen = false
        for _ in 0..<2_000_000 {
            if try s.stats().oldestReader != nil { seen = true; break }
        }
        #expect(seen)
        kill(reader.processIdentifier, SIGKILL)
        reader.waitUntilExit()
        try s.write { tx in try tx.put(try #require(try tx.tree(named: "accounts")), bytes("x"), bytes("y")) }
        #expect(try s.stats().oldestReader == nil)
    }
}

@Suite struct CommitObserverTests {
    @Test func commitsFromAnotherProcessAreObservedWithoutPolling() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("watch.trove")
        let s = try Storage(path: path)
        let seen = DispatchSemaphore(value: 0)
        let latest = LatestBox()
        let observer = s.observeCommits { txnid in
            latest.set(txnid)
            seen.signal()
        }
        defer { observer.cancel() }
        let child = try runProbe(["count-writer", path, "3"])
        child.waitUntilExit()
        #expect(child.terminationStatus == 0)
        // The observer has been (or is being) told; wait for the last commit's id.
        let target = s.latestTransactionID
        while latest.get() < target {
            guard WaitBudget.wait(for: seen, "the notification of transaction \(target)") else { break }
        }
        #expect(latest.get() == target)
    }

    @Test func releasingAnObserverOfAFileStopsIt() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let s = try Storage(path: dir.file("release.trove"))
        let latest = LatestBox()
        // The handler holds the canary, so the canary goes when the observer does.
        final class Canary: @unchecked Sendable {
            let gone = DispatchSemaphore(value: 0)
            deinit { gone.signal() }
        }
        let gone: DispatchSemaphore
        weak var released: CommitObserver?
        do {
            let canary = Canary()
            gone = canary.gone
            let observer = s.observeCommits { latest.set($0); withExtendedLifetime(canary) {} }
            released = observer
            try s.write { tx in try tx.put(try tx.createTree(named: "t"), bytes("k"), bytes("v")) }
            #expect(latest.get() == s.latestTransactionID)
        }
        // Its watch thread (blocked in poll on the lock file) does not keep it alive, though it
        // may hold it for the moment it takes to look at the commit above: wait for that.
        WaitBudget.wait(for: gone, "the end of the released observer")
        #expect(released == nil)
        try s.write { tx in try tx.put(try tx.createTree(named: "t"), bytes("k"), bytes("w")) }
        #expect(latest.get() < s.latestTransactionID)
    }

    @Test func commitsThroughTheSameStorageAreReportedAtOnce() throws {
        let s = try Storage.inMemory()
        let latest = LatestBox()
        let observer = s.observeCommits { latest.set($0) }
        try s.write { tx in try tx.put(try tx.createTree(named: "t"), bytes("k"), bytes("v")) }
        #expect(latest.get() == s.latestTransactionID)
        observer.cancel()
        try s.write { tx in try tx.put(try tx.createTree(named: "t"), bytes("k"), bytes("w")) }
        #expect(latest.get() < s.latestTransactionID)
    }
}

final class LatestBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: UInt64 = 0
    func set(_ v: UInt64) { lock.lock(); value = max(value, v); lock.unlock() }
    func get() -> UInt64 { lock.lock(); defer { lock.unlock() }; return value }
}

@Suite struct SharedFileTests {
    /// Two `Storage` instances on one file behave like two processes: the reader instance reads
    /// every meta from the shared mapping while the writer overwrites the slot two commits back.
    @Test func readersOfASecondInstanceNeverMixTwoCommits() async throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("shared.trove")
        let writer = try Storage(path: path)
        let accounts = 64
        try writer.write { tx in
            let t = try tx.createTree(named: "a")
            for i in 0..<accounts { try tx.put(t, key(i), withUnsafeBytes(of: Int64(100)) { Array($0) }) }
        }
        let reader = try Storage(path: path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var rng = SplitMix64(seed: 21)
                for _ in 0..<1500 {
                    try writer.write { tx in
                        let t = try #require(try tx.tree(named: "a"))
                        // Grow the tree now and then, so newer commits reference newer pages.
                        try tx.put(t, key(1000 + Int(rng.next() % 5000)), [UInt8](repeating: 0, count: 200))
                        let a = key(Int(rng.next() % UInt64(accounts))), b = key(Int(rng.next() % UInt64(accounts)))
                        let va = try tx.get(t, a)!.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
                        try tx.put(t, a, withUnsafeBytes(of: va - 1) { Array($0) })
                        let vb = try tx.get(t, b)!.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
                        try tx.put(t, b, withUnsafeBytes(of: vb + 1) { Array($0) })
                    }
                }
            }
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<1500 {
                        let total = try reader.read { tx -> Int64 in
                            let c = try tx.cursor(try #require(try tx.tree(named: "a")))
                            var sum: Int64 = 0
                            var ok = try c.first()
                            while ok {
                                let v = try c.value()
                                if v.count == 8 { sum += v.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) } }
                                ok = try c.next()
                            }
                            return sum
                        }
                        #expect(total == Int64(accounts * 100))
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

/// A program started with standard input, output and error closed never gets a store's
/// file on their descriptors, so its own writes to them never reach the store.
@Test func aStoreOpenedWithTheStandardStreamsClosedIsNeverWrittenThroughThem() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("closed-std-\(getpid()).trove").path
    defer { for suffix in ["", "-lock", "-log"] { unlink(path + suffix) } }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", #"exec "$0" print-into "$1" <&- >&- 2>&-"#, try probePath(), path]
    try p.run()
    p.waitUntilExit()
    #expect(p.terminationStatus == 0)
    let storage = try Storage(path: path)
    #expect(try storage.read { tx in try tx.tree(named: "log").flatMap { try tx.get($0, Array("n".utf8)) } } == withUnsafeBytes(of: Int64(2).bigEndian) { Array($0) })
    #expect(try storage.verify().isValid)
}
