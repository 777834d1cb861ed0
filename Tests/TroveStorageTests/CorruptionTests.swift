import Foundation
import Testing
@testable import TroveStorage
import TestRandom

/// Damaged files give errors that say what and where; they never crash or hang the process,
/// and never hand back data that no commit wrote.
@Suite struct CorruptionTests {
    /// A dense file (compacted, then one small commit, so nearly every page holds live data),
    /// and the content after each commit that led to it.
    static func makeStore(_ path: String) throws -> [[[UInt8]: [UInt8]]] {
        let s = try Storage(path: path + ".source")
        var states: [[[UInt8]: [UInt8]]] = [[:]]
        var current: [[UInt8]: [UInt8]] = [:]
        var rng = SplitMix64(seed: 9)
        for _ in 0..<4 {
            try s.write { tx in
                let t = try tx.createTree(named: "t")
                for _ in 0..<300 {
                    let k = key(Int(rng.next() % 1000)), v = ModelTests.randomValue(&rng)
                    try tx.put(t, k, v)
                    current[k] = v
                }
            }
            states.append(current)
        }
        _ = try s.compact(to: path)
        let dense = try Storage(path: path)
        try dense.write { tx in try tx.put(try #require(try tx.tree(named: "t")), key(5000), bytes("last")) }
        current[key(5000)] = bytes("last")
        states.append(current)
        return states
    }

    /// Opens, reads everything and verifies; true if any step reported the damage.
    static func detects(_ path: String, states: [[[UInt8]: [UInt8]]]) -> Bool {
        do {
            let s = try Storage(path: path, options: { var o = StorageOptions(); o.readOnly = true; return o }())
            var content: [[UInt8]: [UInt8]] = [:]
            for (k, v) in try s.read({ try $0.dump("t") }) { content[k] = v }
            let report = try s.verify()
            if !report.isValid { return true }
            // Not detected: then what we read must be a state some commit wrote.
            #expect(states.contains(content), "undetected damage returned data no commit wrote")
            return false
        } catch {
            #expect(!"\(error)".isEmpty)
            return true
        }
    }

    /// A search descends the number of levels the tree's record gives, so a leaf above or
    /// below that level hides its keys: `verify()` names it.
    @Test func aLeafAtAnotherLevelThanTheTreeRecordsIsAProblem() throws {
        let s = try Storage.inMemory()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<2_000 { try tx.put(t, key(i), bytes("value \(i)")) }
        }
        #expect(try s.verify().isValid)
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            try tx.put(t, key(2_000), bytes("last"))
            t.info.depth += 1
        }
        let report = try s.verify()
        #expect(!report.isValid)
        #expect(report.problems.contains { "\($0)".contains("of a tree recorded as") })
    }

