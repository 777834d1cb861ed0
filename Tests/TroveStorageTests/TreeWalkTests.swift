import Foundation
import Testing
@testable import TroveStorage
import TestRandom

@Suite struct TreeWalkTests {
    /// Every entry `forEach` gives, copied, stopping after `limit` if given.
    private func walk(_ tx: ReadTransaction, _ t: Tree, limit: Int? = nil) throws -> [([UInt8], [UInt8])] {
        var out: [([UInt8], [UInt8])] = []
        try tx.forEach(t) { k, v in
            out.append((Array(k), Array(v)))
            return limit.map { out.count < $0 } ?? true
        }
        return out
    }

    private func expectSame(_ a: [([UInt8], [UInt8])], _ b: [([UInt8], [UInt8])]) {
        #expect(a.count == b.count)
        #expect(a.map(\.0) == b.map(\.0))
        #expect(a.map(\.1) == b.map(\.1))
    }

    @Test func anEmptyTreeVisitsNothing() throws {
        let s = try Storage.inMemory()
        try s.write { tx in _ = try tx.createTree(named: "t") }
        try s.read { tx in
            let t = try #require(try tx.tree(named: "t"))
            #expect(try walk(tx, t).isEmpty)
        }
    }

    @Test func aTreeOfOneLeafVisitsItsEntriesInOrder() throws {
        let s = try Storage.inMemory()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in [3, 1, 2] { try tx.put(t, key(i), bytes("v\(i)")) }
        }
        try s.read { tx in
            let t = try #require(try tx.tree(named: "t"))
            #expect(t.depth == 1)
            let all = try walk(tx, t)
            #expect(all.map(\.0) == [key(1), key(2), key(3)])
            #expect(all.map(\.1) == [bytes("v1"), bytes("v2"), bytes("v3")])
        }
    }

    @Test func manyLeavesAndOverflowValuesMatchTheCursor() throws {
        let s = try Storage.inMemory()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            var rng = SplitMix64(seed: 7)
            for i in (0..<30_000).shuffled(using: &rng) {
                // Every 997th value is larger than a quarter page: an overflow run.
                let size = i % 997 == 0 ? 5_000 + i % 13 : i % 50
                try tx.put(t, key(i), [UInt8](repeating: UInt8(i & 0xff), count: size))
            }
        }
        try s.read { tx in
            let t = try #require(try tx.tree(named: "t"))
            #expect(t.depth >= 3)
            expectSame(try walk(tx, t), try tx.dump("t"))
        }
    }

    @Test func returningFalseStopsTheVisit() throws {
        let s = try Storage.inMemory()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<5_000 { try tx.put(t, key(i), bytes("\(i)")) }
        }
        try s.read { tx in
            let t = try #require(try tx.tree(named: "t"))
            for limit in [1, 2, 400, 4_999, 5_000] {
                let seen = try walk(tx, t, limit: limit)
                #expect(seen.map(\.0) == (0..<limit).map(key))
            }
        }
    }

    /// The keys `forEach(_:from:)` gives from `start`, stopping after `limit` if given.
    private func keys(_ tx: ReadTransaction, _ t: Tree, from start: [UInt8], limit: Int? = nil) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        try start.withUnsafeBytes { s in
            try tx.forEach(t, from: s) { k, _ in
                out.append(Array(k))
                return limit.map { out.count < $0 } ?? true
            }
        }
        return out
    }

    @Test func aWalkFromAKeyStartsAtTheFirstKeyNotBelowIt() throws {
        let s = try Storage.inMemory()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            // Even keys only, with values large enough for several levels of branches.
            for i in stride(from: 0, to: 40_000, by: 2) { try tx.put(t, key(i), [UInt8](repeating: UInt8(i & 0xFF), count: 200)) }
            _ = try tx.createTree(named: "empty")
        }
        try s.read { tx in
            let t = try #require(try tx.tree(named: "t"))
            #expect(t.depth >= 3)
            // Present keys, absent keys, the first and last, and keys at leaf ends.
            for start in [0, 1, 2, 3, 999, 1_000, 20_001, 39_996, 39_998] {
                let first = start % 2 == 0 ? start : start + 1
                #expect(try keys(tx, t, from: key(start), limit: 300) == stride(from: first, to: min(40_000, first + 600), by: 2).map(key))
            }
            // To the end, across every later leaf.
            #expect(try keys(tx, t, from: key(30_001)) == stride(from: 30_002, to: 40_000, by: 2).map(key))
            // Past the last key, and a shorter key below every other.
            #expect(try keys(tx, t, from: key(40_000)).isEmpty)
            #expect(try keys(tx, t, from: [0], limit: 2) == [key(0), key(2)])
            #expect(try keys(tx, t, from: [0xFF]).isEmpty)
            let empty = try #require(try tx.tree(named: "empty"))
            #expect(try keys(tx, empty, from: key(0)).isEmpty)
        }
        // A write transaction walks through a cursor and sees its own writes.
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            try tx.put(t, key(101), bytes("new"))
            _ = try tx.delete(t, key(102))
            #expect(try keys(tx, t, from: key(99), limit: 4) == [key(100), key(101), key(104), key(106)])
        }
    }

    @Test func aWriteTransactionSeesItsDirtyPages() throws {
        let s = try Storage.inMemory()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in stride(from: 0, to: 4_000, by: 2) { try tx.put(t, key(i), bytes("old")) }
        }
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            for i in stride(from: 1, to: 4_000, by: 2) { try tx.put(t, key(i), bytes("new")) }
            _ = try tx.delete(t, key(0))
            expectSame(try walk(tx, t), try tx.dump("t"))
            #expect(try walk(tx, t).count == 3_999)
            #expect(try walk(tx, t, limit: 10).map(\.0) == (1...10).map(key))
        }
    }

    @Test func writesDuringAVisitInAWriteTransactionContinueAfterTheCurrentKey() throws {
        let s = try Storage.inMemory()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<2_000 { try tx.put(t, key(i), bytes("v")) }
        }
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            let other = try tx.createTree(named: "copy")
            var visited: [[UInt8]] = []
            try tx.forEach(t) { k, v in
                let copy = Array(k)
                visited.append(copy)
                try tx.put(other, copy, Array(v))
                // Deleting the next even key: the visit must skip it.
                let i = Int(UInt64(bigEndian: k.loadUnaligned(as: UInt64.self)))
                if i % 2 == 0 { _ = try tx.delete(t, key(i + 1)) }
                return true
            }
            #expect(visited == stride(from: 0, to: 2_000, by: 2).map(key))
            #expect(try tx.dump("copy").map(\.0) == visited)
        }
    }

    @Test func anEncryptedStoreVisitsLikeThePlainOne() throws {
        var options = StorageOptions()
        options.encryptionKey = [UInt8](repeating: 0x5A, count: 64)
        let s = try Storage.inMemory(options: options)
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<3_000 { try tx.put(t, key(i), [UInt8](repeating: 1, count: i % 2_000 == 0 ? 3_000 : 20)) }
        }
        try s.read { tx in
            let t = try #require(try tx.tree(named: "t"))
            expectSame(try walk(tx, t), try tx.dump("t"))
        }
    }

    @Test func endingTheTransactionInsideTheVisitThrows() throws {
        let s = try Storage.inMemory()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<10 { try tx.put(t, key(i), bytes("v")) }
        }
        let tx = try s.beginRead()
        let t = try #require(try tx.tree(named: "t"))
        var visits = 0
        #expect(throws: StorageError.self) {
            try tx.forEach(t) { _, _ in
                visits += 1
                tx.end()
                return true
            }
        }
        #expect(visits == 1)
    }

    @Test func randomTreesVisitLikeTheCursor() throws {
        var rng = SplitMix64(seed: 42)
        for round in 0..<6 {
            let s = try Storage.inMemory()
            let n = Int.random(in: 0..<8_000, using: &rng)
            try s.write { tx in
                let t = try tx.createTree(named: "t")
                for _ in 0..<n {
                    let k = (0..<Int.random(in: 1..<40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                    let v = [UInt8](repeating: UInt8(round), count: Int.random(in: 0..<(round == 3 ? 3_000 : 200), using: &rng))
                    try tx.put(t, k, v)
                }
            }
            try s.read { tx in
                let t = try #require(try tx.tree(named: "t"))
                expectSame(try walk(tx, t), try tx.dump("t"))
            }
        }
    }

    @Test func aWalkFromAnyKeyCrossesIntoTheNextLeaf() throws {
        let s = try Storage.inMemory()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            // Even keys, ~18 to a leaf: every leaf's last key is a start, and every odd key
            // after one starts past its leaf's end.
            for i in stride(from: 0, to: 6_000, by: 2) { try tx.put(t, key(i), [UInt8](repeating: 1, count: 200)) }
        }
        try s.read { tx in
            let t = try #require(try tx.tree(named: "t"))
            #expect(t.depth >= 2)
            for start in 0..<6_000 {
                let first = start % 2 == 0 ? start : start + 1
                #expect(try keys(tx, t, from: key(start), limit: 3) == stride(from: first, to: min(6_000, first + 6), by: 2).map(key))
            }
        }
    }

    @Test func aDamagedEntryOfTheNextLeafFailsOnlyAWalkThatGetsThere() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        var root: UInt64 = 0, pageSize = 0
        do {
            let s = try Storage(path: path)
            try s.write { tx in
                let t = try tx.createTree(named: "t")
                for i in 0..<2_000 { try tx.put(t, key(i), [UInt8](repeating: 1, count: 100)) }
            }
            try s.read { tx in
                let t = try #require(try tx.tree(named: "t"))
                #expect(t.depth == 2)
                root = t.info.root
            }
            pageSize = s.pageSize
        }
        // The root's second entry (the first leaf's next sibling) now points outside the page.
        let fd = open(path, O_RDWR)
        #expect(fd >= 0)
        var bad = UInt16(pageSize - 1).littleEndian
        #expect(pwrite(fd, &bad, 2, off_t(Int(root) * pageSize + PageLayout.headerSize + 2)) == 2)
        close(fd)

        let s = try Storage(path: path)
        try s.read { tx in
            let t = try #require(try tx.tree(named: "t"))
            // A scan that ends in the first leaf never reads the damaged entry.
            #expect(try walk(tx, t, limit: 3).map(\.0) == [key(0), key(1), key(2)])
            // One that goes on to the second leaf says where the damage is.
            #expect(throws: StorageError.self) { try walk(tx, t) }
        }
    }
}
