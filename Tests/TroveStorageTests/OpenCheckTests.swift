import Foundation
import Testing
@testable import TroveStorage

/// Opening a store checks its newest commit's pages unless the lock file vouches that the
/// commit was written whole in this boot (see step 6 of the commit protocol in `Commit.swift`).
@Suite struct OpenCheckTests {
    private func commitOne(_ path: String, _ i: Int) throws {
        let s = try Storage(path: path)
        let w = try s.beginWrite()
        let t = try w.tree(named: "t") ?? w.createTree(named: "t")
        try w.put(t, key(i), bytes("value \(i)"))
        try w.commit()
    }

    @Test func reopeningInTheSameBootSkipsTheChecksOfACommitAWriterFinished() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try commitOne(path, 1)
        let s = try Storage(path: path)
        #expect(s.openCheck == (BootID.current == nil ? .verifiedNewestCommit : .skippedCompleteCommit))
        #expect(try s.beginRead().dump("t").map(\.1) == [bytes("value 1")])
    }

    @Test func aLockFileFromAnotherBootMakesTheOpenCheckTheNewestCommitOnce() throws {
        guard BootID.current != nil else { return }
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try commitOne(path, 1)
        try markLockFileFromAnotherBoot(path + "-lock")
        do {
            let s = try Storage(path: path)
            #expect(s.openCheck == .verifiedNewestCommit)
        }
        // The check recorded the commit as whole for this boot.
        let s = try Storage(path: path)
        #expect(s.openCheck == .skippedCompleteCommit)
    }

    @Test func aNewerCommitThanTheLockFileRecordsIsChecked() throws {
        guard BootID.current != nil else { return }
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try commitOne(path, 1)
        let lock = try Data(contentsOf: URL(fileURLWithPath: path + "-lock"))
        try commitOne(path, 2)
        // As if the writer of commit 2 died between writing its meta and recording it.
        try lock.write(to: URL(fileURLWithPath: path + "-lock"))
        let s = try Storage(path: path)
        #expect(s.openCheck == .verifiedNewestCommit)
        #expect(try s.beginRead().dump("t").count == 2)
    }

    @Test func aDamagedNewestCommitIsStillRolledBackWhenTheLockFileIsGone() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try commitOne(path, 1)
        try commitOne(path, 2)
        // Damage the leaf commit 2 wrote (the page whose header carries the newest txnid) in
        // its last entry's bytes, which end where the trailer begins.
        let (newest, pageSize) = try { let s = try Storage(path: path); return (s.latestTransactionID, s.pageSize) }()
        try FileManager.default.removeItem(atPath: path + "-lock")
        // And the commit log, whose copy of commit 2 an open would otherwise replay over the damage.
        try FileManager.default.removeItem(atPath: path + "-log")
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var damaged = false
        for pg in 2..<(data.count / pageSize) {
            let txnid = data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: pg * pageSize + 8, as: UInt64.self) }
            let type = data[pg * pageSize + 16]
            if txnid == newest, type == PageType.leaf.rawValue {
                let at = (pg + 1) * pageSize - PageLayout.trailerSize - 1
                try handle.seek(toOffset: UInt64(at))
                handle.write(Data([data[at] ^ 0xFF]))
                damaged = true
            }
        }
        try handle.close()
        #expect(damaged)
        let s = try Storage(path: path)
        #expect(s.openCheck == .verifiedNewestCommit)
        #expect(s.rolledBackTransaction == newest)
    }

    @Test func aDamagedChunkOfTheFreePagesIsNamedByItsOwnPage() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        // A commit that frees many pages, then small ones until the newest writes a chunk of
        // the free-page bitmap (pages freed become free, from pending, a commit later).
        var chunk: Int? = nil
        var pageSize = 4096, newest: UInt64 = 0
        for round in 0..<20 where chunk == nil {
            let s = try Storage(path: path)
            try s.write { tx in
                let t = try tx.tree(named: "t") ?? tx.createTree(named: "t")
                switch round {
                case 0: for i in 0..<400 { try tx.put(t, key(i), [UInt8](repeating: 7, count: 200)) }
                case 1: for i in 0..<390 { _ = try tx.delete(t, key(i)) }
                default: try tx.put(t, key(1000 + round), bytes("small"))
                }
            }
            (newest, pageSize) = (s.latestTransactionID, s.pageSize)
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            chunk = (2..<(data.count / pageSize)).first { pg in
                data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: pg * pageSize + 8, as: UInt64.self) } == newest
                    && data[pg * pageSize + 16] == PageType.freeBitmap.rawValue
            }
        }
        let page = try #require(chunk)
        try FileManager.default.removeItem(atPath: path + "-lock")
        try FileManager.default.removeItem(atPath: path + "-log")
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(page * pageSize + pageSize / 2))
        handle.write(Data([0x5A, 0xA5]))
        try handle.close()
        let s = try Storage(path: path)
        #expect(s.rolledBackTransaction == newest)
        #expect(s.rollback?.reason == "database is corrupt at page \(page): checksum mismatch (page content is damaged)")
    }

    /// The txnids meta slots 0 and 1 of the store at `path` name, and its page size.
    private func metaTxnids(_ path: String) throws -> (UInt64, UInt64, pageSize: Int) {
        let pageSize = try Storage(path: path).pageSize
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        func txnid(_ slot: Int) -> UInt64 { data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: slot * pageSize + 24, as: UInt64.self) } }
        return (txnid(0), txnid(1), pageSize)
    }

    /// Flips two bytes of meta slot `slot` inside what its checksum covers, past its txnid.
    private func damageMeta(_ path: String, slot: Int, pageSize: Int) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(slot * pageSize + 100))
        handle.write(Data([0x5A, 0xA5]))
        try handle.close()
    }

    @Test(arguments: [true, false])
    func aNewerMetaFailingItsChecksumIsACommitSetAsideUntilTheNextCommitRewritesIt(keepingTheLockFile: Bool) throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try commitOne(path, 1)
        try commitOne(path, 2)
        let (first, second, pageSize) = try metaTxnids(path)
        let slot = first > second ? 0 : 1
        let newest = max(first, second)
        if !keepingTheLockFile {
            try FileManager.default.removeItem(atPath: path + "-lock")
            try FileManager.default.removeItem(atPath: path + "-log")
        }
        try damageMeta(path, slot: slot, pageSize: pageSize)
        do {
            let s = try Storage(path: path)
            let rollback = try #require(s.rollback)
            #expect(rollback.discarded == newest && rollback.openedAt == newest - 1 && s.latestTransactionID == newest - 1)
            #expect(rollback.damagedMetaSlot == slot)
            #expect(rollback.reason == "database is corrupt at page \(slot): the meta page fails its checksum")
            // With the lock file, this boot saw that commit published: no crash tore it.
            #expect(rollback.metaMayBeTorn == (!keepingTheLockFile || BootID.current == nil))
            #expect(try s.verify().isValid)
            #expect(try s.read { try $0.dump("t").count } == 1)
        }
        // Reported at each open that runs recovery, including one the lock file vouches for
        // (which records the commit opened, so only the first open can tell damage is certain).
        let again = try Storage(path: path).rollback
        #expect(again?.damagedMetaSlot == slot && again?.metaMayBeTorn == true)
        try commitOne(path, 3)
        let (afterFirst, afterSecond, _) = try metaTxnids(path)
        #expect((slot == 0 ? afterFirst : afterSecond) == newest, "the commit after the open rewrote the damaged slot")
        try FileManager.default.removeItem(atPath: path + "-lock")
        let reopened = try Storage(path: path)
        #expect(reopened.rollback == nil)
        #expect(try reopened.read { try $0.dump("t").count } == 2)
    }

    /// Writes `bytes` over meta slot `slot` at `offset`.
    private func overwriteMeta(_ path: String, slot: Int, pageSize: Int, at offset: Int, _ bytes: [UInt8]) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(slot * pageSize + offset))
        handle.write(Data(bytes))
        try handle.close()
    }

    /// A meta is one sector, so a torn write keeps its magic, format, page size and store id:
    /// a slot without them is damage, and the txnid in it names no version.
    @Test(arguments: [
        (0, Array(repeating: UInt8(0xEE), count: 512)),  // no magic: foreign data
        (12, [0x00, 0x20, 0x00, 0x00]),                   // another page size
        (208, [0x01, 0x02, 0x03, 0x04]),                  // another store id
    ])
    func aMetaSlotHoldingNoMetaOfTheStoreIsDamageNamingNoVersion(at offset: Int, bytes: [UInt8]) throws {
        for newer in [true, false] {
            let dir = TempDir(); defer { dir.cleanup() }
            let path = dir.file("db.trove")
            try commitOne(path, 1)
            try commitOne(path, 2)
            let (first, second, pageSize) = try metaTxnids(path)
            let slot = (first > second) == newer ? 0 : 1
            let newest = max(first, second)
            try FileManager.default.removeItem(atPath: path + "-lock")
            try FileManager.default.removeItem(atPath: path + "-log")
            try overwriteMeta(path, slot: slot, pageSize: pageSize, at: offset, bytes)
            let s = try Storage(path: path)
            let rollback = try #require(s.rollback, "newer: \(newer)")
            #expect(rollback.discarded == nil && s.rolledBackTransaction == nil)
            #expect(rollback.damagedMetaSlot == slot && !rollback.metaMayBeTorn)
            #expect(rollback.openedAt == (newer ? newest - 1 : newest) && s.latestTransactionID == rollback.openedAt)
            #expect(rollback.reason == "database is corrupt at page \(slot): the meta page holds no meta of this store")
        }
    }

    @Test func anOlderMetaFailingItsChecksumSetsNothingAside() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try commitOne(path, 1)
        try commitOne(path, 2)
        let (first, second, pageSize) = try metaTxnids(path)
        try FileManager.default.removeItem(atPath: path + "-lock")
        try damageMeta(path, slot: first > second ? 1 : 0, pageSize: pageSize)
        let s = try Storage(path: path)
        #expect(s.rollback == nil && s.latestTransactionID == max(first, second))
    }

    @Test func bootIDsParseFromTheKernelsUUIDText() {
        let id = BootID.parse("a0b9a254-476e-4d4c-959f-2bd7249f4c0c\n")
        #expect(id?.0 == 0xa0b9_a254_476e_4d4c && id?.1 == 0x959f_2bd7_249f_4c0c)
        #expect(BootID.parse("not a uuid") == nil)
    }
}
