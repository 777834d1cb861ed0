import Foundation
import Testing
@testable import TroveStorage
import TestRandom

/// `Cursor.advance(by:)` and `Cursor.seek(forwardTo:)` land where `next()` steps and
/// `seek(_:)` do, within a leaf, across leaves and levels, at the end, and in a writer; the
/// batch lookup (`forEachValue(_:forKeys:_:)`) and `withLastEntry` find what lookups by key
/// and `last()` find.
@Suite struct CursorMoveTests {
    /// Even keys 0, 2, ... (30,000 of them, a tree of three levels or more); every 997th value
    /// overflows.
    private func store() throws -> Storage {
        let s = try Storage.inMemory()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<30_000 {
                try tx.put(t, key(2 * i), [UInt8](repeating: UInt8(i & 0xff), count: i % 997 == 0 ? 5_000 : i % 40))
            }
        }
        return s
    }

    private func current(_ c: Cursor) throws -> Int {
        Int(UInt64(bigEndian: try c.key().withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
    }

    /// Runs `body` in a read transaction and in a write transaction (which caches no leaf).
    private func inBoth(_ s: Storage, _ body: (ReadTransaction, Tree) throws -> Void) throws {
        try s.read { tx in try body(tx, try #require(try tx.tree(named: "t"))) }
        try s.write { tx in try body(tx, try #require(try tx.tree(named: "t"))) }
    }

    @Test func advancingLandsWhereAsManyStepsDo() throws {
        let s = try store()
        try inBoth(s) { tx, t in
            #expect(t.depth >= 3)
            var rng = SplitMix64(seed: 11)
            let c = try tx.cursor(t)
            for _ in 0..<300 {
                let start = Int(rng.next() % 30_000)
                let count = [0, 1, Int(rng.next() % 50), Int(rng.next() % 2_000), Int(rng.next() % 40_000)][Int(rng.next() % 5)]
                #expect(try c.seek(key(2 * start)))
                let moved = try c.advance(by: count)
                #expect(moved == (start + count < 30_000))
                if moved {
                    #expect(try current(c) == 2 * (start + count))
                    #expect(try c.value().count == ((start + count) % 997 == 0 ? 5_000 : (start + count) % 40))
                } else {
                    #expect(!c.isPositioned)
                    #expect(try !c.advance(by: 1))
                }
            }
            #expect(try c.first())
            #expect(try c.advance(by: 29_999))
            #expect(try current(c) == 59_998)
            #expect(throws: StorageError.self) { try c.advance(by: -1) }
        }
    }

    @Test func advancingInAWriterGoesOnFromTheEntryAfterADeletedOne() throws {
        let s = try store()
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            let c = try tx.cursor(t)
            #expect(try c.seek(key(200)))
            _ = try tx.delete(t, key(200))
            // On the key after the deleted one (202): that counts as the first step.
            #expect(try c.advance(by: 3))
            #expect(try current(c) == 206)
        }
    }

    @Test func seekingForwardFindsWhatASeekFinds() throws {
        let s = try store()
        try inBoth(s) { tx, t in
            var rng = SplitMix64(seed: 5)
            let forward = try tx.cursor(t), plain = try tx.cursor(t)
            for round in 0..<3 {
                // Ascending targets, present (even) and absent (odd), near and far apart; in
                // the last round some go back.
                var target = 0
                while target < 60_010 {
                    let gap = [1, 2, 3, 40, 300, 5_000][Int(rng.next() % 6)]
                    target = round == 2 && rng.next() % 4 == 0 ? max(target - gap, 0) : target + gap
                    let found = try key(target).withUnsafeBytes { try forward.seek(forwardTo: $0) }
                    #expect(found == (try plain.seek(key(target))))
                    #expect(found == (target <= 59_998))
                    if found { #expect(try forward.key() == (try plain.key())) }
                    if target > 60_000 { break }
                }
            }
        }
    }

    /// `forEachValue(_:forKeys:)` calls back with the index and value of each of `keys` that
    /// `get` finds, in order, and with no other.
    func expectBatchLookupsFindWhatGetsFind(_ tx: ReadTransaction, _ t: Tree, _ keys: [UInt64]) throws {
        var found: [(Int, [UInt8])] = []
        try keys.withUnsafeBufferPointer { keys in
            try tx.forEachValue(t, forKeys: keys) { i, value in
                found.append((i, Array(value)))
                return true
            }
        }
        var expected: [(Int, [UInt8])] = []
        for (i, k) in keys.enumerated() {
            if let value = try tx.get(t, withUnsafeBytes(of: k.bigEndian) { Array($0) }) { expected.append((i, value)) }
        }
        #expect(found.map(\.0) == expected.map(\.0))
        #expect(found.map(\.1) == expected.map(\.1))
    }

    @Test func batchLookupsFindWhatLookupsByKeyFind() throws {
        let s = try store()
        try inBoth(s) { tx, t in
            var rng = SplitMix64(seed: 23)
            for round in 0..<4 {
                // Ascending keys, present (even) and absent (odd), near and far apart, some
                // repeated; in the last rounds some go back, past the start and the end too.
                var keys: [UInt64] = []
                var target = 0
                while target < 60_010 {
                    let gap = [0, 1, 2, 3, 40, 300, 5_000][Int(rng.next() % 7)]
                    target = round >= 2 && rng.next() % 4 == 0 ? max(target - gap, 0) : target + gap
                    keys.append(UInt64(target))
                }
                if round == 3 { keys += [UInt64.max, 0, 59_998, 1] }
                try expectBatchLookupsFindWhatGetsFind(tx, t, keys)
            }
            // The walk stops when `body` says so.
            var calls = 0
            try [UInt64(0), 2, 4, 6].withUnsafeBufferPointer { keys in
                try tx.forEachValue(t, forKeys: keys) { i, _ in calls += 1; return i < 1 }
            }
            #expect(calls == 2)
        }
    }

    /// Keys in runs and far apart (where a key's share of the way between two entries is no
    /// guide to its place), and a tree with keys of other sizes among its 8-byte ones: the
    /// batch lookup finds what lookups by key find.
    @Test func batchLookupsFindUnevenlySpreadAndOtherSizedKeys() throws {
        let s = try Storage.inMemory()
        var rng = SplitMix64(seed: 29)
        var stored: [UInt64] = []
        var k: UInt64 = 0
        for _ in 0..<20_000 {
            k += [1, 1, 1, 2, 1_000, 1 << 40][Int(rng.next() % 6)]
            stored.append(k)
        }
        func bytes(_ k: UInt64) -> [UInt8] { withUnsafeBytes(of: k.bigEndian) { Array($0) } }
        try s.write { tx in
            let even = try tx.createTree(named: "uneven")
            for k in stored { try tx.put(even, bytes(k), [UInt8(k & 0xff)]) }
            let mixed = try tx.createTree(named: "mixed")
            for (i, k) in stored.prefix(6_000).enumerated() {
                // Every seventh key 5 bytes long: it sorts before the 8-byte keys it begins.
                try tx.put(mixed, i % 7 == 0 ? Array(bytes(k).prefix(5)) : bytes(k), [UInt8(i & 0xff)])
            }
        }
        // Each stored key and its neighbours, ascending, then a few going back.
        var keys = stored.flatMap { [$0 - 1, $0, $0 + 1] }
        keys += [stored[10_000], stored[5], 0, UInt64.max]
        for name in ["uneven", "mixed"] {
            for writer in [false, true] {
                let check = { (tx: ReadTransaction) throws in
                    let t = try #require(try tx.tree(named: name))
                    #expect(t.depth >= 2)
                    try expectBatchLookupsFindWhatGetsFind(tx, t, keys)
                }
                if writer { try s.write { try check($0) } } else { try s.read { try check($0) } }
            }
        }
    }

    /// A leaf left empty (the first, one opening a branch, one inside it, the last) is stepped
    /// over: scans both ways, `first`, `last`, `seek` and `advance` find every other entry.
    @Test func emptyLeavesAreSteppedOver() throws {
        let s = try store()
        var removed = Set<[UInt8]>()
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            #expect(t.info.depth >= 3)
            for path in [[0], [1], [1, 1], [2, 0, 1], [-1, -1, -1, -1]] {
                for k in try tx.emptyLeaf(t, path: path) { removed.insert(k) }
            }
        }
        #expect(removed.count > 0)
        let keys = (0..<30_000).map { key(2 * $0) }.filter { !removed.contains($0) }
        try inBoth(s) { tx, t in
            let c = try tx.cursor(t)
            var forward: [[UInt8]] = []
            var ok = try c.first()
            while ok { forward.append(try c.key()); ok = try c.next() }
            #expect(forward.count == keys.count)
            #expect(forward == keys, "the forward scan differs")
            var backward: [[UInt8]] = []
            ok = try c.last()
            while ok { backward.append(try c.key()); ok = try c.prev() }
            #expect(backward.count == keys.count)
            #expect(backward == keys.reversed(), "the backward scan differs")
            let sortedRemoved = removed.sorted { $0.lexicographicallyPrecedes($1) }
            for k in stride(from: 0, to: sortedRemoved.count, by: 37).map({ sortedRemoved[$0] }) + [sortedRemoved.last!] {
                let next = keys.first { !$0.lexicographicallyPrecedes(k) }
                #expect(try c.seek(k) == (next != nil))
                if next != nil { #expect(try c.key() == next) }
            }
            #expect(try c.first())
            #expect(try c.advance(by: keys.count - 1))
            #expect(try c.key() == keys.last)
            var walked = 0
            try tx.forEach(t) { _, _ in walked += 1; return true }
            #expect(walked == keys.count)
            #expect(try tx.withLastEntry(t) { key, _ in Array(key) } == keys.last)
            for k in [sortedRemoved.first!, sortedRemoved.last!] {
                var from: [UInt8]?
                try k.withUnsafeBytes { start in try tx.forEach(t, from: start) { key, _ in from = Array(key); return false } }
                #expect(from == keys.first { !$0.lexicographicallyPrecedes(k) })
            }
            let numbers = (0..<60_000).map(UInt64.init)
            var looked: [[UInt8]] = []
            try numbers.withUnsafeBufferPointer { ks in
                try tx.forEachValue(t, forKeys: ks) { n, _ in looked.append(key(Int(ks[n]))); return true }
            }
            #expect(looked == keys, "the batch lookup differs")
        }
    }

    @Test func theLastEntryIsWhereLastLands() throws {
        let s = try store()
        try inBoth(s) { tx, t in
            let c = try tx.cursor(t)
            #expect(try c.last())
            let last = try tx.withLastEntry(t) { key, value in (Array(key), Array(value)) }
            #expect(last?.0 == (try c.key()))
            #expect(last?.1 == (try c.value()))
        }
        try s.write { tx in
            let empty = try tx.createTree(named: "empty")
            #expect(try tx.withLastEntry(empty) { key, _ in Array(key) } == nil)
            var none = 0
            try [UInt64(1)].withUnsafeBufferPointer { keys in try tx.forEachValue(empty, forKeys: keys) { _, _ in none += 1; return true } }
            #expect(none == 0)
        }
    }
}