    @Test func randomByteFlipsAreDetectedAndNeverCrash() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("flip.trove")
        let states = try CorruptionTests.makeStore(path)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        var rng = SplitMix64(seed: 1234)
        var detected = 0, trials = 0
        for _ in 0..<300 {
            var damaged = original
            // Anywhere but the unused tail of a page trailer (24 bytes the checksum doesn't cover).
            var offset: Int
            repeat { offset = Int(rng.next() % UInt64(damaged.count)) } while offset % 4096 >= 4096 - 24
            damaged[offset] ^= UInt8(1 << (rng.next() % 8))
            try damaged.write(to: URL(fileURLWithPath: path))
            try? FileManager.default.removeItem(atPath: path + "-lock")
            trials += 1
            if CorruptionTests.detects(path, states: states) { detected += 1 }
        }
        // A flip in a meta page or in a page of the newest commit looks like a torn commit, and
        // the store falls back to the previous state: allowed, and checked above. Every other
        // flip lands in live data and must be detected.
        #expect(detected > trials * 8 / 10)
    }

    @Test func truncatedFilesGiveErrorsOrAnOlderState() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("trunc.trove")
        let states = try CorruptionTests.makeStore(path)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        var rng = SplitMix64(seed: 99)
        for _ in 0..<60 {
            let length = Int(rng.next() % UInt64(original.count))
            try original.prefix(length).write(to: URL(fileURLWithPath: path))
            try? FileManager.default.removeItem(atPath: path + "-lock")
            _ = CorruptionTests.detects(path, states: states)
        }
    }

    /// The lock file of this boot vouches for the newest commit, so the open skips its checks,
    /// but not the file's length: reading past the end of a mapped file would kill the process.
    @Test func aFileCutShortGivesAnErrorOrAnOlderStateWhenTheLockFileVouchesForItsCommit() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("cut.trove")
        let states = try CorruptionTests.makeStore(path)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let lock = try Data(contentsOf: URL(fileURLWithPath: path + "-lock"))
        let pageSize = 4096
        for pages in [3, original.count / pageSize / 2, original.count / pageSize - 1] {
            try original.prefix(pages * pageSize).write(to: URL(fileURLWithPath: path))
            try lock.write(to: URL(fileURLWithPath: path + "-lock"))
            do {
                let s = try Storage(path: path, options: { var o = StorageOptions(); o.readOnly = true; return o }())
                #expect(s.rollback?.reason.contains("truncated") == true)
                var content: [[UInt8]: [UInt8]] = [:]
                for (k, v) in try s.read({ try $0.dump("t") }) { content[k] = v }
                #expect(states.contains(content))
            } catch {
                #expect("\(error)".contains("truncated"))
            }
        }
    }

    @Test func aFileThatIsNotAStoreIsRefusedByName() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("notes.txt")
        try Data(String(repeating: "hello, not a database\n", count: 500).utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try Storage(path: path)
        } throws: { error in
            "\(error)" == "\(path) is not a Trove store: it does not begin with a Trove header (wrong magic number)"
        }
    }

    @Test func aFileThatIsNotAStoreGetsNoLockFileOrCommitLogBesideIt() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let text = Data(String(repeating: "hello, not a database\n", count: 500).utf8)
        for (name, content) in [("notes.txt", text), ("short.txt", Data("hello world\n".utf8)), ("empty.trove", Data())] {
            let path = dir.file(name)
            try content.write(to: URL(fileURLWithPath: path))
            var options = StorageOptions()
            // An empty file becomes a store when opened for writing; read-only, it is refused.
            for readOnly in content.isEmpty ? [true] : [false, true] {
                options.readOnly = readOnly
                #expect(throws: StorageError.self) { _ = try Storage(path: path, options: options) }
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == content)
                #expect(!FileManager.default.fileExists(atPath: path + "-lock"), "\(name), readOnly \(readOnly)")
                #expect(!FileManager.default.fileExists(atPath: path + "-log"), "\(name), readOnly \(readOnly)")
            }
        }
    }

    @Test func aDirectoryOrAPipeIsRefusedAsNoRegularFileWithNothingCreatedBesideIt() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let directory = dir.file("folder.trove"), pipe = dir.file("pipe.trove")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        #expect(mkfifo(pipe, 0o600) == 0)
        var readOnly = StorageOptions()
        readOnly.readOnly = true
        #expect(throws: StorageError.notATroveFile(path: directory, detail: "it is a directory")) {
            _ = try Storage(path: directory, options: readOnly)
        }
        #expect(throws: StorageError.notATroveFile(path: pipe, detail: "it is not a regular file")) {
            _ = try Storage(path: pipe)
        }
        for path in [directory, pipe] {
            #expect(!FileManager.default.fileExists(atPath: path + "-lock"))
            #expect(!FileManager.default.fileExists(atPath: path + "-log"))
        }
    }

    @Test func aShortFileIsRefusedAsTooShortNotAsBlank() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("hello.trove")
        try Data("hello world\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try Storage(path: path)
        } throws: { error in
            "\(error)".contains("hello.trove is not a Trove store") && "\(error)".contains("12 bytes, too short to hold a header")
        }
    }

    @Test func anUnknownFormatVersionIsRefused() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("future.trove")
        _ = try Storage(path: path)
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        // Version 99 with a valid checksum in slot 0.
        data.withUnsafeMutableBytes { p in
            p.storeBytes(of: UInt32(99), toByteOffset: 8, as: UInt32.self)
            p.storeBytes(of: Checksum.xxh64(p.baseAddress!, 504), toByteOffset: 504, as: UInt64.self)
        }
        try data.write(to: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path + "-lock")
        #expect { _ = try Storage(path: path) } throws: { "\($0)".contains("format version 99") }
    }

    @Test func anEmptyFileOpenedReadOnlyIsRefused() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("empty.trove")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        var o = StorageOptions()
        o.readOnly = true
        #expect { _ = try Storage(path: path, options: o) } throws: { "\($0)".contains("empty") }
    }
}

