import Foundation
import Testing
@testable import TroveStorage

/// Page checksums (`Checksum.run`): a tree page's free space is left out, everything it reads
/// is covered, and files written before that (format 1) still open, verify and take commits.
@Suite struct PageChecksumTests {
    static let pageSize = 4096

    /// A sealed-size leaf page holding `count` small entries, flagged or not.
    static func leaf(count: Int, flagged: Bool) -> UnsafeMutableRawPointer {
        let p = UnsafeMutableRawPointer.allocate(byteCount: pageSize, alignment: 16)
        p.initializeMemory(as: UInt8.self, repeating: 0xA5, count: pageSize)
        PageHeader.initialize(p, pgno: 7, txnid: 3, type: .leaf, pages: 1, pageSize: pageSize)
        let editor = NodeEditor(p: p, pageSize: pageSize)
        for i in 0..<count {
            key(i).withUnsafeBytes { k in bytes("value \(i)").withUnsafeBytes { v in editor.insertLeaf(at: i, key: k, value: v) } }
        }
        if flagged { PageHeader.addFlags(p, PageLayout.flagGapUnchecked) }
        return p
    }

    static func flipping(_ p: UnsafeMutableRawPointer, at offset: Int) -> UInt64 {
        p.storeBytes(of: p.load(fromByteOffset: offset, as: UInt8.self) ^ 0x40, toByteOffset: offset, as: UInt8.self)
        defer { p.storeBytes(of: p.load(fromByteOffset: offset, as: UInt8.self) ^ 0x40, toByteOffset: offset, as: UInt8.self) }
        return Checksum.run(p, length: pageSize)
    }

    @Test func aFlaggedTreePageLeavesOutOnlyItsFreeSpace() {
        let p = Self.leaf(count: 20, flagged: true)
        defer { p.deallocate() }
        let sum = Checksum.run(p, length: Self.pageSize)
        let slotsEnd = PageLayout.headerSize + 2 * 20, upper = PageHeader(p).upper
        #expect(slotsEnd < upper)
        for offset in [slotsEnd, (slotsEnd + upper) / 2, upper - 1] {
            #expect(Self.flipping(p, at: offset) == sum, "free space at \(offset) is not checked")
        }
        for offset in [8, 17, 18, 20, PageLayout.headerSize, slotsEnd - 1, upper, Self.pageSize - PageLayout.trailerSize - 1] {
            #expect(Self.flipping(p, at: offset) != sum, "byte \(offset) must be checked")
        }
    }

    @Test func anUnflaggedPageIsCheckedWhole() {
        let p = Self.leaf(count: 20, flagged: false)
        defer { p.deallocate() }
        let sum = Checksum.run(p, length: Self.pageSize)
        #expect(sum == Checksum.xxh64(p, Self.pageSize - PageLayout.trailerSize))
        let middle = (PageLayout.headerSize + 40 + PageHeader(p).upper) / 2
        #expect(Self.flipping(p, at: middle) != sum)
    }

    @Test func aFlaggedPageWithImpossibleBoundsIsCheckedWhole() {
        let p = Self.leaf(count: 20, flagged: true)
        defer { p.deallocate() }
        // `upper` past the trailer, then a slot array past `upper`.
        for (count, upper) in [(20, Self.pageSize), (2000, PageHeader(p).upper)] {
            p.storeBytes(of: UInt16(count), toByteOffset: 18, as: UInt16.self)
            p.storeBytes(of: UInt32(upper), toByteOffset: 20, as: UInt32.self)
            #expect(Checksum.run(p, length: Self.pageSize) == Checksum.xxh64(p, Self.pageSize - PageLayout.trailerSize))
        }
    }

