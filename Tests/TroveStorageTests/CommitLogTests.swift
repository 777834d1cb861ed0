import Foundation
import Testing
@testable import TroveStorage

/// Small durable commits become durable in the commit log (`CommitLog`); the data file is
/// synced at checkpoints, and the first open after a reboot replays the log into it.
@Suite struct CommitLogTests {
    private func put(_ s: Storage, _ i: Int, _ value: [UInt8]? = nil) throws {
        try s.write { tx in try tx.put(try tx.createTree(named: "t"), key(i), value ?? bytes("value \(i)")) }
    }

    private func values(_ s: Storage) throws -> [[UInt8]] {
        try s.read { tx in try tx.tree(named: "t") == nil ? [] : tx.dump("t").map(\.1) }
    }

    /// The store a power cut that lost every unsynced write of both disks would leave.
    private func recover(_ disk: SimulatedDisk, _ logDisk: SimulatedDisk) throws -> Storage {
        try Storage(io: SimulatedDisk(durable: disk.durableImage()), log: CommitLog(io: SimulatedDisk(durable: logDisk.durableImage())))
    }

    /// A store file at `path` that took three durable commits and was closed.
    private func closedStoreWithThreeCommits(_ path: String) throws {
        let s = try Storage(path: path)
        for i in 0..<3 { try put(s, i) }
    }

    private var readOnly: StorageOptions {
        var o = StorageOptions()
        o.readOnly = true
        return o
    }

    @Test func smallDurableCommitsSyncTheLogAndNotTheDataFile() throws {
        let disk = SimulatedDisk(), logDisk = SimulatedDisk()
        let s = try Storage(io: disk, log: CommitLog(io: logDisk))
        try put(s, 0)
        let (dataSyncs, logSyncs) = (disk.syncs, logDisk.syncs)
        for i in 1...50 { try put(s, i) }
        #expect(disk.syncs == dataSyncs)
        #expect(logDisk.syncs == logSyncs + 50)
    }

