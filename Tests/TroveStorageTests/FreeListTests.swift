import Foundation
import Testing
@testable import TroveStorage
import TestRandom

@Suite struct FreeListTests {
    static func list(ready: [UInt64]) -> FreeList {
        var list = FreeList(pageSize: 4096)
        list.addPending(txnid: 1, pages: ready)
        list.reclaim(upTo: 1)
        return list
    }

    @Test func pagesBecomeReusableOnlyOnceTheirTransactionIsReclaimed() {
        var list = FreeList(pageSize: 4096)
        list.addPending(txnid: 5, pages: [10, 11])
        list.addPending(txnid: 7, pages: [3])
        #expect(list.allocate(1) == nil)
        list.reclaim(upTo: 6)
        #expect(list.readyCount == 2)
        #expect(list.pendingCount == 1)
        #expect(list.allocate(1) == 10)
        list.reclaim(upTo: 7)
        #expect(list.allocate(1) == 3)   // lowest first
        #expect(list.allocate(1) == 11)
        #expect(list.allocate(1) == nil)
    }

    @Test func theLowestReadyPageIsTakenHoweverFarApartTheyLie() {
        var list = Self.list(ready: [70_000, 5, 10_000, 4_095, 4_096, 200_000])
        #expect(list.allocate(1) == 5)
        #expect(list.allocate(1) == 4_095)
        list.release(3, count: 1)
        #expect(list.allocate(1) == 3)
        #expect(list.allocPages() == [4_096, 10_000, 70_000, 200_000])
        #expect(list.readyCount == 0 && list.allocate(1) == nil)
        list.release(64, count: 2)
        #expect(list.allocate(2) == 64)
        #expect(list.chunkIsEmpty(0) && list.chunkIsEmpty(6))
    }

    /// A commit that grows the file into a new chunk and then cuts that tail off again (leaf
    /// packing moves its pages down) has changed the chunk and left it empty: the chunk table
    /// keeps only the chunks of the file that is left.
    @Test func aChunkGrownIntoAndCutOffWithinOneCommitLeavesNoEntry() throws {
        var list = FreeList(pageSize: 4096)
        let perChunk = list.pagesPerChunk
        list.addPending(txnid: 1, pages: [10])
        list.reclaim(upTo: 1)
        list.committedChunks([(chunk: 0, pgno: 7, checksum: 99)], count: 1)
        // The transaction's pages on both sides of the boundary come back, then end the file.
        list.release(perChunk - 50, count: 75)
        let limit = list.trimTail(pageCount: perChunk + 25, notBelow: perChunk - 100)
        #expect(limit == perChunk - 50)
        #expect(list.changedChunks == [0, 1] && list.chunkIsEmpty(1))
        list.committedChunks([(chunk: 0, pgno: 8, checksum: 98), (chunk: 1, pgno: 0, checksum: 0)],
                             count: list.chunkCount(pageCount: limit))
        #expect(list.chunkPages.map(\.pgno) == [8])
    }

    @Test func runsAreFoundOnlyWhenContiguous() {
        var list = Self.list(ready: [20, 4, 5, 7, 8, 9, 30])
        #expect(list.allocate(3) == 7)
        #expect(list.allocate(3) == nil)
        #expect(list.allocate(2) == 4)
        #expect(list.allocPages() == [20, 30])
    }

    @Test func runsAreFoundAcrossBitmapWords() {
        // 60..<70 spans two words; 100..<300 spans whole words; 61 taken leaves 62..<70.
        var list = Self.list(ready: Array(60..<70) + Array(100..<300))
        #expect(list.allocate(10) == 60)
        #expect(list.allocate(10) == 100)
        #expect(list.allocate(190) == 110)
        #expect(list.readyCount == 0)
        list = Self.list(ready: Array(60..<70) + Array(128..<200))
        #expect(list.allocate(1) == 60)
        #expect(list.allocate(9) == 61)
        #expect(list.allocate(73) == nil)
        #expect(list.allocate(72) == 128)
    }

    @Test func reclaimedBatchesLeaveEveryPageReadyOnce() {
        var list = FreeList(pageSize: 4096)
        var rng = SplitMix64(seed: 14)
        var all = Array(UInt64(2)..<2_002)
        all.shuffle(using: &rng)
        var expected: [UInt64] = []
        var txnid: UInt64 = 0
        var rest = all[...]
        while !rest.isEmpty {
            txnid += 1
            let batch = Array(rest.prefix(Int.random(in: 1...40, using: &rng)))
            rest = rest.dropFirst(batch.count)
            list.addPending(txnid: txnid, pages: batch)
            expected += batch
            if txnid % 3 == 0 { list.reclaim(upTo: txnid - 1) }
        }
        list.reclaim(upTo: txnid)
        #expect(list.pendingCount == 0)
        #expect(list.readyCount == expected.count)
        #expect(list.readyPages == expected.sorted())
    }

