import Foundation
import Testing
@testable import TroveStorage
import TestRandom

@Suite struct BasicTreeTests {
    @Test func putThenGetReturnsTheValue() throws {
        let s = try Storage.inMemory()
        try s.write { (tx) throws in
            let t = try tx.createTree(named: "t")
            try tx.put(t, bytes("a"), bytes("1"))
            try tx.put(t, bytes("b"), bytes("2"))
        }
        try s.read { (tx) throws in
            let t = try #require(try tx.tree(named: "t"))
            #expect(try tx.get(t, bytes("a")) == bytes("1"))
            #expect(try tx.get(t, bytes("b")) == bytes("2"))
            #expect(try tx.get(t, bytes("c")) == nil)
            #expect(t.count == 2)
        }
    }

    @Test func manyKeysSplitPagesAndStayOrdered() throws {
        let s = try Storage.inMemory()
        let n = 20_000
        try s.write { (tx) throws in
            let t = try tx.createTree(named: "t")
            var rng = SplitMix64(seed: 1)
            for i in (0..<n).shuffled(using: &rng) {
                try tx.put(t, key(i), [UInt8](repeating: UInt8(i & 0xff), count: 100))
            }
        }
        let all = try s.read { try $0.dump("t") }
        #expect(all.count == n)
        #expect(all.map(\.0) == (0..<n).map(key))
        let report = try s.verify()
        #expect(report.isValid, "\(report)")
    }

    @Test func largeValuesGoToOverflowPagesAndComeBack() throws {
        let s = try Storage.inMemory()
        let big = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try s.write { (tx) throws in
            let t = try tx.createTree(named: "t")
            try tx.put(t, bytes("big"), big)
            try tx.put(t, bytes("mid"), [UInt8](repeating: 7, count: 5000))
        }
        try s.read { (tx) throws in
            let t = try #require(try tx.tree(named: "t"))
            #expect(try tx.get(t, bytes("big")) == big)
            #expect(try tx.get(t, bytes("mid"))?.count == 5000)
        }
        try s.write { (tx) throws in
            let t = try #require(try tx.tree(named: "t"))
            #expect(try tx.delete(t, bytes("big")))
        }
        #expect(try s.verify().isValid)
    }

    @Test func deletingEverythingEmptiesTheTreeAndFreesPages() throws {
        let s = try Storage.inMemory()
        try s.write { (tx) throws in
            let t = try tx.createTree(named: "t")
            for i in 0..<5000 { try tx.put(t, key(i), [UInt8](repeating: 1, count: 200)) }
        }
        try s.write { (tx) throws in
            let t = try #require(try tx.tree(named: "t"))
            for i in 0..<5000 { #expect(try tx.delete(t, key(i))) }
            #expect(t.count == 0)
            #expect(t.depth == 0)
        }
        let report = try s.verify()
        #expect(report.isValid, "\(report)")
        #expect(try s.read { try $0.dump("t") }.isEmpty)
    }

    @Test func abortLeavesNothingBehind() throws {
        let s = try Storage.inMemory()
        try s.write { tx in try tx.put(try tx.createTree(named: "t"), bytes("keep"), bytes("1")) }
        let tx = try s.beginWrite()
        let t = try #require(try tx.tree(named: "t"))
        try tx.put(t, bytes("gone"), bytes("2"))
        _ = try tx.createTree(named: "other")
        tx.abort()
        try s.read { (tx) throws in
            #expect(try tx.treeNames() == ["t"])
            #expect(try tx.dump("t").map(\.0) == [bytes("keep")])
        }
    }

    @Test func aThrowingWriteBlockChangesNothing() throws {
        struct Boom: Error {}
        let s = try Storage.inMemory()
        #expect(throws: Boom.self) {
            try s.write { (tx) throws in
                try tx.put(try tx.createTree(named: "t"), bytes("k"), bytes("v"))
                throw Boom()
            }
        }
        #expect(try s.read { try $0.treeNames() }.isEmpty)
    }

