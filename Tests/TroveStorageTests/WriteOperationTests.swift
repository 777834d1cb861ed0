import Foundation
import Testing
@testable import TroveStorage
import TestRandom

@Suite struct WriteOperationTests {
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

    @Test func replaceOverwritesInPlaceOrStoresAnotherSizeAndSkipsAbsentKeys() throws {
        let s = try Storage.inMemory()
        let n = 3_000
        try s.write { (tx) throws in
            let t = try tx.createTree(named: "t")
            for i in 0..<n { try tx.put(t, key(i), [UInt8](repeating: 1, count: 40)) }
        }
        try s.write { (tx) throws in
            let t = try #require(try tx.tree(named: "t"))
            for i in stride(from: 0, to: n, by: 3) {
                let found = try key(i).withUnsafeBytes { k in
                    try tx.replace(t, raw: k) { old in
                        #expect(Array(old) == [UInt8](repeating: 1, count: 40))
                        // Same size, a longer value, or no change.
                        switch i % 9 {
                        case 0: return [UInt8](repeating: 2, count: 40)
                        case 3: return [UInt8](repeating: 3, count: 2_000)
                        default: return nil
                        }
                    }
                }
                #expect(found)
            }
            let absent = try key(n + 5).withUnsafeBytes { k in try tx.replace(t, raw: k) { _ in Issue.record("called for an absent key"); return nil } }
            #expect(!absent)
            #expect(t.count == n)
        }
        let all = try s.read { try $0.dump("t") }
        #expect(all.count == n)
        for (i, (_, v)) in all.enumerated() {
            switch i % 9 {
            case 0: #expect(v == [UInt8](repeating: 2, count: 40))
            case 3: #expect(v == [UInt8](repeating: 3, count: 2_000))
            default: #expect(v == [UInt8](repeating: 1, count: 40))
            }
        }
        let report = try s.verify()
        #expect(report.isValid, "\(report)")
    }

    @Test func deleteReadingHandsOverTheOldValueOnlyWhenTheKeyIsThere() throws {
        let s = try Storage.inMemory()
        try s.write { (tx) throws in
            let t = try tx.createTree(named: "t")
            for i in 0..<500 { try tx.put(t, key(i), [UInt8](repeating: UInt8(i & 0xff), count: i == 7 ? 9_000 : 30)) }
        }
        try s.write { (tx) throws in
            let t = try #require(try tx.tree(named: "t"))
            var seen: [UInt8] = []
            #expect(try key(7).withUnsafeBytes { try tx.delete(t, raw: $0, reading: { seen = Array($0) }) })
            #expect(seen == [UInt8](repeating: 7, count: 9_000))
            #expect(try key(8).withUnsafeBytes { try tx.delete(t, raw: $0, reading: { seen = Array($0) }) })
            #expect(seen == [UInt8](repeating: 8, count: 30))
            #expect(try !key(7).withUnsafeBytes { try tx.delete(t, raw: $0, reading: { _ in Issue.record("called for an absent key") }) })
            #expect(t.count == 498)
        }
        let report = try s.verify()
        #expect(report.isValid, "\(report)")
    }
}