    @Test func onlyTheChunksWhoseBitsChangedAreMarked() {
        var list = FreeList(pageSize: 4096)
        let perChunk = list.pagesPerChunk
        #expect(perChunk == 32_256)
        list.addPending(txnid: 1, pages: [5, perChunk * 3 + 1])
        #expect(list.changedChunks.isEmpty)   // pending pages are in the index, not the bitmap
        list.reclaim(upTo: 1)
        #expect(list.changedChunks == [0, 3])
        list.committedChunks([(0, 40, 1), (3, 41, 2)], count: 4)
        #expect(list.changedChunks.isEmpty)
        #expect(list.committedPage(3) == 41 && list.committedPage(1) == 0)
        #expect(list.allocate(1) == 5)
        #expect(list.changedChunks == [0])
        #expect(list.chunkIsEmpty(0) && !list.chunkIsEmpty(3) && list.chunkIsEmpty(9))
    }

    /// The commit's walk over the changed chunks, one at a time from any chunk on, finds
    /// those `changedChunks` lists, across words of the changed-chunk bitmap.
    @Test func changedChunksAreFoundOneAtATimeFromAnyChunkOn() {
        var list = FreeList(pageSize: 4096)
        let changed = [0, 3, 63, 64, 130]
        for k in changed { list.release(UInt64(k) * list.pagesPerChunk + 7, count: 1) }
        #expect(list.changedChunks == changed)
        for from in [0, 1, 4, 63, 64, 65, 130, 131, 500] {
            var found: [Int] = []
            var k = from
            while let next = list.changedChunk(atOrAfter: k) {
                found.append(next)
                k = next + 1
            }
            #expect(found == changed.filter { $0 >= from }, "from \(from)")
        }
    }

    @Test func chunksAndTheIndexRoundTrip() throws {
        var list = Self.list(ready: [2, 63, 64, 32_255, 32_256, 40_000])
        list.addPending(txnid: 9, pages: [70, 71])
        let pageCount: UInt64 = 50_000
        let chunks = list.chunkCount(pageCount: pageCount)
        #expect(chunks == 2)
        var decoded = FreeList(pageSize: 4096)
        var body = [UInt8](repeating: 0xff, count: list.wordsPerChunk * 8)
        for k in 0..<chunks {
            body.withUnsafeMutableBytes { list.encodeChunk(k, into: $0.baseAddress!) }
            try body.withUnsafeBytes { try decoded.loadChunk(k, from: $0.baseAddress!, pageCount: pageCount, pgno: 100 + UInt64(k)) }
        }
        #expect(decoded.readyPages == list.readyPages)
        #expect(decoded.readyCount == 6)

        list.committedChunks([(0, 100, 7), (1, 101, 8)], count: chunks)
        var index = [UInt8](repeating: 0, count: list.indexSize(chunks: chunks, extraPending: 0))
        index.withUnsafeMutableBytes { _ = list.encodeIndex(into: $0.baseAddress!) }
        let read = try index.withUnsafeBytes { try FreeList(pageSize: 4096).decodeIndex($0.baseAddress!, length: $0.count, pageCount: pageCount, pgno: 3) }
        #expect(read.chunks.map(\.pgno) == [100, 101] && read.chunks.map(\.checksum) == [7, 8])
        #expect(read.pending.map(\.txnid) == [9] && read.pending.map(\.pages) == [[70, 71]])
    }