@Suite struct EncryptionTests {
    let secret = (0..<64).map { UInt8(($0 * 7) & 0xff) }

    func options(_ key: [UInt8]?) -> StorageOptions {
        var o = StorageOptions()
        o.encryptionKey = key
        return o
    }

    @Test func theRightKeyOpensAndNoPlaintextReachesTheFile() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("secret.trove")
        let marker = "TOP-SECRET-MARKER"
        do {
            let s = try Storage(path: path, options: options(secret))
            try s.write { tx in
                let t = try tx.createTree(named: "secret-tree-name")
                for i in 0..<500 { try tx.put(t, bytes("\(marker)-key-\(i)"), bytes("\(marker)-value-\(i)")) }
                try tx.put(t, bytes("big"), Array(String(repeating: marker, count: 2000).utf8))
            }
        }
        let raw = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(raw.range(of: Data(marker.utf8)) == nil)
        #expect(raw.range(of: Data("secret-tree-name".utf8)) == nil)
        let s = try Storage(path: path, options: options(secret))
        try s.read { (tx) throws in
            let t = try #require(try tx.tree(named: "secret-tree-name"))
            #expect(try tx.get(t, bytes("\(marker)-key-7")) == bytes("\(marker)-value-7"))
            #expect(try tx.get(t, bytes("big"))?.count == marker.utf8.count * 2000)
        }
        #expect(try s.verify().isValid)
    }

    @Test func aWrongKeyFailsAtOpen() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("secret.trove")
        _ = try Storage(path: path, options: options(secret))
        var wrong = secret
        wrong[0] ^= 1
        #expect(throws: StorageError.wrongEncryptionKey(path: path)) { _ = try Storage(path: path, options: options(wrong)) }
        // Named by its file, as a store without its key is.
        #expect { _ = try Storage(path: path, options: options(wrong)) } throws: {
            "\($0)" == "\(path): wrong encryption key: the key does not open this store"
        }
        #expect { _ = try Storage(path: path) } throws: { "\($0)".contains("encrypted") }
    }

    /// AES-GCM fails open if one key seals two pages under one nonce. The nonce is page number,
    /// session epoch and a counter; this checks the counter never repeats within a session,
    /// across committed and aborted transactions (it once restarted at 0 in each one).
    @Test func noTwoPagesWrittenInOneSessionShareANonce() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("secret.trove")
        do {
            var o = options(secret)
            // Small enough that the aborted transactions spill (seal and write) leaves too.
            o.maxDirtyBytes = 8 * 4096
            let s = try Storage(path: path, options: o)
            for round in 0..<4 {
                try s.write { tx in
                    let t = try tx.createTree(named: "tree-\(round)")
                    for i in 0..<300 { try tx.put(t, key(i), [UInt8](repeating: UInt8(round), count: 60)) }
                }
                let aborted = try s.beginWrite()
                let t = try aborted.createTree(named: "aborted-\(round)")
                for i in 0..<600 { try aborted.put(t, key(i), [UInt8](repeating: 7, count: 60)) }
                aborted.abort()
            }
        }
        // Each run ends in a trailer: nonce (pgno u32, epoch u32, counter u32), then the tag.
        // Counters are small and start at 1; a page's ciphertext almost never reads like one.
        let raw = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let pageSize = StorageOptions().pageSize
        var seen: [UInt64: Int] = [:]
        var pages = 0
        for end in stride(from: pageSize, through: raw.count, by: pageSize) {
            let t = end - PageLayout.trailerSize
            func u32(_ o: Int) -> UInt32 { raw[t + o ..< t + o + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
            let epoch = u32(4), counter = u32(8)
            guard epoch > 0, epoch < 16, counter > 0, counter < 1_000_000 else { continue }
            pages += 1
            seen[UInt64(epoch) << 32 | UInt64(counter), default: 0] += 1
        }
        #expect(pages >= 8)
        #expect(seen.values.allSatisfy { $0 == 1 }, "nonces used twice: \(seen.filter { $0.value > 1 }.keys.sorted())")
    }

    @Test func aKeyForAPlainStoreIsRefused() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("plain.trove")
        _ = try Storage(path: path)
        #expect { _ = try Storage(path: path, options: options(secret)) } throws: { "\($0)".contains("not encrypted") }
    }

    @Test func compactionReKeysAndDecrypts() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let s = try Storage(path: dir.file("a.trove"), options: options(secret))
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<3000 { try tx.put(t, key(i), [UInt8](repeating: 1, count: 100)) }
        }
        try s.write { tx in
            let t = try #require(try tx.tree(named: "t"))
            for i in stride(from: 0, to: 3000, by: 2) { try tx.delete(t, key(i)) }
        }
        let newKey = [UInt8](repeating: 9, count: 64)
        let r1 = try s.compact(to: dir.file("b.trove"), options: options(newKey))
        #expect(r1.entries == 1500)
        let r2 = try s.compact(to: dir.file("c.trove"))
        #expect(r2.bytesAfter < r2.bytesBefore)
        let b = try Storage(path: dir.file("b.trove"), options: options(newKey))
        #expect(try b.read { try $0.dump("t") }.count == 1500)
        let c = try Storage(path: dir.file("c.trove"))
        #expect(try c.read { try $0.dump("t") }.count == 1500)
        #expect(try c.verify().isValid)
    }
}

