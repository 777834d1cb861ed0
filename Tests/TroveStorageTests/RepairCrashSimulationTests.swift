import Testing
@testable import TroveStorage
import TestRandom

/// Crashes while deletes repair an older file's shapes (runs and chains of one-child branches,
/// leaves emptied or nearly so), with and without the commit log, and with vacuums between
/// the deletes (with and without the log): after each crash the store opens, verifies, and
/// holds exactly the state of a committed prefix that includes every acknowledged commit
/// (`CrashSimulationTests.check`).
@Suite struct RepairCrashSimulationTests {
    /// The shapes, made before the power budget starts: tree "t" of 2,500 keys of 200 bytes
    /// (three levels), a run of three one-child branches under the root and two single ones,
    /// some of their leaves nearly empty, and leaves emptied at random.
    static func oldShapes(_ s: Storage, _ rng: inout SplitMix64) throws {
        var present = Set<[UInt8]>()
        (_, present) = try OneChildRepairTests.wideThreeLevels(in: s)
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            for b in [1, 2, 3, 5, 7] {
                for k in try tx.oneChildBranch(t, path: [b]) { present.remove(k) }
                if rng.chance(50) { for k in try tx.emptyLeaf(t, path: [b], keeping: 2) { present.remove(k) } }
            }
            for _ in 0..<4 {
                let b = rng.int(try tx.childCount(t, path: []))
                let leaf = rng.int(try tx.childCount(t, path: [b]))
                for k in try tx.emptyLeaf(t, path: [b, leaf], keeping: rng.int(2)) { present.remove(k) }
            }
        }
    }

    /// Commits on a store with `oldShapes`, on a disk that dies after `failAfter` I/O calls:
    /// each deletes the first key under a one-child branch while one is left (the repair),
    /// and a few keys at random, and puts some (a few with overflow values); with `vacuums`,
    /// every third commit is followed by a vacuum; `pagesMoved` gets each finished vacuum's
    /// count.
    static func runUntilCrash(seed: UInt64, failAfter: Int, withLog: Bool, vacuums: Bool,
                              pagesMoved: inout [Int]) -> CrashSimulationTests.Run {
        var rng = SplitMix64(seed: seed)
        let disk = SimulatedDisk()
        let logDisk = withLog ? SimulatedDisk() : nil
        var states: CrashSimulationTests.States = []
        let options = OneChildRepairTests.withoutVacuum
        guard let s = try? logDisk.map({ try Storage(io: disk, log: CrashSimulationTests.smallLog($0), options: options) }) ?? Storage(io: disk, options: options),
              (try? oldShapes(s, &rng)) != nil, let start = try? CrashSimulationTests.content(s) else {
            Issue.record("seed \(seed): the shapes were not made")
            return ([[:]], 0, 0, disk, logDisk)
        }
        states = [start]
        var current = start
        disk.failAfter = failAfter
        logDisk?.power = disk.power
        var durableThrough = 0
        for round in 0..<40 {
            var next = current
            do {
                let tx = try s.beginWrite()
                let t = try tx.createTree(named: "t")
                if let path = try OneChildRepairTests.pathToOneChildBranch(tx, t),
                   let k = try OneChildRepairTests.firstKey(tx, t, under: path) {
                    try tx.delete(t, k)
                    next[k] = nil
                }
                let keys = Array(next.keys)
                for _ in 0..<(1 + rng.int(6)) where !keys.isEmpty {
                    let k = rng.pick(keys)
                    try tx.delete(t, k)
                    next[k] = nil
                }
                for _ in 0..<rng.int(4) {
                    let k = TreeShapeTests.longKey(rng.int(3_000))
                    let v = [UInt8](repeating: UInt8(truncatingIfNeeded: rng.next()), count: rng.chance(10) ? 2_500 : 40)
                    try tx.put(t, k, v)
                    next[k] = v
                }
                states.append(next)
                try tx.commit()
                current = next
                durableThrough = states.count - 1
                if vacuums && round % 3 == 2 { pagesMoved.append(try s.vacuum().pagesMoved) }
            } catch {
                break
            }
        }
        return (states, durableThrough, states.count - 1, disk, logDisk)
    }

    /// Runs `runUntilCrash` and checks three crash images of it; returns each finished
    /// vacuum's `pagesMoved`.
    @discardableResult
    static func crashAndCheck(seed: UInt64, withLog: Bool = false, vacuums: Bool = false) throws -> [Int] {
        var rng = SplitMix64(seed: seed &* 7919)
        // Most of the repairs are in the first commits.
        let failAfter = 1 + Int(rng.next() % 200)
        var pagesMoved: [Int] = []
        let run = runUntilCrash(seed: seed, failAfter: failAfter, withLog: withLog, vacuums: vacuums, pagesMoved: &pagesMoved)
        for _ in 0..<3 {
            let image = run.disk.crashImage(using: &rng)
            try CrashSimulationTests.check(run, image: image, logImage: run.log?.crashImage(using: &rng), seed: seed)
        }
        return pagesMoved
    }

    @Test func crashesDuringRepairingDeletesLoseNothingAcknowledged() throws {
        for seed in 8001...8080 { try Self.crashAndCheck(seed: UInt64(seed)) }
    }

    @Test func crashesDuringRepairingDeletesWithACommitLogLoseNothingAcknowledged() throws {
        for seed in 8101...8180 { try Self.crashAndCheck(seed: UInt64(seed), withLog: true) }
    }

    @Test func crashesDuringRepairingDeletesAndVacuumsLoseNothingAcknowledged() throws {
        // A vacuum walks the trees (and repairs what it passes) only when it moves pages,
        // which it does only with enough pages free: the runs must include such vacuums.
        var moving = 0
        for seed in 8201...8260 {
            let moved = try Self.crashAndCheck(seed: UInt64(seed), vacuums: true)
            if moved.contains(where: { $0 > 0 }) { moving += 1 }
        }
        #expect(moving >= 20, "runs with a vacuum that moved pages (and walked the trees): \(moving)")
    }

    /// Vacuums between logged commits: a round goes through the log when the log has room
    /// for it, else it is written in place and syncs the data file (emptying the log), and
    /// the cut checkpoints; a power cut anywhere in that order loses nothing acknowledged.
    @Test func crashesDuringRepairingDeletesAndVacuumsWithACommitLogLoseNothingAcknowledged() throws {
        var moving = 0
        for seed in 8301...8420 {
            let moved = try Self.crashAndCheck(seed: UInt64(seed), withLog: true, vacuums: true)
            if moved.contains(where: { $0 > 0 }) { moving += 1 }
        }
        #expect(moving >= 30, "runs with a vacuum that moved pages: \(moving)")
    }
}