    @Test func aBitmapOrIndexNamingPagesOutsideTheFileIsRejected() throws {
        let list = Self.list(ready: [40_000])
        var body = [UInt8](repeating: 0, count: list.wordsPerChunk * 8)
        body.withUnsafeMutableBytes { list.encodeChunk(1, into: $0.baseAddress!) }
        var short = FreeList(pageSize: 4096)
        #expect(throws: StorageError.self) {
            try body.withUnsafeBytes { try short.loadChunk(1, from: $0.baseAddress!, pageCount: 39_000, pgno: 12) }
        }
        // Pages 0 and 1 are the metas: never free.
        var metas = [UInt8](repeating: 0, count: list.wordsPerChunk * 8)
        metas[0] = 0b10
        #expect(throws: StorageError.self) {
            try metas.withUnsafeBytes { try short.loadChunk(0, from: $0.baseAddress!, pageCount: 39_000, pgno: 12) }
        }
        var pending = FreeList(pageSize: 4096)
        pending.addPending(txnid: 2, pages: [12])
        var index = [UInt8](repeating: 0, count: pending.indexSize(chunks: 0, extraPending: 0))
        index.withUnsafeMutableBytes { _ = pending.encodeIndex(into: $0.baseAddress!) }
        #expect(throws: StorageError.self) {
            _ = try index.withUnsafeBytes { try FreeList(pageSize: 4096).decodeIndex($0.baseAddress!, length: $0.count, pageCount: 10, pgno: 3) }
        }
        // A count larger than the run can hold.
        index.withUnsafeMutableBytes { $0.storeBytes(of: UInt64(1 << 40), toByteOffset: 0, as: UInt64.self) }
        #expect(throws: StorageError.self) {
            _ = try index.withUnsafeBytes { try FreeList(pageSize: 4096).decodeIndex($0.baseAddress!, length: $0.count, pageCount: 100, pgno: 3) }
        }
        // More chunks than the file has: a file of 100 pages has one.
        let twoChunks: [UInt64] = [2, 0, 0, 0, 0, 0]
        #expect(throws: StorageError.self) {
            _ = try twoChunks.withUnsafeBytes { try FreeList(pageSize: 4096).decodeIndex($0.baseAddress!, length: $0.count, pageCount: 100, pgno: 3) }
        }
    }

    @Test func aPendingPageThatIsReadyOrListedTwiceIsRejected() throws {
        var list = Self.list(ready: [5])
        #expect(throws: StorageError.self) { try list.loadPending([(2, [7]), (3, [5])], pgno: 3) }
        #expect(throws: StorageError.self) { try list.loadPending([(2, [7]), (3, [7])], pgno: 3) }
        try list.loadPending([(2, [7]), (3, [8])], pgno: 3)
        list.reclaim(upTo: 3)
        #expect(list.readyPages == [5, 7, 8])
    }

    @Test func aFormat3ListLoadsWithEveryNonEmptyChunkToWrite() throws {
        // readyCount, pages, recordCount, (txnid, n, pages)
        let words: [UInt64] = [3, 9, 8, 40_000, 1, 4, 1, 12]
        var list = FreeList(pageSize: 4096)
        try words.withUnsafeBytes { try list.loadList($0.baseAddress!, length: $0.count, pageCount: 50_000, pgno: 3) }
        #expect(list.readyPages == [8, 9, 40_000])
        #expect(list.pending.map(\.txnid) == [4] && list.pending.map(\.pages) == [[12]])
        #expect(list.changedChunks == [0, 1])
        #expect(list.committedPage(0) == 0)
        let twice: [UInt64] = [2, 9, 9, 0]
        var again = FreeList(pageSize: 4096)
        #expect(throws: StorageError.self) {
            try twice.withUnsafeBytes { try again.loadList($0.baseAddress!, length: $0.count, pageCount: 50_000, pgno: 3) }
        }
    }
}

extension FreeList {
    /// Everything ready, lowest first (test helper).
    fileprivate mutating func allocPages() -> [UInt64] {
        var out: [UInt64] = []
        while let p = allocate(1) { out.append(p) }
        return out
    }
}

/// The free list as a store keeps it: bitmap chunks behind an index, written when they change.
@Suite struct FreeListStorageTests {
    /// A store at `path` with about 5,000 free pages: that many one-page values, all deleted
    /// but one key.
    /// Options that keep the free pages (no automatic vacuum).
    static var keepingFreePages: StorageOptions {
        var o = StorageOptions()
        o.compactsAutomatically = false
        return o
    }