    @Test func damageToFreeSpaceNeitherRollsBackNorFailsVerification() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try Storage(path: path).write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<10 { try tx.put(t, key(i), bytes("value \(i)")) }
        }
        let pageSize = try Storage(path: path).pageSize
        try FileManager.default.removeItem(atPath: path + "-lock")
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        var damaged = 0
        for pg in 2..<(data.count / pageSize) where data[pg * pageSize + 16] == PageType.leaf.rawValue {
            let base = pg * pageSize
            let count = Int(data[base + 18]) | Int(data[base + 19]) << 8
            let upper = data.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: base + 20, as: UInt32.self)) }
            let middle = base + (PageLayout.headerSize + 2 * count + upper) / 2
            data[middle] ^= 0xFF
            damaged += 1
        }
        #expect(damaged == 2, "the catalog's leaf and the tree's")
        try data.write(to: URL(fileURLWithPath: path))
        let s = try Storage(path: path)
        #expect(s.openCheck == .verifiedNewestCommit)
        #expect(s.rolledBackTransaction == nil)
        #expect(try s.verify().isValid)
        #expect(try s.beginRead().dump("t").count == 10)
    }

    /// `Fixtures/format1.trove` was written by the format 1 code (commit e05842a): a tree "t"
    /// of keys "k000" to "k199" with values "value N" and a 6,000-byte overflow value under
    /// "big"; then a second commit deleted every third key from "k000".
    static func format1Copy(in dir: TempDir) throws -> String {
        let fixture = try #require(Bundle.module.url(forResource: "Fixtures/format1", withExtension: "trove"))
        let path = dir.file("format1.trove")
        try FileManager.default.copyItem(at: fixture, to: URL(fileURLWithPath: path))
        return path
    }

    static func expectedFormat1Content() -> [[UInt8]: [UInt8]] {
        var content: [[UInt8]: [UInt8]] = [bytes("big"): (0..<6000).map { UInt8(truncatingIfNeeded: $0 &* 7) }]
        for i in 0..<200 where i % 3 != 0 { content[bytes(String(format: "k%03d", i))] = bytes("value \(i)") }
        return content
    }

    static func formatVersions(_ path: String) throws -> [UInt32] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.withUnsafeBytes { b in
            [b.loadUnaligned(fromByteOffset: 8, as: UInt32.self), b.loadUnaligned(fromByteOffset: 4096 + 8, as: UInt32.self)]
        }
    }

    static func content(_ s: Storage) throws -> [[UInt8]: [UInt8]] {
        var content: [[UInt8]: [UInt8]] = [:]
        for (k, v) in try s.beginRead().dump("t") { content[k] = v }
        return content
    }

    @Test func aFormat1FileOpensVerifiesAndReadsAsWritten() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = try Self.format1Copy(in: dir)
        #expect(try Self.formatVersions(path) == [1, 1])
        let s = try Storage(path: path)
        #expect(s.openCheck == .verifiedNewestCommit)
        #expect(s.rolledBackTransaction == nil)
        #expect(try s.verify().isValid)
        #expect(try Self.content(s) == Self.expectedFormat1Content())
    }

    @Test func aCommitToAFormat1FileMakesItTheCurrentFormatAndKeepsItWhole() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = try Self.format1Copy(in: dir)
        var expected = Self.expectedFormat1Content()
        do {
            let s = try Storage(path: path)
            // Touch one leaf and leave the others as format 1 wrote them.
            try s.write { tx in try tx.put(try #require(try tx.tree(named: "t")), bytes("k001"), bytes("changed")) }
            expected[bytes("k001")] = bytes("changed")
            #expect(try s.verify().isValid)
        }
        #expect(try Self.formatVersions(path).sorted() == [1, Meta.formatVersion])
        // A fresh open with no lock file checks the newest commit's pages.
        try FileManager.default.removeItem(atPath: path + "-lock")
        let s = try Storage(path: path)
        #expect(s.openCheck == .verifiedNewestCommit)
        #expect(s.rolledBackTransaction == nil)
        #expect(try s.verify().isValid)
        #expect(try Self.content(s) == expected)
    }

    /// Leaves of older files hold wide entry lengths: deletes that merge them with leaves this
    /// build rewrote, and a vacuum that moves them, keep every entry.
    @Test func deletesMergingFormat1LeavesKeepEveryEntry() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = try Self.format1Copy(in: dir)
        var expected = Self.expectedFormat1Content()
        let s = try Storage(path: path)
        for round in 0..<4 {
            try s.write { tx in
                let t = try #require(try tx.tree(named: "t"))
                for i in stride(from: round, to: 200, by: 5) where i % 3 != 0 {
                    let k = bytes(String(format: "k%03d", i))
                    #expect(try tx.delete(t, k))
                    expected[k] = nil
                }
            }
            #expect(try s.verify().isValid)
            #expect(try Self.content(s) == expected)
        }
        _ = try s.vacuum()
        #expect(try s.verify().isValid)
        #expect(try Self.content(s) == expected)
    }
}