    @Test func pagesCopiedFromOnesTheLogAlreadyHoldsAreLoggedAsDeltas() throws {
        let disk = SimulatedDisk(), logDisk = SimulatedDisk()
        let s = try Storage(io: disk, log: CommitLog(io: logDisk))
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<3000 { try tx.put(t, key(i), bytes("value \(i)")) }
        }
        // Appends at the right edge: after the generation's first record, root, leaf and
        // catalog are copies of pages an earlier record wrote; the free list is new.
        try put(s, 3000)
        let start = s.logState!.position.end
        for i in 3001..<3021 { try put(s, i) }
        let perRecord = Int(s.logState!.position.end - start) / 20
        #expect(perRecord < 2 * 4096)
        let recovered = try recover(disk, logDisk)
        #expect(try values(recovered).count == 3021)
        #expect(try recovered.verify().isValid)
    }

    @Test func loggedCommitsSurviveLosingEveryUnsyncedWriteOfTheDataFile() throws {
        let disk = SimulatedDisk(), logDisk = SimulatedDisk()
        let s = try Storage(io: disk, log: CommitLog(io: logDisk))
        for i in 0..<20 { try put(s, i) }
        let expected = (0..<20).map { bytes("value \($0)") }
        // Without the log, the data file's durable bytes miss the logged commits.
        let alone = try Storage(io: SimulatedDisk(durable: disk.durableImage()))
        #expect(try values(alone).count < 20)
        let recovered = try recover(disk, logDisk)
        #expect(try values(recovered) == expected)
        #expect(try recovered.verify().isValid)
    }

    @Test func aFullLogIsCheckpointedIntoTheDataFileAndStartsAgain() throws {
        let disk = SimulatedDisk(), logDisk = SimulatedDisk()
        let s = try Storage(io: disk, log: CommitLog(io: logDisk, capacity: 64 << 10, largestRecord: 24 << 10))
        try put(s, 0)
        let dataSyncs = disk.syncs
        for i in 1..<40 { try put(s, i) }
        #expect(disk.syncs > dataSyncs)
        #expect(s.logState!.position.end < 64 << 10)
        let recovered = try recover(disk, logDisk)
        #expect(try values(recovered) == (0..<40).map { bytes("value \($0)") })
    }

    @Test func aCommitTooLargeForTheLogSyncsTheDataFileAndEmptiesTheLog() throws {
        let disk = SimulatedDisk(), logDisk = SimulatedDisk()
        let s = try Storage(io: disk, log: CommitLog(io: logDisk, capacity: 64 << 10, largestRecord: 24 << 10))
        try put(s, 0)
        try put(s, 1)
        #expect(s.logState!.position.end > CommitLog.headerSize)
        let dataSyncs = disk.syncs
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 2..<300 { try tx.put(t, key(i), [UInt8](repeating: UInt8(i & 0xFF), count: 100)) }
        }
        #expect(disk.syncs > dataSyncs)
        #expect(s.logState!.position.end == CommitLog.headerSize)
        try put(s, 300)
        let recovered = try recover(disk, logDisk)
        #expect(try values(recovered).count == 301)
        #expect(try recovered.verify().isValid)
    }

    @Test func afterARebootAReadOnlyOpenRefusesAnUnappliedLogAndAWritableOpenAppliesIt() throws {
        guard BootID.current != nil else { return }
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        let initial: Data, log: Data
        do {
            let s = try Storage(path: path)
            initial = try Data(contentsOf: URL(fileURLWithPath: path))
            for i in 0..<3 { try put(s, i) }
            log = try Data(contentsOf: URL(fileURLWithPath: path + "-log"))
        }
        // A writer killed before it closed the store (a clean close empties the log), then a
        // power cut that lost every write to the data file since it was created, and a reboot.
        try initial.write(to: URL(fileURLWithPath: path))
        try log.write(to: URL(fileURLWithPath: path + "-log"))
        try markLockFileFromAnotherBoot(path + "-lock")
        #expect(throws: StorageError.io(operation: "open read-only (the commit log \(path)-log holds commits not yet copied into the store,"
                                        + " as the machine stopped before they were; open the store once for writing to apply them)",
                                        path: path, errno: EROFS)) { _ = try Storage(path: path, options: readOnly) }
        do {
            let s = try Storage(path: path)
            #expect(try values(s) == (0..<3).map { bytes("value \($0)") })
            #expect(try s.verify().isValid)
        }
        #expect(try values(Storage(path: path, options: readOnly)).count == 3)
    }

    @Test func aCleanCloseEmptiesTheLogSoAReadOnlyOpenAfterARebootSucceeds() throws {
        guard BootID.current != nil else { return }
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        do {
            let s = try Storage(path: path)
            for i in 0..<3 { try put(s, i) }
            #expect(s.logState!.position.end > CommitLog.headerSize)
        }
        try markLockFileFromAnotherBoot(path + "-lock")
        #expect(try values(Storage(path: path, options: readOnly)).count == 3)
    }

    @Test func aNoSyncCommitEmptiesTheLogFirstSoThatReplayNeverUndoesIt() throws {
        // Two stores on one file and one lock file, as two processes would be: one no-sync, one durable.
        let disk = SimulatedDisk(), logDisk = SimulatedDisk()
        let lockFile = try LockFile(path: nil, slots: 8)
        var noSync = StorageOptions()
        noSync.durability = .noSync
        let quick = try Storage(io: disk, log: CommitLog(io: logDisk), lockFile: lockFile, options: noSync)
        try put(quick, 100)
        let durable = try Storage(io: disk, log: CommitLog(io: logDisk), lockFile: lockFile, options: StorageOptions())
        for i in 0..<3 { try put(durable, i) }
        #expect(durable.logState!.mayHoldRecords)
        try put(quick, 3)
        #expect(!quick.logState!.mayHoldRecords)
        try quick.sync()
        // Replaying what the log holds now leaves every commit in place.
        let recovered = try recover(disk, logDisk)
        #expect(try values(recovered).count == 5)
    }

    @Test func aLogLeftBehindByAnEarlierStoreAtThePathIsNeverReplayed() throws {
        guard BootID.current != nil else { return }
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try closedStoreWithThreeCommits(path)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.removeItem(atPath: path + "-lock")
        _ = try Storage(path: path)
        try markLockFileFromAnotherBoot(path + "-lock")
        let s = try Storage(path: path)
        #expect(try values(s).isEmpty)
        #expect(try s.verify().isValid)
    }

    @Test func commitsLoggedByANewStoreAfterAStaleLogAreAppliedAfterAReboot() throws {
        guard BootID.current != nil else { return }
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try closedStoreWithThreeCommits(path)
        try FileManager.default.removeItem(atPath: path)
        // The stale log restarts before the new store exists; its first logged commit must
        // restart it again under the new store's id, or the reboot would refuse the log.
        let log = try killedWriterLeavingALog(path)
        try log.write(to: URL(fileURLWithPath: path + "-log"))
        try markLockFileFromAnotherBoot(path + "-lock")
        let s = try Storage(path: path)
        #expect(try values(s) == (0..<3).map { bytes("value \($0)") })
    }

    /// A store at `path` whose writer was killed with commits in its log (a clean close
    /// empties it), after `before` earlier sessions of one commit each; returns the log.
    private func killedWriterLeavingALog(_ path: String, before: Int = 0) throws -> Data {
        for i in 0..<before { try put(Storage(path: path), 100 + i) }
        let s = try Storage(path: path)
        for i in 0..<3 { try put(s, i) }
        return try Data(contentsOf: URL(fileURLWithPath: path + "-log"))
    }

    @Test func aCompactedCopyPutInPlaceOfAStoreWithAnUnappliedLogIsNeverReplayedInto() throws {
        guard BootID.current != nil else { return }
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        let log = try killedWriterLeavingALog(path)
        _ = try Storage(path: path).compact(to: dir.file("copy.trove"))
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: dir.file("copy.trove"), toPath: path)
        try log.write(to: URL(fileURLWithPath: path + "-log"))
        try markLockFileFromAnotherBoot(path + "-lock")
        let copy = try Data(contentsOf: URL(fileURLWithPath: path))
        for options in [StorageOptions(), readOnly] {
            #expect { _ = try Storage(path: path, options: options) } throws: {
                "\($0)".contains("another store") && "\($0)".contains("delete \(path)-log")
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == copy)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "-log")) == log)
        // Deleting the log, as the message says, discards the commits it held.
        try FileManager.default.removeItem(atPath: path + "-log")
        let s = try Storage(path: path)
        #expect(try values(s) == (0..<3).map { bytes("value \($0)") })
        #expect(try s.verify().isValid)
    }

    @Test func anOlderCopyOfTheStorePutInItsPlaceIsNeverReplayedInto() throws {
        guard BootID.current != nil else { return }
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try put(Storage(path: path), 100)
        let backup = try Data(contentsOf: URL(fileURLWithPath: path))
        let log = try killedWriterLeavingALog(path, before: 2)
        try backup.write(to: URL(fileURLWithPath: path))
        try log.write(to: URL(fileURLWithPath: path + "-log"))
        try markLockFileFromAnotherBoot(path + "-lock")
        #expect { _ = try Storage(path: path) } throws: { "\($0)".contains("an older copy") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == backup)
    }

    @Test func replayAcceptsExactlyTheDataFilesARecordWindowCanLeave() {
        var meta = Meta()
        meta.storeID = 77
        let header = CommitLog.Header(generation: 5, owner: (storeID: 77, base: 10))
        func mismatch(newest: UInt64, storeID: UInt64 = 77) -> String? {
            var m = meta
            m.txnid = newest
            m.storeID = storeID
            return CommitLog.mismatch(header, lastTxnid: 14, metas: [m])
        }
        // The base's slot torn (9), the base, the records, and one in-place commit past them.
        for newest: UInt64 in [9, 10, 12, 14, 15] { #expect(mismatch(newest: newest) == nil) }
        #expect(mismatch(newest: 8)?.contains("an older copy") == true)
        #expect(mismatch(newest: 16)?.contains("the log was cut short or damaged after its record of commit 14, or a newer copy") == true)
        #expect(mismatch(newest: 12, storeID: 78)?.contains("another store") == true)
        // A version 1 header names no store: nothing to check.
        #expect(CommitLog.mismatch(CommitLog.Header(generation: 5, owner: nil), lastTxnid: 14, metas: [meta]) == nil)
    }

    @Test func aWriterAppendsOnlyToAGenerationThatFollowsItsDataFile() throws {
        let s = try Storage(io: SimulatedDisk(), log: CommitLog(io: SimulatedDisk()))
        for i in 0..<3 { try put(s, i) }
        try s.sync()
        for i in 3..<6 { try put(s, i) }
        let generation = s.logState!.position.generation
        let meta = try s.read { $0.meta }
        s.logState!.ownedGeneration = 0
        #expect(try s.logState!.follows(generation: generation, storeID: meta.storeID, txnid: meta.txnid))
        s.logState!.ownedGeneration = 0
        #expect(try !s.logState!.follows(generation: generation, storeID: meta.storeID ^ 1, txnid: meta.txnid))
        // An older copy of the store: the generation began after its newest commit.
        #expect(try !s.logState!.follows(generation: generation, storeID: meta.storeID, txnid: 1))
        #expect(try !s.logState!.follows(generation: generation ^ 2, storeID: meta.storeID, txnid: meta.txnid))
    }
}