    static func storeWithFreePages(_ path: String) throws -> Storage {
        let s = try Storage(path: path, options: keepingFreePages)
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<5_000 { try tx.put(t, key(i), [UInt8](repeating: UInt8(i & 0xff), count: 3_000)) }
        }
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            for i in 1..<5_000 { _ = try tx.delete(t, key(i)) }
        }
        // The next writer reclaims what the deletes freed.
        try s.write { tx in try tx.put(try #require(try tx.tree(named: "t")), key(0), bytes("first")) }
        return s
    }

    /// The pages whose header names transaction `txnid` (what that commit wrote), metas aside.
    static func pagesWritten(by txnid: UInt64, in path: String) throws -> [UInt64] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.withUnsafeBytes { b in
            stride(from: 2 * 4096, to: b.count, by: 4096).compactMap { o -> UInt64? in
                let pgno = b.loadUnaligned(fromByteOffset: o, as: UInt64.self)
                return pgno == UInt64(o / 4096) && b.loadUnaligned(fromByteOffset: o + 8, as: UInt64.self) == txnid ? pgno : nil
            }
        }
    }

    @Test func aSmallCommitWritesTheChunksItChangedNotEveryFreePage() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("free.trove")
        let s = try Self.storeWithFreePages(path)
        let before = try s.stats()
        #expect(before.freePages > 4_900)
        try s.write { tx in try tx.put(try #require(try tx.tree(named: "t")), key(1), bytes("small")) }
        let after = try s.stats()
        // A leaf (the tree's root), the catalog, the bitmap chunk and the index: the whole list
        // of 5,000 page numbers would take 10 pages by itself.
        let written = try Self.pagesWritten(by: after.transactionID, in: path)
        #expect(written.count <= 5, "the commit wrote pages \(written)")
        #expect(after.freePages + after.pendingPages >= before.freePages - 5)
        #expect(try s.verify().isValid)
    }

    @Test func freePagesSurviveReopeningAndAreReused() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("reopen.trove")
        let first: StorageStats
        do {
            let s = try Self.storeWithFreePages(path)
            first = try s.stats()
        }
        // Without the lock file, open checks the newest commit's pages.
        try FileManager.default.removeItem(atPath: path + "-lock")
        let s = try Storage(path: path, options: Self.keepingFreePages)
        #expect(s.openCheck == .verifiedNewestCommit)
        let reopened = try s.stats()
        #expect(reopened.freePages == first.freePages && reopened.pendingPages == first.pendingPages)
        let report = try s.verify()
        #expect(report.isValid, "\(report)")
        #expect(report.freePages == first.freePages + first.pendingPages)
        // A commit reuses free pages: the file does not grow.
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            for i in 0..<1_000 { try tx.put(t, key(10_000 + i), [UInt8](repeating: 7, count: 3_000)) }
        }
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == size)
        #expect(try s.verify().isValid)
    }

    @Test func aDamagedBitmapChunkIsReportedByItsPage() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("damaged.trove")
        let chunk: UInt64
        do {
            let s = try Self.storeWithFreePages(path)
            let meta = try s.read { $0.meta }
            let index = try s.read { r in
                let p = try r.run(meta.freeListPgno, pages: Int(meta.freeListPages))
                #expect(PageHeader(p).type == PageType.freeIndex.rawValue)
                return try FreeList(pageSize: 4096).decodeIndex(p + PageLayout.headerSize, length: Int(meta.freeListPages) * 4096 - 64,
                                                pageCount: meta.pageCount, pgno: meta.freeListPgno)
            }
            chunk = try #require(index.chunks.first { $0.pgno != 0 }).pgno
        }
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: chunk * 4096 + 100)
        try handle.write(contentsOf: [0x5a])
        try handle.close()
        let s = try Storage(path: path, options: Self.keepingFreePages)
        let report = try s.verify()
        #expect(!report.isValid)
        #expect(report.problems.contains { $0.description.contains("at page \(chunk):") }, "\(report)")
        // A writer reads the list and refuses it, rather than handing out pages it names.
        #expect { try s.write { tx in try tx.put(try #require(try tx.tree(named: "t")), key(1), bytes("x")) } } throws: {
            "\($0)".contains("at page \(chunk):")
        }
    }

    @Test func aTransactionThatDoesNotCommitLeavesTheListAsCommitted() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let s = try Self.storeWithFreePages(dir.file("abort.trove"))
        let before = try s.stats()
        // Allocates and frees pages, then aborts: the next writer must not see any of it.
        let tx = try s.beginWrite()
        let t = try #require(try tx.tree(named: "t"))
        for i in 0..<200 { try tx.put(t, key(20_000 + i), [UInt8](repeating: 1, count: 3_000)) }
        tx.abort()
        #expect(try s.stats().freePages == before.freePages)
        try s.write { tx in try tx.put(try #require(try tx.tree(named: "t")), key(2), bytes("after")) }
        let report = try s.verify()
        #expect(report.isValid, "\(report)")
        #expect(try s.read { try $0.dump("t") }.map(\.0) == [key(0), key(2)])
    }
}
