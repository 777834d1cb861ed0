import Foundation
import Testing
@testable import TroveStorage
import TestRandom

/// Removing and inserting runs of entries in place (`NodeEditor.removeEntries`,
/// `insertRaws`), as a shift into a sibling and a split do: the entries left read back in
/// order and the heap stays compact, wherever in it the entries were.
@Suite struct NodeEditorRangeTests {
    static let pageSize = 4096

    static func entryKey(_ i: Int) -> [UInt8] { bytes(String(format: "k%05d", i)) }
    static func entryValue(_ i: Int) -> [UInt8] { bytes(String(repeating: "v", count: i % 23)) }

    /// A leaf holding `count` entries; `shuffled` inserts them in random order, so the heap
    /// holds them out of slot order.
    static func leaf(count: Int, shuffled: Bool, seed: UInt64 = 28) -> UnsafeMutableRawPointer {
        let p = UnsafeMutableRawPointer.allocate(byteCount: pageSize, alignment: 16)
        p.initializeMemory(as: UInt8.self, repeating: 0xA5, count: pageSize)
        PageHeader.initialize(p, pgno: 7, txnid: 3, type: .leaf, pages: 1, pageSize: pageSize)
        let editor = NodeEditor(p: p, pageSize: pageSize)
        var order = Array(0..<count)
        if shuffled { var rng = SplitMix64(seed: seed); order.shuffle(using: &rng) }
        var present: [Int] = []
        for i in order {
            let at = present.firstIndex { $0 > i } ?? present.count
            entryKey(i).withUnsafeBytes { k in entryValue(i).withUnsafeBytes { v in editor.insertLeaf(at: at, key: k, value: v) } }
            present.insert(i, at: at)
        }
        return p
    }

    /// The page's entries as (key, value), after checking its layout: keys ascend, every entry
    /// lies in the heap, and the heap holds nothing else.
    static func entries(_ p: UnsafeRawPointer) throws -> [([UInt8], [UInt8])] {
        let view = try NodeView(p, pgno: 7, pageSize: pageSize)
        try view.validate()
        var heap = 0
        var result: [([UInt8], [UInt8])] = []
        for i in 0..<view.count {
            heap += try view.entrySize(i)
            let (k, v) = try view.entry(i)
            guard case .inline(let value) = v else { throw StorageError.corrupt(page: 7, detail: "overflow") }
            result.append((Array(k), Array(value)))
        }
        #expect(PageHeader(p).upper == pageSize - PageLayout.trailerSize - heap, "the heap has gaps")
        return result
    }

    static func expected(_ indices: some Sequence<Int>) -> [([UInt8], [UInt8])] {
        indices.map { (entryKey($0), entryValue($0)) }
    }

    /// Removes `range` from a leaf of `count` entries and checks that the others are left,
    /// in order, in a compact heap.
    static func checkRemoval(of range: Range<Int>, count: Int, shuffled: Bool, seed: UInt64 = 28) throws {
        let p = leaf(count: count, shuffled: shuffled, seed: seed)
        defer { p.deallocate() }
        let view = try NodeView(p, pgno: 7, pageSize: pageSize)
        let sizes = try (0..<count).map { try view.entrySize($0) }
        NodeEditor(p: p, pageSize: pageSize).removeEntries(range) { sizes[$0] }
        let left = try entries(p)
        let want = expected((0..<count).filter { !range.contains($0) })
        #expect(left.map(\.0) == want.map(\.0), "\(range) of \(count), shuffled \(shuffled), seed \(seed)")
        #expect(left.map(\.1) == want.map(\.1), "\(range) of \(count), shuffled \(shuffled), seed \(seed)")
    }

    @Test(arguments: [false, true])
    func removingARangeLeavesTheRestCompact(shuffled: Bool) throws {
        for range in [0..<1, 0..<17, 103..<120, 40..<75, 119..<120, 0..<119, 1..<120, 0..<120] {
            try Self.checkRemoval(of: range, count: 120, shuffled: shuffled)
        }
    }

    /// Random layouts and ranges: a few runs close one at a time, many runs in one pass over
    /// the heap; both leave the same entries, compact.
    @Test func removingRandomRangesOfRandomLayouts() throws {
        var rng = SplitMix64(seed: 2_028)
        for seed in 1...40 {
            let count = Int.random(in: 2...150, using: &rng)
            let lower = Int.random(in: 0..<count, using: &rng)
            let range = lower..<Int.random(in: (lower + 1)...count, using: &rng)
            try Self.checkRemoval(of: range, count: count, shuffled: seed % 4 != 0, seed: UInt64(seed))
        }
    }

    @Test func insertingARunKeepsSlotOrder() throws {
        for at in [0, 5, 10] {
            let p = Self.leaf(count: 10, shuffled: true)
            defer { p.deallocate() }
            let source = Self.leaf(count: 30, shuffled: false)
            defer { source.deallocate() }
            // Entries 10..<20 of another page: their keys ascend on the page only at the end,
            // where its whole layout is checked; elsewhere the slot order and the heap are.
            let view = try NodeView(source, pgno: 7, pageSize: Self.pageSize)
            let run = try (10..<20).map { UnsafeRawBufferPointer(start: source + view.slot($0), count: try view.entrySize($0)) }
            NodeEditor(p: p, pageSize: Self.pageSize).insertRaws(at: at, count: run.count) { run[$0] }
            let page = try NodeView(p, pgno: 7, pageSize: Self.pageSize)
            #expect(page.count == 20)
            var keys: [[UInt8]] = []
            for i in 0..<page.count { keys.append(Array(try page.key(i))) }
            let old = (0..<10).map(Self.entryKey), added = (10..<20).map(Self.entryKey)
            #expect(keys == Array(old[..<at]) + added + Array(old[at...]))
            let heap = try (0..<page.count).reduce(0) { $0 + (try page.entrySize($1)) }
            #expect(PageHeader(p).upper == Self.pageSize - PageLayout.trailerSize - heap)
            if at == 10 { _ = try Self.entries(p) }
        }
    }
}
