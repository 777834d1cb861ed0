import Foundation
import Testing
@testable import TroveStorage
import TestRandom

/// Random operations mirrored into plain dictionaries: the store must agree after every commit,
/// abort, and for every snapshot held across later commits.
@Suite struct ModelTests {
    typealias Model = [String: [[UInt8]: [UInt8]]]

    static func randomValue(_ rng: inout SplitMix64) -> [UInt8] {
        let size: Int
        switch rng.next() % 20 {
        case 0: size = Int(rng.next() % 20_000)          // overflow pages
        case 1: size = 0
        default: size = Int(rng.next() % 300)
        }
        let b = UInt8(truncatingIfNeeded: rng.next())
        return (0..<size).map { b &+ UInt8(truncatingIfNeeded: $0) }
    }

    static func check(_ s: Storage, equals model: Model) throws {
        try s.read { tx in
            #expect(Set(try tx.treeNames()) == Set(model.keys))
            for (name, kv) in model {
                let dump = try tx.dump(name)
                #expect(dump.count == kv.count, "tree \(name)")
                for (k, v) in dump where kv[k] != v { Issue.record("tree \(name) key \(k) differs") ; break }
                #expect(try tx.tree(named: name)?.count == kv.count)
            }
        }
    }

    static func run(seed: UInt64, operations: Int, storage s: Storage) throws {
        var rng = SplitMix64(seed: seed)
        var model: Model = [:]
        var snapshots: [(ReadTransaction, Model)] = []
        var done = 0
        while done < operations {
            let tx = try s.beginWrite()
            var working = model
            let ops = 1 + Int(rng.next() % 60)
            for _ in 0..<ops {
                done += 1
                let name = ["a", "b", "c"][Int(rng.next() % 3)]
                let k = key(Int(rng.next() % 2000))
                switch rng.next() % 12 {
                case 0..<6:
                    let v = randomValue(&rng)
                    try tx.put(try tx.createTree(named: name), k, v)
                    working[name, default: [:]][k] = v
                case 6..<10:
                    if let t = try tx.tree(named: name) {
                        let existed = try tx.delete(t, k)
                        #expect(existed == (working[name]?[k] != nil))
                        working[name]?[k] = nil
                    }
                case 10:
                    if rng.next() % 8 == 0, try tx.dropTree(named: name) { working[name] = nil }
                default:
                    if let t = try tx.tree(named: name) {
                        // A range scan inside the write transaction sees its own writes.
                        let c = try tx.cursor(t)
                        var ok = try c.seek(k)
                        var expected = (working[name] ?? [:]).keys.filter { !$0.lexicographicallyPrecedes(k) }.sorted { $0.lexicographicallyPrecedes($1) }
                        var seen = 0
                        while ok && seen < 5 {
                            #expect(try c.key() == expected.removeFirst())
                            seen += 1
                            ok = try c.next()
                        }
                    }
                }
            }
            if rng.next() % 5 == 0 {
                tx.abort()
            } else {
                try tx.commit()
                model = working
            }
            if rng.next() % 4 == 0 { snapshots.append((try s.beginRead(), model)) }
            if snapshots.count > 3 || (rng.next() % 3 == 0 && !snapshots.isEmpty) {
                let (r, m) = snapshots.removeFirst()
                for (name, kv) in m {
                    let dump = try r.dump(name)
                    #expect(dump.count == kv.count, "snapshot of \(name)")
                    #expect(dump.allSatisfy { kv[$0.0] == $0.1 })
                }
                r.end()
            }
            try check(s, equals: model)
        }
        for (r, _) in snapshots { r.end() }
        let report = try s.verify()
        #expect(report.isValid, "seed \(seed): \(report)")
    }

    @Test(arguments: 1...12)
    func randomOperationsMatchADictionary(seed: Int) throws {
        try ModelTests.run(seed: UInt64(seed), operations: 1500, storage: try Storage.inMemory())
    }

    @Test(arguments: 1...3)
    func randomOperationsMatchADictionaryWhenEncrypted(seed: Int) throws {
        var o = StorageOptions()
        o.encryptionKey = (0..<64).map { UInt8($0) }
        try ModelTests.run(seed: UInt64(seed) + 100, operations: 800, storage: try Storage.inMemory(options: o))
    }

    @Test(arguments: [false, true])
    func hugeTransactionsSpillLeavesAndStayCorrect(encrypted: Bool) throws {
        var o = StorageOptions()
        o.maxDirtyBytes = 64 * 4096
        if encrypted { o.encryptionKey = (0..<64).map { UInt8(255 - $0) } }
        let s = try Storage.inMemory(options: o)
        try ModelTests.run(seed: 77, operations: 3000, storage: s)
        try s.write { tx in
            let t = try tx.createTree(named: "bulk")
            for i in 0..<20_000 { try tx.put(t, key(i), [UInt8](repeating: UInt8(i & 0xff), count: 150)) }
        }
        let dump = try s.read { try $0.dump("bulk") }
        #expect(dump.count == 20_000)
        #expect(dump.enumerated().allSatisfy { $0.element.0 == key($0.offset) && $0.element.1.first == UInt8($0.offset & 0xff) })
        #expect(try s.verify().isValid)
    }
}
