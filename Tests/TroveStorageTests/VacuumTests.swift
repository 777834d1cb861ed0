import Foundation
import Testing
@testable import TroveStorage
import TestRandom

/// `Storage.vacuum()` and the automatic policy: the file shrinks online, readers keep what
/// they see, and a crash part way loses nothing.
@Suite struct VacuumTests {
    static func manual() -> StorageOptions {
        var o = StorageOptions()
        o.compactsAutomatically = false
        return o
    }

    /// Fills trees "a" (small values) and "b" (some overflow values), then deletes all but
    /// every `keep`th key of each: most of the file is free, much of the live data at its end.
    static func fillAndThin(_ s: Storage, count: Int = 6000, keep: Int = 10) throws {
        try s.write { tx in
            let a = try tx.createTree(named: "a"), b = try tx.createTree(named: "b")
            for i in 0..<count {
                try tx.put(a, key(i), [UInt8](repeating: UInt8(i & 0xFF), count: 100))
                if i % 20 == 0 { try tx.put(b, key(i), [UInt8](repeating: UInt8(i & 0x7F), count: 3000 + i % 7)) }
            }
        }
        try s.write { tx in
            let a = try tx.createTree(named: "a"), b = try tx.createTree(named: "b")
            for i in 0..<count where i % keep != 0 { try tx.delete(a, key(i)) }
            for i in stride(from: 0, to: count, by: 20) where (i / 20) % keep != 0 { try tx.delete(b, key(i)) }
        }
    }

    static func contents(_ s: Storage) throws -> [[([UInt8], [UInt8])]] {
        try s.read { tx in [try tx.dump("a"), try tx.dump("b")] }
    }

