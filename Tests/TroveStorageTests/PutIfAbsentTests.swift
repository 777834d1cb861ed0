import Foundation
import Testing
@testable import TroveStorage

@Suite struct PutIfAbsentTests {
    @Test func putIfAbsentAddsNewKeysAndLeavesExistingOnesAlone() throws {
        let s = try Storage.inMemory()
        try s.write { (tx) throws in
            let t = try tx.createTree(named: "t")
            #expect(try tx.putIfAbsent(t, bytes("a"), bytes("1")))
            #expect(try !tx.putIfAbsent(t, bytes("a"), bytes("2")))
            #expect(try tx.get(t, bytes("a")) == bytes("1"))
            #expect(t.count == 1)
        }
        try s.read { (tx) throws in
            let t = try #require(try tx.tree(named: "t"))
            #expect(try tx.get(t, bytes("a")) == bytes("1"))
            #expect(t.count == 1)
        }
    }

    @Test func putIfAbsentMatchesPutOnManyKeysWithSplits() throws {
        let s = try Storage.inMemory()
        let n = 5_000
        var rng = SplitMix64(seed: 7)
        let order = (0..<n).shuffled(using: &rng)
        try s.write { (tx) throws in
            let t = try tx.createTree(named: "t")
            for i in order { #expect(try tx.putIfAbsent(t, key(i), [UInt8](repeating: UInt8(i & 0xff), count: 60))) }
            // Every key again: all refused, nothing changes.
            for i in order.prefix(1_000) { #expect(try !tx.putIfAbsent(t, key(i), bytes("x"))) }
            #expect(t.count == n)
        }
        let all = try s.read { try $0.dump("t") }
        #expect(all.map(\.0) == (0..<n).map(key))
        #expect(all.allSatisfy { $0.1.count == 60 && $0.1[0] == $0.0[7] })
        let report = try s.verify()
        #expect(report.isValid, "\(report)")
    }

    @Test func aRefusedLargeValueFreesTheOverflowPagesItWroteAhead() throws {
        let s = try Storage.inMemory()
        let big = [UInt8](repeating: 9, count: 20_000)
        try s.write { (tx) throws in
            let t = try tx.createTree(named: "t")
            #expect(try tx.putIfAbsent(t, bytes("k"), big))
        }
        let pagesBefore = try s.read { try #require(try $0.tree(named: "t")).pageCount }
        try s.write { (tx) throws in
            let t = try #require(try tx.tree(named: "t"))
            #expect(try !tx.putIfAbsent(t, bytes("k"), [UInt8](repeating: 1, count: 30_000)))
            #expect(t.pageCount == pagesBefore)
        }
        try s.read { (tx) throws in
            let t = try #require(try tx.tree(named: "t"))
            #expect(try tx.get(t, bytes("k")) == big)
            #expect(t.pageCount == pagesBefore)
        }
        let report = try s.verify()
        #expect(report.isValid, "\(report)")
    }
}
