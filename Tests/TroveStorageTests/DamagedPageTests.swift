import Testing
@testable import TroveStorage
import TestRandom

/// Reads trust a page's checksum only at open (the newest commit's pages) and in `verify()`,
/// so every other read meets a damaged page's bytes as they are: whatever they say, each read
/// and write throws or returns, and never traps, nor reads outside the file.
@Suite struct DamagedPageTests {
    /// Keys long enough that a few hundred make a tree of three levels: every kind of page
    /// (branch, leaf, overflow run, the catalog, the free list) in a file small enough to damage
    /// many times over.
    static func longKey(_ i: Int) -> [UInt8] { Array(repeating: UInt8(65 + i % 26), count: 150) + key(i) }

    static let entries = 400
    static let overflowValues = 6

    /// The file, synced, and what it held per tree after each of its two commits.
    static func makeImage() throws -> (image: [UInt8], states: [[String: [[UInt8]: [UInt8]]]]) {
        let disk = SimulatedDisk()
        let s = try Storage(io: disk)
        var content: [String: [[UInt8]: [UInt8]]] = ["long": [:], "big": [:]]
        try s.write { tx in
            let long = try tx.createTree(named: "long")
            for i in 0..<entries {
                let v = bytes("value \(i)")
                try tx.put(long, longKey(i), v)
                content["long"]![longKey(i)] = v
            }
            let big = try tx.createTree(named: "big")
            for i in 0..<overflowValues {
                let v = [UInt8](repeating: UInt8(i), count: 5_000 + 3_000 * i)
                try tx.put(big, key(i), v)
                content["big"]![key(i)] = v
            }
        }
        let first = content
        // Some free pages, so the free list has a chunk.
        try s.write { tx in
            let long = try #require(try tx.tree(named: "long"))
            for i in stride(from: 0, to: entries, by: 7) {
                _ = try tx.delete(long, longKey(i))
                content["long"]![longKey(i)] = nil
            }
        }
        try s.sync()
        return (disk.durableImage(), [first, content])
    }

    /// Every read there is, then a write through the damaged pages; what was read, or nil if
    /// something threw.
    static func readEverything(_ s: Storage, keys: [String: [[UInt8]]]) -> [String: [[UInt8]: [UInt8]]]? {
        do {
            return try s.read { tx in
                var found: [String: [[UInt8]: [UInt8]]] = [:]
                for name in try tx.treeNames() {
                    guard let t = try tx.tree(named: name) else { continue }
                    var forward: [[UInt8]: [UInt8]] = [:]
                    try tx.forEach(t) { k, v in forward[Array(k)] = Array(v); return true }
                    let c = try tx.cursor(t)
                    var backward: [[UInt8]: [UInt8]] = [:]
                    var ok = try c.last()
                    while ok { backward[try c.key()] = try c.value(); ok = try c.prev() }
                    for k in keys[name] ?? [] {
                        _ = try tx.get(t, k)
                        _ = try c.seek(k)
                    }
                    _ = try tx.withLastEntry(t) { _, _ in true }
                    guard forward == backward else { return nil }
                    found[name] = forward
                }
                return found
            }
        } catch {
            #expect(!"\(error)".isEmpty)
            return nil
        }
    }

    static func writeThrough(_ s: Storage, keys: [String: [[UInt8]]]) {
        do {
            try s.write { tx in
                for name in ["long", "big"] {
                    guard let t = try tx.tree(named: name) else { continue }
                    for (n, k) in (keys[name] ?? []).enumerated() where n % 3 == 0 { _ = try tx.delete(t, k) }
                    try tx.put(t, longKey(10_000), [UInt8](repeating: 1, count: 9_000))
                    try tx.put(t, key(20_000), bytes("new"))
                }
            }
            _ = try s.vacuum()
        } catch {
            #expect(!"\(error)".isEmpty)
        }
    }

    /// An overflow reference whose length or page number is far out of range, in a leaf
    /// damaged after the open checked it: reading the value, and deleting it (which frees its
    /// run), throw.
    @Test(arguments: [(field: 0, value: UInt64(1) << 63), (field: 0, value: UInt64.max), (field: 8, value: UInt64.max - 1)])
    func anOverflowReferenceOutOfAnyFileThrows(field: Int, value: UInt64) throws {
        let (image, _) = try DamagedPageTests.makeImage()
        let disk = SimulatedDisk(durable: image)
        let s = try Storage(io: disk)
        let leaf = try s.read { tx in try #require(try tx.tree(named: "big")).info.root }
        let page = Int(leaf) * 4096
        let slot = Int(image[page + PageLayout.headerSize]) | Int(image[page + PageLayout.headerSize + 1]) << 8
        // A narrow entry of an 8-byte key: its two lengths, the key, then length, page and checksum.
        let at = page + slot + 2 + 8 + field
        try withUnsafeBytes(of: value.littleEndian) { try disk.write($0, at: UInt64(at)) }
        #expect(throws: StorageError.self) { _ = try s.read { tx in try tx.get(try #require(try tx.tree(named: "big")), key(0)) } }
        #expect(throws: StorageError.self) { try s.write { tx in _ = try tx.delete(try #require(try tx.tree(named: "big")), key(0)) } }
    }

    @Test(arguments: [(seed: UInt64(28), trials: 1_000)])
    func aDamagedPageMakesReadsAndWritesThrowNeverTrap(seed: UInt64, trials: Int) throws {
        let (image, states) = try DamagedPageTests.makeImage()
        let keys = states[0].mapValues { Array($0.keys) + [DamagedPageTests.longKey(3), key(2)] }
        let pageSize = 4096
        let pages = image.count / pageSize
        var rng = SplitMix64(seed: seed)
        var undetected = 0
        for _ in 0..<trials {
            var damaged = image
            let page = 2 + Int(rng.next() % UInt64(pages - 2))
            // Most structure is in the header, the slot array and the entries' first bytes.
            let offset = rng.next() % 2 == 0 ? Int(rng.next() % 128) : Int(rng.next() % UInt64(pageSize - PageLayout.trailerSize))
            let at = page * pageSize + offset
            if rng.next() % 3 == 0 {
                // A whole word of garbage: lengths and page numbers far out of range.
                for b in 0..<min(8, pageSize - PageLayout.trailerSize - offset) { damaged[at + b] = UInt8(truncatingIfNeeded: rng.next()) }
            } else {
                damaged[at] ^= UInt8(1 + rng.next() % 255)
            }
            let s: Storage
            do { s = try Storage(io: SimulatedDisk(durable: damaged)) } catch { continue }
            let read = DamagedPageTests.readEverything(s, keys: keys)
            let report = try? s.verify()
            // Damage to the newest commit's pages sets it aside for the one before, as a crash can.
            if let read, report?.isValid == true, read != states[s.rollback == nil ? 1 : 0] { undetected += 1 }
            DamagedPageTests.writeThrough(s, keys: keys)
            _ = try? s.verify()
        }
        // Damage that reads go through unnoticed shows in `verify()`.
        #expect(undetected == 0)
    }
}
