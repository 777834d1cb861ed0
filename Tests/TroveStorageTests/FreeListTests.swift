import Testing
@testable import TroveStorage

@Suite struct FreeListTests {
    @Test func pagesBecomeReusableOnlyOnceTheirTransactionIsReclaimed() {
        var list = FreeList()
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

    @Test func runsAreFoundOnlyWhenContiguous() {
        var list = FreeList()
        list.addPending(txnid: 1, pages: [20, 4, 5, 7, 8, 9, 30])
        list.reclaim(upTo: 1)
        #expect(list.allocate(3) == 7)
        #expect(list.allocate(3) == nil)
        #expect(list.allocate(2) == 4)
        #expect(list.allocPages() == [20, 30])
    }

    @Test func reclaimedBatchesMergeIntoTheSortedList() {
        var list = FreeList()
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
        #expect(list.ready == expected.sorted(by: >))
    }

    @Test func encodingRoundTripsAndRejectsPagesOutsideTheFile() throws {
        var list = FreeList()
        list.addPending(txnid: 2, pages: [9, 8])
        list.reclaim(upTo: 2)
        list.addPending(txnid: 3, pages: [12])
        var bytes = [UInt8](repeating: 0, count: list.encodedSize)
        bytes.withUnsafeMutableBytes { list.encode(into: $0.baseAddress!) }
        let decoded = try bytes.withUnsafeBytes { try FreeList(decoding: $0.baseAddress!, length: $0.count, pageCount: 20, pgno: 1) }
        #expect(decoded.allPages == list.allPages)
        #expect(throws: StorageError.self) {
            _ = try bytes.withUnsafeBytes { try FreeList(decoding: $0.baseAddress!, length: $0.count, pageCount: 10, pgno: 1) }
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