    @Test func aReaderKeepsItsSnapshotWhileTheWriterCommits() throws {
        let s = try Storage.inMemory()
        try s.write { tx in try tx.put(try tx.createTree(named: "t"), bytes("k"), bytes("old")) }
        let reader = try s.beginRead()
        try s.write { tx in try tx.put(try #require(try tx.tree(named: "t")), bytes("k"), bytes("new")) }
        let t = try #require(try reader.tree(named: "t"))
        #expect(try reader.get(t, bytes("k")) == bytes("old"))
        reader.end()
        #expect(try s.read { try $0.get(try #require(try $0.tree(named: "t")), bytes("k")) } == bytes("new"))
    }

    @Test func cursorSeeksAndWalksBothWays() throws {
        let s = try Storage.inMemory()
        try s.write { (tx) throws in
            let t = try tx.createTree(named: "t")
            for i in stride(from: 0, to: 3000, by: 2) { try tx.put(t, key(i), key(i)) }
        }
        try s.read { (tx) throws in
            let c = try tx.cursor(try #require(try tx.tree(named: "t")))
            #expect(try c.seek(key(501)))
            #expect(try c.key() == key(502))
            #expect(try c.prev())
            #expect(try c.key() == key(500))
            #expect(try c.last())
            #expect(try c.key() == key(2998))
            #expect(try c.next() == false)
            #expect(try c.seek(key(5000)) == false)
            var n = 0
            var ok = try c.last()
            while ok { n += 1; ok = try c.prev() }
            #expect(n == 1500)
        }
    }

    @Test func dataSurvivesReopeningTheFile() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        do {
            let s = try Storage(path: path)
            try s.write { (tx) throws in
                let t = try tx.createTree(named: "t")
                for i in 0..<1000 { try tx.put(t, key(i), bytes("v\(i)")) }
            }
        }
        let s = try Storage(path: path)
        try s.read { (tx) throws in
            let t = try #require(try tx.tree(named: "t"))
            #expect(t.count == 1000)
            #expect(try tx.get(t, key(999)) == bytes("v999"))
        }
        #expect(try s.verify().isValid)
    }

    @Test func droppedTreeIsGoneAndItsPagesFree() throws {
        let s = try Storage.inMemory()
        try s.write { (tx) throws in
            let t = try tx.createTree(named: "a")
            for i in 0..<2000 { try tx.put(t, key(i), [UInt8](repeating: 3, count: 300)) }
            try tx.put(try tx.createTree(named: "b"), bytes("x"), bytes("y"))
        }
        let dropped = try s.write { tx in try tx.dropTree(named: "a") }
        #expect(dropped)
        #expect(try s.read { try $0.treeNames() } == ["b"])
        let r = try s.verify()
        #expect(r.isValid, "\(r)")
        #expect(r.freePages + (try s.stats().pendingPages) > 100)
    }

    @Test func keysOutsideTheAllowedLengthAreRejected() throws {
        let s = try Storage.inMemory()
        try s.write { (tx) throws in
            let t = try tx.createTree(named: "t")
            #expect(throws: StorageError.invalidKey(length: 0)) { try tx.put(t, [UInt8](), bytes("v")) }
            #expect(throws: StorageError.invalidKey(length: 512)) { try tx.put(t, [UInt8](repeating: 1, count: 512), bytes("v")) }
            try tx.put(t, [UInt8](repeating: 1, count: 511), bytes("v"))
        }
    }
}

@Suite struct ChecksumChainTests {
    /// Small transactions into a large tree split and merge branch pages whose other children
    /// this transaction never touched: their recorded checksums must survive the move.
    @Test func branchSplitsAndMergesKeepUntouchedChildrenChecksums() throws {
        let s = try Storage.inMemory()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in stride(from: 0, to: 60_000, by: 2) { try tx.put(t, key(i), [UInt8](repeating: 1, count: 40)) }
        }
        var rng = SplitMix64(seed: 3)
        for round in 0..<120 {
            try s.write { tx in
                let t = try #require(try tx.tree(named: "t"))
                for _ in 0..<25 {
                    let k = Int(rng.next() % 60_000)
                    if round % 3 == 2 { try tx.delete(t, key(k & ~1)) } else { try tx.put(t, key(k | 1), [UInt8](repeating: 2, count: 40)) }
                }
            }
            if round % 20 == 19 {
                let report = try s.verify()
                #expect(report.isValid, "round \(round): \(report)")
            }
        }
        // Reopening runs recovery's checksum walk too.
        let report = try s.verify()
        #expect(report.isValid, "\(report)")
    }
}

@Suite struct AppendTests {
    @Test func appendingSortedKeysFillsPagesAndRefusesOutOfOrderKeys() throws {
        let s = try Storage.inMemory()
        let (appended, random) = try s.write { tx -> (Int, Int) in
            let a = try tx.createTree(named: "a"), r = try tx.createTree(named: "r")
            for i in 0..<20_000 { try tx.append(a, key(i), [UInt8](repeating: 5, count: 100)) }
            var rng = SplitMix64(seed: 8)
            for i in (0..<20_000).shuffled(using: &rng) { try tx.put(r, key(i), [UInt8](repeating: 5, count: 100)) }
            #expect(throws: StorageError.self) { try tx.append(a, key(5), [UInt8]()) }
            return (a.pageCount, r.pageCount)
        }
        // Appends fill pages whole; random inserts, balanced into siblings, about 87%.
        #expect(appended * 10 < random * 9)
        #expect(try s.read { try $0.dump("a") }.map(\.0) == (0..<20_000).map(key))
        #expect(try s.verify().isValid)
    }
}
