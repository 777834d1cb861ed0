import Foundation
import Testing
@testable import TroveStorage
import TestRandom

/// How full B+tree pages end: random inserts move entries into siblings before splitting,
/// ascending and descending ones split at the insertion point, and the verifier's invariants
/// hold throughout.
@Suite struct TreeFillTests {
    /// 16 random hex digits, as the shell's workload keys its objects.
    static func randomKey(_ rng: inout SplitMix64) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return (0..<16).map { _ in digits[Int(rng.next() % 16)] }
    }

    static func value(_ i: Int) -> [UInt8] { bytes("value \(i) " + String(repeating: "v", count: i % 40)) }

    /// The verified summary of tree `t`, after checking every invariant.
    static func summary(_ s: Storage) throws -> VerifyReport.TreeSummary {
        let report = try s.verify()
        #expect(report.isValid, "\(report)")
        return try #require(report.trees.first { $0.name == "t" })
    }

    @Test func twentyThousandRandomInsertsLeavePagesWellFilled() throws {
        let s = try Storage.inMemory()
        var rng = SplitMix64(seed: 28)
        var expected: [[UInt8]: [UInt8]] = [:]
        for batch in 0..<200 {
            try s.write { tx in
                let t = try tx.createTree(named: "t")
                for j in 0..<100 {
                    let k = Self.randomKey(&rng), v = Self.value(batch * 100 + j)
                    try tx.put(t, k, v)
                    expected[k] = v
                }
            }
        }
        let tree = try Self.summary(s)
        #expect(tree.entries == expected.count)
        #expect(tree.fill >= 0.84, "fill \(tree.fill) over \(tree.nodePages) pages")
        let stored = try s.read { try $0.dump("t") }
        #expect(stored.count == expected.count)
        #expect(stored.allSatisfy { expected[$0.0] == $0.1 })
    }

    /// A transaction that writes most leaves (a bulk load, a large delete) packs them full at
    /// commit, whatever the order of its keys.
    @Test func aLargeTransactionPacksTheLeavesItWrote() throws {
        let s = try Storage.inMemory()
        var rng = SplitMix64(seed: 28)
        var keys: [[UInt8]] = []
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<20_000 {
                let k = Self.randomKey(&rng)
                try tx.put(t, k, Self.value(i))
                keys.append(k)
            }
        }
        let loaded = try Self.summary(s)
        #expect(loaded.fill >= 0.97, "fill \(loaded.fill) over \(loaded.nodePages) pages")
        // The pages packing freed came off the end of the file.
        let stats = try s.stats()
        #expect(stats.freePages + stats.pendingPages < 8, "\(stats)")
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            for k in keys.prefix(5_000) { #expect(try tx.delete(t, k)) }
        }
        let deleted = try Self.summary(s)
        #expect(deleted.entries == 15_000)
        #expect(deleted.fill >= 0.95, "fill \(deleted.fill) over \(deleted.nodePages) pages")
        #expect(deleted.nodePages < loaded.nodePages * 8 / 10)
        let stored = try s.read { try $0.dump("t") }
        #expect(stored.map(\.0) == keys.suffix(15_000).sorted { $0.lexicographicallyPrecedes($1) })
    }

    /// Keys and values of every length class of the narrow entry lengths (one byte below 128,
    /// two from there), inline and in overflow runs, read back as written.
    @Test func narrowEntryLengthsRoundTrip() throws {
        let s = try Storage.inMemory()
        var expected: [[UInt8]: [UInt8]] = [:]
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for (i, keyLength) in [1, 126, 127, 128, 129, 300, Storage.maxKeySize].enumerated() {
                for valueLength in [0, 126, 127, 128, 500, 2_000, 70_000] {
                    let k = [UInt8(i), UInt8(valueLength & 0xFF), UInt8(valueLength >> 8 & 0xFF)]
                        + [UInt8](repeating: UInt8(i + 1), count: keyLength - 3 < 0 ? 0 : keyLength - 3)
                    let key = Array(k.prefix(max(keyLength, 1)))
                    let v = (0..<valueLength).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i) }
                    try tx.put(t, key, v)
                    expected[key] = v
                }
            }
        }
        _ = try Self.summary(s)
        let stored = try s.read { try $0.dump("t") }
        #expect(stored.count == expected.count)
        #expect(stored.allSatisfy { expected[$0.0] == $0.1 })
    }

    @Test func ascendingAndDescendingInsertsFillPagesNearlyFull() throws {
        for descending in [false, true] {
            let s = try Storage.inMemory()
            let order = descending ? Array((0..<20_000).reversed()) : Array(0..<20_000)
            for chunk in stride(from: 0, to: order.count, by: 1000) {
                try s.write { tx in
                    let t = try tx.createTree(named: "t")
                    for i in order[chunk..<(chunk + 1000)] { try tx.put(t, key(i), Self.value(i)) }
                }
            }
            let tree = try Self.summary(s)
            #expect(tree.entries == 20_000)
            #expect(tree.fill >= 0.97, "\(descending ? "descending" : "ascending"): fill \(tree.fill)")
        }
    }

    /// Inserts and deletes in random order, checked against a dictionary and the verifier:
    /// entries moved between siblings keep every key findable and the separators in order.
    /// Victims come from the seeded generator (not a dictionary's order, which changes with
    /// each process's hash seed), so every run builds the same tree.
    @Test func randomInsertsAndDeletesKeepEveryInvariant() throws {
        let s = try Storage.inMemory()
        var rng = SplitMix64(seed: 2028)
        var expected: [[UInt8]: [UInt8]] = [:]
        // The keys present, and where each is in `keys`, for picking a victim at random.
        var keys: [[UInt8]] = []
        var position: [[UInt8]: Int] = [:]
        for round in 0..<60 {
            try s.write { tx in
                let t = try tx.createTree(named: "t")
                for j in 0..<400 {
                    let k = Self.randomKey(&rng)
                    if rng.next() % 3 == 0, !keys.isEmpty {
                        let victim = keys[rng.int(keys.count)]
                        #expect(try tx.delete(t, victim))
                        expected[victim] = nil
                        let at = position.removeValue(forKey: victim)!, last = keys.removeLast()
                        if at < keys.count { keys[at] = last; position[last] = at }
                    } else {
                        // Values of many sizes, some long enough to leave few entries a page.
                        let v = [UInt8](repeating: UInt8(j & 0xFF), count: Int(rng.next() % 900))
                        try tx.put(t, k, v)
                        if expected.updateValue(v, forKey: k) == nil { position[k] = keys.count; keys.append(k) }
                    }
                }
            }
            if round % 10 == 9 { _ = try Self.summary(s) }
        }
        let stored = try s.read { try $0.dump("t") }
        #expect(stored.count == expected.count)
        #expect(stored.map(\.0) == keys.sorted { $0.lexicographicallyPrecedes($1) }, "the scan differs")
        #expect(stored.allSatisfy { expected[$0.0] == $0.1 })
        try s.read { tx in
            let t = try #require(try tx.tree(named: "t"))
            for (k, v) in expected { #expect(try tx.get(t, k) == v) }
        }
    }
}