    static func same(_ x: [[([UInt8], [UInt8])]], _ y: [[([UInt8], [UInt8])]]) -> Bool {
        x.count == y.count && zip(x, y).allSatisfy { a, b in a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 } }
    }

    @Test func vacuumShrinksTheFileAndKeepsEveryEntry() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let s = try Storage(path: dir.file("v.trove"), options: VacuumTests.manual())
        try VacuumTests.fillAndThin(s)
        let before = try VacuumTests.contents(s)
        let report = try s.vacuum()
        #expect(report.pagesMoved > 0)
        #expect(!report.heldByReaders)
        #expect(report.bytesAfter < report.bytesBefore / 3, "\(report)")
        #expect(try s.io.size() == report.bytesAfter)
        let stats = try s.stats()
        #expect(UInt64(stats.pageCount * stats.pageSize) == report.bytesAfter)
        #expect(stats.freePages + stats.pendingPages < stats.pageCount / 4, "\(stats)")
        #expect(try s.verify().isValid)
        #expect(VacuumTests.same(before, try VacuumTests.contents(s)))
        // The store goes on taking writes, and another process opening it sees the same.
        try s.write { tx in try tx.put(try tx.createTree(named: "a"), key(1), bytes("after")) }
        let other = try Storage(path: dir.file("v.trove"))
        let value = try other.read { tx in try tx.tree(named: "a").flatMap { try tx.get($0, key(1)) } }
        #expect(value == bytes("after"))
        #expect(try other.verify().isValid)
    }

    /// Nearly empty leaves (an older writer's) at the end of the file: the vacuum moves each,
    /// then merges them under the branch it rewrites. The pages merged away are not counted
    /// as moved: the count is at most the pages that hold data when it ends.
    @Test func pagesMovedCountsOnlyMovedPagesThatStillHoldData() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let s = try Storage(path: dir.file("m.trove"), options: VacuumTests.manual())
        // Tree "f" first, then "t": dropping "f" frees the pages before t's.
        try s.write { tx in
            let f = try tx.createTree(named: "f")
            for i in 0..<4_000 { try tx.append(f, key(i), [UInt8](repeating: 7, count: 200)) }
        }
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<1_000 { try tx.append(t, key(i), [UInt8](repeating: 3, count: 100)) }
        }
        let leaves = try s.read { tx in try tx.childCount(try #require(try tx.tree(named: "t")), path: []) }
        #expect(leaves > 10)
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            for i in 0..<leaves { _ = try tx.emptyLeaf(t, path: [i], keeping: 1) }
        }
        #expect(try s.write { tx in try tx.dropTree(named: "f") })
        let report = try s.vacuum()
        let after = try TreeShapeTests.summary(s)
        #expect(after.entries == leaves)
        #expect(after.pages < leaves / 2, "the leaves were not merged: \(after)")
        #expect(report.pagesMoved > 0)
        #expect(report.pagesMoved <= (try s.stats()).usedPages, "\(report)")
        #expect(try s.verify().isValid)
    }

    @Test func aVacuumOfACompactFileChangesNothing() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let s = try Storage(path: dir.file("v.trove"), options: VacuumTests.manual())
        try s.write { tx in
            let a = try tx.createTree(named: "a")
            for i in 0..<2000 { try tx.append(a, key(i), [UInt8](repeating: 1, count: 50)) }
        }
        let txnid = s.latestTransactionID
        let report = try s.vacuum()
        #expect(report.pagesMoved == 0)
        #expect(report.bytesAfter == report.bytesBefore)
        #expect(s.latestTransactionID - txnid <= 1)
        #expect(try s.verify().isValid)
    }

    @Test func aReaderKeepsItsSnapshotAndTheFileUntilItEnds() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let s = try Storage(path: dir.file("v.trove"), options: VacuumTests.manual())
        try VacuumTests.fillAndThin(s)
        let expected = try VacuumTests.contents(s)
        let reader = try s.beginRead()
        let first = try s.vacuum()
        #expect(first.heldByReaders)
        // Whatever moved, the old snapshot reads as it did.
        #expect(VacuumTests.same([try reader.dump("a"), try reader.dump("b")], expected))
        #expect(try s.verify().isValid)
        reader.end()
        let second = try s.vacuum()
        #expect(!second.heldByReaders)
        #expect(second.bytesAfter < first.bytesBefore / 3, "\(first) \(second)")
        #expect(try s.verify().isValid)
        #expect(VacuumTests.same(expected, try VacuumTests.contents(s)))
    }

    @Test func aWriterWithAStaleFileSizeExtendsTheCutFile() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("v.trove")
        let s = try Storage(path: path, options: VacuumTests.manual())
        let other = try Storage(path: path, options: VacuumTests.manual())
        try VacuumTests.fillAndThin(s)
        // `other` writes once, so that it has seen the file at its largest.
        try other.write { tx in try tx.put(try tx.createTree(named: "c"), key(0), bytes("x")) }
        try s.vacuum()
        // Pages `other` takes from the end are past the cut file's end: it must grow the file.
        try other.write { tx in
            let c = try tx.createTree(named: "c")
            for i in 0..<3000 { try tx.put(c, key(i), [UInt8](repeating: 2, count: 200)) }
        }
        let stats = try other.stats()
        #expect(stats.fileBytes >= UInt64(stats.pageCount * stats.pageSize))
        #expect(try other.verify().isValid)
        #expect(try s.verify().isValid)
    }

    @Test func anEncryptedStoreVacuums() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        var o = VacuumTests.manual()
        o.encryptionKey = [UInt8](repeating: 9, count: 64)
        let s = try Storage(path: dir.file("v.trove"), options: o)
        try VacuumTests.fillAndThin(s, count: 3000)
        let before = try VacuumTests.contents(s)
        let report = try s.vacuum()
        #expect(report.bytesAfter < report.bytesBefore / 2, "\(report)")
        #expect(try s.verify().isValid)
        #expect(VacuumTests.same(before, try VacuumTests.contents(s)))
    }

    @Test func theAutomaticPolicyShrinksTheFileAfterALargeDelete() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let s = try Storage(path: dir.file("auto.trove"))
        try VacuumTests.fillAndThin(s)
        let stats = try s.stats()
        #expect(stats.freePages + stats.pendingPages < stats.pageCount / 2, "\(stats)")
        #expect(stats.fileBytes == UInt64(stats.pageCount * stats.pageSize))
        #expect(try s.verify().isValid)

        let off = try Storage(path: dir.file("off.trove"), options: VacuumTests.manual())
        try VacuumTests.fillAndThin(off)
        let kept = try off.stats()
        #expect(kept.freePages + kept.pendingPages > kept.pageCount / 2, "\(kept)")
    }

    @Test func aFreeListLongerThanOneChunkIsCutBackWithTheFile() throws {
        // 4 KiB pages: a chunk covers 32,256 pages. Fill past it, then free nearly everything.
        let dir = TempDir()
        defer { dir.cleanup() }
        let s = try Storage(path: dir.file("v.trove"), options: VacuumTests.manual())
        try s.write { tx in
            let a = try tx.createTree(named: "a")
            for i in 0..<40_000 { try tx.put(a, key(i), [UInt8](repeating: 3, count: 3000)) }
        }
        #expect(try s.stats().pageCount > 33_000)
        try s.write { tx in
            let a = try tx.createTree(named: "a")
            for i in 0..<40_000 where i % 100 != 0 { try tx.delete(a, key(i)) }
        }
        let report = try s.vacuum()
        #expect(report.bytesAfter < 8 << 20, "\(report)")
        #expect(try s.verify().isValid)
        #expect(try s.read { try $0.dump("a") }.count == 400)
        let reopened = try Storage(path: dir.file("v.trove"))
        #expect(try reopened.verify().isValid)
    }

    // MARK: The files a vacuum leaves

    /// The bytes of the store's data file and its commit log: what a vacuum is asked to shrink.
    static func storeBytes(_ path: String) -> UInt64 {
        [path, path + "-log"].reduce(0) { sum, file in
            sum + (((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber)?.uint64Value ?? 0)
        }
    }

    /// A vacuum whose moves a snapshot keeps from being cut off leaves the data file as it
    /// was, and its rounds do not go through the commit log (a log that has to grow for them
    /// would leave the files larger than before); once the snapshot ends, the next vacuum
    /// cuts the file.
    @Test func aVacuumHeldByAReaderLeavesTheFilesNoLarger() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("v.trove")
        // No overflow values (their moves are written early, which no record repeats), and a
        // store closed once: the log is back at its initial size.
        do {
            let s = try Storage(path: path, options: VacuumTests.manual())
            try s.write { tx in
                let a = try tx.createTree(named: "a")
                for i in 0..<20_000 { try tx.put(a, key(i), [UInt8](repeating: UInt8(i & 0xFF), count: 100)) }
            }
            try s.write { tx in
                let a = try tx.createTree(named: "a")
                for i in 0..<18_000 where i % 10 != 0 { try tx.delete(a, key(i)) }
            }
        }
        let s = try Storage(path: path, options: VacuumTests.manual())
        let expected = try s.read { try $0.dump("a") }
        let start = VacuumTests.storeBytes(path)
        let reader = try s.beginRead()
        let held = try s.vacuum()
        #expect(held.heldByReaders && held.pagesMoved > 0, "\(held)")
        #expect(VacuumTests.storeBytes(path) <= start, "\(held), before: \(start) bytes, after: \(VacuumTests.storeBytes(path))")
        #expect(try reader.dump("a").count == expected.count)
        reader.end()
        let cut = try s.vacuum()
        #expect(!cut.heldByReaders)
        #expect(VacuumTests.storeBytes(path) < start / 2, "\(cut), before: \(start) bytes, after: \(VacuumTests.storeBytes(path))")
        #expect(try s.verify().isValid)
        #expect(try s.read { try $0.dump("a") }.elementsEqual(expected) { $0.0 == $1.0 && $0.1 == $1.1 })
    }

    /// A round whose record fits the room the commit log's file already has goes through the
    /// log: a vacuum held by a reader (so nothing cuts, nor checkpoints) syncs the data file
    /// not once, leaves the log's file as large as it was, and a power cut right after it
    /// loses none of its rounds.
    @Test func aRoundTheLogHoldsWithoutGrowingGoesThroughIt() throws {
        let disk = SimulatedDisk(), logDisk = SimulatedDisk()
        func log(_ io: SimulatedDisk) -> CommitLog { CommitLog(io: io, capacity: 4 << 20, largestRecord: 1 << 20, initialSize: 2 << 20) }
        let s = try Storage(io: disk, log: log(logDisk), options: VacuumTests.manual())
        try s.write { tx in
            let a = try tx.createTree(named: "a")
            for i in 0..<3_000 { try tx.put(a, key(i), [UInt8](repeating: UInt8(i & 0xFF), count: 100)) }
        }
        try s.write { tx in
            let a = try tx.createTree(named: "a")
            for i in 0..<2_700 where i % 10 != 0 { try tx.delete(a, key(i)) }
        }
        let expected = try s.read { try $0.dump("a") }
        let syncs = disk.syncs, logBytes = try logDisk.size()
        let reader = try s.beginRead()
        let held = try s.vacuum()
        #expect(held.heldByReaders && held.pagesMoved > 0, "\(held)")
        #expect(disk.syncs == syncs, "\(held): the data file was synced \(disk.syncs - syncs) times")
        #expect(try logDisk.size() == logBytes)
        let txnid = s.latestTransactionID
        let crashed = try Storage(io: SimulatedDisk(durable: disk.durableImage()),
                                  log: log(SimulatedDisk(durable: logDisk.durableImage())), options: VacuumTests.manual())
        #expect(crashed.latestTransactionID == txnid)
        #expect(try crashed.verify().isValid)
        #expect(try crashed.read { try $0.dump("a") }.elementsEqual(expected) { $0.0 == $1.0 && $0.1 == $1.1 })
        reader.end()
        let cut = try s.vacuum()
        #expect(!cut.heldByReaders && cut.bytesAfter < held.bytesBefore, "\(cut)")
        #expect(try s.verify().isValid)
    }

    /// ObjectBench's phases in small: four trees (records, a primary key of random strings,
    /// an index, backlinks) loaded in bulk, single-object commits, a delete of a tenth, then
    /// single-object commits again and a vacuum. The vacuum never leaves the files larger than
    /// it found them, with the automatic policy on or off.
    @Test(arguments: [false, true])
    func aVacuumAfterObjectBenchsPhasesLeavesTheFilesNoLarger(automatic: Bool) throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("bench.trove")
        var o = StorageOptions()
        o.compactsAutomatically = automatic
        let s = try Storage(path: path, options: o)
        let n = 10_000
        var rng = SplitMix64(seed: 28)
        let uids = (0..<(n + n / 10)).map { _ in Array(String(rng.next(), radix: 16).utf8) }
        let names = (0..<(n + n / 10)).map { i in Array("N\(rng.next() % 512) L\(rng.next() % 1024)".utf8) + key(i) }
        func insert(_ tx: WriteTransaction, _ i: Int) throws {
            try tx.put(try tx.createTree(named: "o"), key(i), [UInt8](repeating: UInt8(i & 0xFF), count: 60 + i % 50))
            try tx.put(try tx.createTree(named: "p"), uids[i], key(i))
            try tx.put(try tx.createTree(named: "n"), names[i], [])
            try tx.put(try tx.createTree(named: "b"), key(i % 1000) + key(i), [])
        }
        try s.write { tx in for i in 0..<n { try insert(tx, i) } }
        for i in n..<(n + n / 100) { try s.write { tx in try insert(tx, i) } }
        var order = Array(0..<(n + n / 100))
        order.shuffle(using: &rng)
        let deleted = order.prefix(n / 10)
        try s.write { tx in
            for i in deleted {
                try tx.delete(try tx.createTree(named: "o"), key(i))
                try tx.delete(try tx.createTree(named: "p"), uids[i])
                try tx.delete(try tx.createTree(named: "n"), names[i])
                try tx.delete(try tx.createTree(named: "b"), key(i % 1000) + key(i))
            }
        }
        for i in deleted.prefix(n / 100) { try s.write { tx in try insert(tx, i) } }
        let before = VacuumTests.storeBytes(path)
        let report = try s.vacuum()
        #expect(VacuumTests.storeBytes(path) <= before, "\(report), before: \(before) bytes, after: \(VacuumTests.storeBytes(path))")
        #expect(report.bytesAfter <= report.bytesBefore)
        #expect(try s.verify().isValid)
        #expect(try s.read { try $0.dump("o") }.count == n + n / 100 - n / 10 + n / 100)
    }

    // MARK: Writes that free less

    /// A page a transaction already copied is edited in place however often it changes
    /// again, spilled or not: updating every entry twice copies each page once.
    @Test func rewritingEveryEntryTwiceInOneTransactionCopiesEachPageOnce() throws {
        for spills in [false, true] {
            let dir = TempDir()
            defer { dir.cleanup() }
            var o = VacuumTests.manual()
            if spills { o.maxDirtyBytes = 64 << 10 }
            let s = try Storage(path: dir.file("w.trove"), options: o)
            try VacuumTests.fillAndThin(s, count: 6000, keep: 1)
            let before = try s.stats()
            try s.write { tx in
                let a = try tx.createTree(named: "a"), b = try tx.createTree(named: "b")
                for round in 0..<2 {
                    for i in 0..<6000 {
                        try tx.put(a, key(i), [UInt8](repeating: UInt8(round), count: 100))
                        if i % 20 == 0 { try tx.put(b, key(i), [UInt8](repeating: UInt8(round), count: 3000 + i % 7)) }
                    }
                }
            }
            let after = try s.stats()
            // Each used page once more, and the free list's own pages.
            #expect(after.pageCount <= 2 * before.usedPages + before.freePages + 8, "spills \(spills): \(before) -> \(after)")
            #expect(try s.verify().isValid)
        }
    }

    /// Updating every entry leaves the old copy of each page free; the automatic policy then
    /// brings the file back to the size of its data, round after round.
    @Test func theAutomaticPolicyKeepsRepeatedFullUpdatesNearTheSizeOfTheData() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let s = try Storage(path: dir.file("u.trove"))
        try VacuumTests.fillAndThin(s, count: 6000, keep: 1)
        let first = try s.stats().fileBytes
        for round in 0..<4 {
            try s.write { tx in
                let a = try tx.createTree(named: "a")
                for i in 0..<6000 { try tx.put(a, key(i), [UInt8](repeating: UInt8(round), count: 100)) }
            }
            let stats = try s.stats()
            #expect(stats.fileBytes <= first + first / 2, "round \(round): \(stats), first \(first)")
        }
        #expect(try s.verify().isValid)
    }

    /// Older files' shapes scattered through a tree (one-child branches alone, side by side
    /// and in chains, leaves emptied or nearly so) whose pages lie after free ones: the
    /// vacuum moves pages, walking every page of the tree, and leaves none of those shapes;
    /// the file, opened again, verifies and holds every entry, every leaf at one depth.
    @Test(arguments: [3, 17, 40])
    func aVacuumLeavesNoEmptyLeafNorOneChildBranch(seed: Int) throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("shapes.trove")
        var present = Set<[UInt8]>()
        do {
            let s = try Storage(path: path, options: VacuumTests.manual())
            // Tree "f" first, then "t": dropping "f" frees the pages before t's.
            try s.write { tx in
                let f = try tx.createTree(named: "f")
                for i in 0..<4_000 { try tx.put(f, key(i), [UInt8](repeating: 7, count: 200)) }
            }
            (_, present) = try OneChildRepairTests.fiveLevels(in: s)
            let dropped = try s.write { tx in try tx.dropTree(named: "f") }
            #expect(dropped)
            var rng = SplitMix64(seed: UInt64(seed))
            try OneChildRepairTests.scatterOldShapes(s, &rng, levels: 2...4, present: &present)
            let before = try TreeShapeTests.summary(s)
            #expect(before.oneChildBranches + before.emptyLeaves > 0)
            #expect(present.count > 1_000, "seed \(seed): \(before)")
            let depthsBefore = try OneChildRepairTests.leafDepths(s)
            #expect(depthsBefore == [before.depth], "before: seed \(seed): \(depthsBefore) \(before)")
            let txnid = s.latestTransactionID
            let report = try s.vacuum()
            #expect(report.pagesMoved > 0, "\(report)")
            #expect(try s.read { tx in try VacuumTests.mergeableUnderfullChildren(tx, try #require(try tx.tree(named: "t")), writtenAfter: txnid) } == 0)
            let after = try TreeShapeTests.summary(s)
            #expect(after.oneChildBranches == 0 && after.emptyLeaves == 0, "seed \(seed): \(after)")
            #expect(after.entries == present.count)
            let depthsAfter = try OneChildRepairTests.leafDepths(s)
            #expect(depthsAfter == [after.depth], "after: seed \(seed): \(depthsAfter) \(after)")
        }
        let reopened = try Storage(path: path, options: VacuumTests.manual())
        let summary = try TreeShapeTests.summary(reopened)
        #expect(summary.oneChildBranches == 0 && summary.emptyLeaves == 0, "seed \(seed): \(summary)")
        #expect(summary.entries == present.count)
        let depths = try OneChildRepairTests.leafDepths(reopened)
        #expect(depths == [summary.depth], "seed \(seed): \(depths) \(summary)")
        #expect(try reopened.read { try $0.dump("t") }.map(\.0) == present.sorted { $0.lexicographicallyPrecedes($1) })
    }

    /// Children under a quarter full, of branches written after `txnid`, that fit in one
    /// page with the sibling a delete would merge them with (the left one; the right one for
    /// the first child).
    static func mergeableUnderfullChildren(_ tx: ReadTransaction, _ t: Tree, writtenAfter txnid: UInt64) throws -> Int {
        let usable = tx.pageSize - PageLayout.headerSize - PageLayout.trailerSize
        var found = 0
        func walk(_ pgno: UInt64) throws {
            let n = try tx.node(pgno)
            guard !n.isLeaf else { return }
            for i in 0..<n.count { try walk(try n.child(i)) }
            guard PageHeader(n.p).txnid > txnid, n.count >= 2 else { return }
            for i in 0..<n.count {
                let c = try tx.node(try n.child(i))
                guard c.usedBytes < usable / 4 else { continue }
                let sibling = i > 0 ? i - 1 : 1
                let separator = c.isLeaf ? 0 : (try n.key(max(i, sibling))).count
                if c.usedBytes + (try tx.node(try n.child(sibling))).usedBytes + separator <= usable { found += 1 }
            }
        }
        if t.info.root != 0 { try walk(t.info.root) }
        return found
    }

    // MARK: Crashes

    /// Commits that fill and thin tree "t", each followed by a vacuum, on a disk that dies after
    /// `failAfter` I/O calls; the states as `CrashSimulationTests.check` takes them.
    static func runUntilCrash(seed: UInt64, failAfter: Int, durability: Durability, withLog: Bool) -> CrashSimulationTests.Run {
        var rng = SplitMix64(seed: seed)
        let disk = SimulatedDisk()
        let logDisk = withLog ? SimulatedDisk() : nil
        var o = StorageOptions()
        o.durability = durability
        var states: CrashSimulationTests.States = [[:]]
        var current: [[UInt8]: [UInt8]] = [:]
        var durableThrough = 0
        guard let s = try? logDisk.map({ try Storage(io: disk, log: CrashSimulationTests.smallLog($0), options: o) }) ?? Storage(io: disk, options: o) else {
            return (states, 0, 0, disk, logDisk)
        }
        disk.failAfter = failAfter
        logDisk?.power = disk.power
        for round in 0..<40 {
            var next = current
            do {
                let tx = try s.beginWrite()
                let t = try tx.createTree(named: "t")
                // Grow, then shrink: the file holds free pages, and live ones at its end.
                let puts = round % 2 == 0 ? 150 + Int(rng.next() % 150) : 10
                for _ in 0..<puts {
                    let k = key(Int(rng.next() % 2000))
                    let v = [UInt8](repeating: UInt8(truncatingIfNeeded: rng.next()), count: rng.next() % 10 == 0 ? 2500 : 60)
                    try tx.put(t, k, v)
                    next[k] = v
                }
                if round % 2 == 1 {
                    for k in next.keys where rng.next() % 4 != 0 {
                        try tx.delete(t, k)
                        next[k] = nil
                    }
                }
                states.append(next)
                try tx.commit()
                current = next
                if durability == .durable { durableThrough = states.count - 1 }
                try s.vacuum()
                if durability == .noSync {
                    try s.sync()
                    durableThrough = states.count - 1
                }
            } catch {
                break
            }
        }
        return (states, durableThrough, states.count - 1, disk, logDisk)
    }

    static func crashAndCheck(seed: UInt64, durability: Durability, withLog: Bool = false) throws {
        var rng = SplitMix64(seed: seed &* 7919)
        let failAfter = 10 + Int(rng.next() % 900)
        let run = runUntilCrash(seed: seed, failAfter: failAfter, durability: durability, withLog: withLog)
        for _ in 0..<3 {
            let image = run.disk.crashImage(using: &rng)
            try CrashSimulationTests.check(run, image: image, logImage: run.log?.crashImage(using: &rng), seed: seed)
        }
    }

    @Test func crashesDuringVacuumsLoseNothingAcknowledged() throws {
        for seed in 5001...5120 { try VacuumTests.crashAndCheck(seed: UInt64(seed), durability: .durable) }
    }

    @Test func crashesDuringVacuumsWithACommitLogLoseNothingAcknowledged() throws {
        for seed in 6001...6120 { try VacuumTests.crashAndCheck(seed: UInt64(seed), durability: .durable, withLog: true) }
    }

    @Test func crashesDuringVacuumsOfANoSyncStoreFallBackToADurableState() throws {
        for seed in 7001...7080 { try VacuumTests.crashAndCheck(seed: UInt64(seed), durability: .noSync) }
    }
}