@Suite struct ModeTests {
    @Test func readOnlyOpenRefusesWritesAndLeavesTheFileByteForByte() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("ro.trove")
        do {
            let s = try Storage(path: path)
            try s.write { tx in try tx.put(try tx.createTree(named: "t"), bytes("k"), bytes("v")) }
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        var o = StorageOptions()
        o.readOnly = true
        let s = try Storage(path: path, options: o)
        #expect(throws: StorageError.readOnly) { try s.write { _ in } }
        #expect(try s.read { try $0.get(try #require(try $0.tree(named: "t")), bytes("k")) } == bytes("v"))
        _ = try s.verify()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aLongLivedReaderShowsInStatsAndPinsPagesUntilItEnds() throws {
        let s = try Storage.inMemory()
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<2000 { try tx.put(t, key(i), [UInt8](repeating: 0, count: 100)) }
        }
        let reader = try s.beginRead()
        for round in 0..<5 {
            try s.write { tx in
                let t = try #require(try tx.tree(named: "t"))
                for i in 0..<2000 { try tx.put(t, key(i), [UInt8](repeating: UInt8(round), count: 100)) }
            }
        }
        let pinned = try s.stats()
        #expect(pinned.oldestReader?.transactionID == reader.snapshotID)
        #expect(pinned.pendingPages > 100)
        reader.end()
        try s.write { tx in try tx.put(try #require(try tx.tree(named: "t")), key(0), bytes("x")) }
        let freed = try s.stats()
        #expect(freed.oldestReader == nil)
        #expect(freed.freePages > pinned.freePages)
    }

    @Test func concurrentReaderThreadsSeeConsistentSnapshotsWhileAWriterCommits() async throws {
        let s = try Storage.inMemory()
        let accounts = 40
        try s.write { tx in
            let t = try tx.createTree(named: "a")
            for i in 0..<accounts { try tx.put(t, key(i), withUnsafeBytes(of: Int64(100)) { Array($0) }) }
        }
        func sum(_ tx: ReadTransaction) throws -> Int64 {
            let c = try tx.cursor(try #require(try tx.tree(named: "a")))
            var total: Int64 = 0
            var ok = try c.first()
            while ok { total += try c.value().withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }; ok = try c.next() }
            return total
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var rng = SplitMix64(seed: 5)
                for _ in 0..<400 {
                    try s.write { tx in
                        let t = try #require(try tx.tree(named: "a"))
                        let a = key(Int(rng.next() % UInt64(accounts))), b = key(Int(rng.next() % UInt64(accounts)))
                        let va = try tx.get(t, a)!.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
                        try tx.put(t, a, withUnsafeBytes(of: va - 7) { Array($0) })
                        let vb = try tx.get(t, b)!.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
                        try tx.put(t, b, withUnsafeBytes(of: vb + 7) { Array($0) })
                    }
                }
            }
            for _ in 0..<3 {
                group.addTask {
                    for _ in 0..<300 {
                        let total = try s.read(sum)
                        #expect(total == Int64(accounts * 100))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try s.verify().isValid)
    }
}
