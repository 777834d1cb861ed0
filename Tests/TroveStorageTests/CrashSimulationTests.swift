import Foundation
import Testing
@testable import TroveStorage
import TestRandom

/// Crashes a simulated disk at random points of a run of commits. After each crash the store
/// must open, pass `verify()`, and hold exactly the state of one committed prefix that includes
/// every commit reported durable. 3,200 crash points in all (800 runs, 4 power cuts each).
@Suite struct CrashSimulationTests {
    /// The content of tree "t" after each commit (index 0: before the first).
    typealias States = [[[UInt8]: [UInt8]]]

    static func content(_ s: Storage) throws -> [[UInt8]: [UInt8]] {
        var out: [[UInt8]: [UInt8]] = [:]
        for (k, v) in try s.read({ try $0.dump("t") }) { out[k] = v }
        return out
    }

    typealias Run = (states: States, durableThrough: Int, attempted: Int, disk: SimulatedDisk, log: SimulatedDisk?)

    /// A commit log small enough that runs fill it (checkpoints) and that some commits are too
    /// large for it (written in place).
    static func smallLog(_ disk: SimulatedDisk) -> CommitLog { CommitLog(io: disk, capacity: 160 << 10, largestRecord: 40 << 10) }

    /// Runs commits until the disk "dies" after `failAfter` I/O calls (on the store and its log,
    /// with `withLog`); returns the states, how many commits were acknowledged durable, and the disks.
    static func runUntilCrash(seed: UInt64, failAfter: Int, durability: Durability, withLog: Bool = false,
                              directLog: Bool = false) throws -> Run {
        var rng = SplitMix64(seed: seed)
        let disk = SimulatedDisk()
        let logDisk = withLog ? SimulatedDisk() : nil
        logDisk?.acceptsDirectWrites = directLog
        var o = StorageOptions()
        o.durability = durability
        let s = try logDisk.map { try Storage(io: disk, log: smallLog($0), options: o) } ?? Storage(io: disk, options: o)
        disk.failAfter = failAfter
        logDisk?.power = disk.power
        var states: States = [[:]]
        var current: [[UInt8]: [UInt8]] = [:]
        var durableThrough = 0
        for _ in 0..<200 {
            var next = current
            do {
                let tx = try s.beginWrite()
                let t = try tx.createTree(named: "t")
                let puts = withLog && rng.next() % 8 == 0 ? 300 : 1 + Int(rng.next() % 40)
                for _ in 0..<puts {
                    let k = key(Int(rng.next() % 500))
                    if rng.next() % 4 == 0 {
                        try tx.delete(t, k)
                        next[k] = nil
                    } else {
                        let v = ModelTests.randomValue(&rng)
                        try tx.put(t, k, v)
                        next[k] = v
                    }
                }
                states.append(next)
                try tx.commit()
                current = next
                if durability == .durable {
                    durableThrough = states.count - 1
                } else if rng.next() % 5 == 0 {
                    try s.sync()
                    durableThrough = states.count - 1
                }
            } catch {
                break
            }
        }
        return (states, durableThrough, states.count - 1, disk, logDisk)
    }

    /// Returns how many direct writes the run's log took.
    @discardableResult
    static func crashAndCheck(seed: UInt64, durability: Durability, withLog: Bool = false, directLog: Bool = false) throws -> Int {
        var rng = SplitMix64(seed: seed &* 7919)
        let failAfter = 3 + Int(rng.next() % 400)
        let run = try runUntilCrash(seed: seed, failAfter: failAfter, durability: durability, withLog: withLog, directLog: directLog)
        // Several power cuts of the same moment: each drops and tears a different set of writes.
        for _ in 0..<4 {
            let image = run.disk.crashImage(using: &rng)
            guard let log = run.log else { try check(run, image: image, seed: seed); continue }
            var logImage = log.crashImage(using: &rng)
            var dataImage = image
            // Half the time the power fails again during recovery's replay.
            if rng.next() % 2 == 0 {
                let data = SimulatedDisk(durable: dataImage), logDisk = SimulatedDisk(durable: logImage)
                data.failAfter = Int(rng.next() % 12)
                logDisk.power = data.power
                _ = try? Storage(io: data, log: smallLog(logDisk))
                dataImage = data.crashImage(using: &rng)
                logImage = logDisk.crashImage(using: &rng)
            }
            try check(run, image: dataImage, logImage: logImage, seed: seed)
        }
        return run.log?.directWrites ?? 0
    }

    static func check(_ run: Run, image: [UInt8], logImage: [UInt8]? = nil, seed: UInt64) throws {
        let disk = SimulatedDisk(durable: image)
        let reopened = try logImage.map { try Storage(io: disk, log: smallLog(SimulatedDisk(durable: $0))) } ?? Storage(io: disk)
        let report = try reopened.verify()
        #expect(report.isValid, "seed \(seed): \(report)")
        let found = try content(reopened)
        let candidates = run.durableThrough...run.attempted
        #expect(candidates.contains { run.states[$0] == found },
                "seed \(seed): state after crash is no committed prefix at or after the last durable commit \(run.durableThrough) (of \(run.attempted))")
        // The recovered store takes new writes.
        try reopened.write { tx in try tx.put(try tx.createTree(named: "t"), bytes("after"), bytes("crash")) }
        #expect(try reopened.verify().isValid)
    }

    @Test func crashesDuringDurableCommitsLoseNothingAcknowledged() throws {
        for seed in 1...300 { try CrashSimulationTests.crashAndCheck(seed: UInt64(seed), durability: .durable) }
    }

    @Test func crashesDuringLoggedCommitsLoseNothingAcknowledged() throws {
        for seed in 2001...2300 { try CrashSimulationTests.crashAndCheck(seed: UInt64(seed), durability: .durable, withLog: true) }
    }

    /// The same, with the log's records written as direct writes (whole blocks, durable at
    /// once; the one the power cuts short is torn).
    @Test func crashesDuringLoggedCommitsWrittenDirectLoseNothingAcknowledged() throws {
        var direct = 0
        for seed in 4001...4300 {
            direct += try CrashSimulationTests.crashAndCheck(seed: UInt64(seed), durability: .durable, withLog: true, directLog: true)
        }
        #expect(direct >= 300, "the runs took the direct path: \(direct) direct writes")
    }

    @Test func crashesDuringNoSyncCommitsWithACommitLogFallBackToTheLastSync() throws {
        for seed in 3001...3150 { try CrashSimulationTests.crashAndCheck(seed: UInt64(seed), durability: .noSync, withLog: true) }
    }

    @Test func crashesDuringNoSyncCommitsFallBackToTheLastSync() throws {
        for seed in 1001...1200 { try CrashSimulationTests.crashAndCheck(seed: UInt64(seed), durability: .noSync) }
    }
}
