import Foundation
import Testing
@testable import TroveStorage
import TestRandom

/// A file in memory that records each write call, to check how commits reach the file.
final class RecordingIO: StorageIO, @unchecked Sendable {
    let name = "recording"
    private let inner: FileStorageIO
    private let lock = NSLock()
    private var _writes: [(offset: UInt64, count: Int)] = []
    var writes: [(offset: UInt64, count: Int)] { lock.lock(); defer { lock.unlock() }; return _writes }

    init() throws { inner = try FileStorageIO(anonymousName: "recording") }

    func size() throws -> UInt64 { try inner.size() }
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws { try inner.read(into: buffer, at: offset) }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        lock.lock(); _writes.append((offset, bytes.count)); lock.unlock()
        try inner.write(bytes, at: offset)
    }
    /// Each `write(contiguous:at:)` call: offset and total bytes.
    private var _vectored: [(offset: UInt64, count: Int)] = []
    var vectored: [(offset: UInt64, count: Int)] { lock.lock(); defer { lock.unlock() }; return _vectored }
    func write(contiguous buffers: [UnsafeRawBufferPointer], at offset: UInt64) throws {
        lock.lock(); _vectored.append((offset, buffers.reduce(0) { $0 + $1.count })); lock.unlock()
        try inner.write(contiguous: buffers, at: offset)
    }
    private var _syncs = 0
    var syncs: Int { lock.lock(); defer { lock.unlock() }; return _syncs }
    func sync() throws {
        lock.lock(); _syncs += 1; lock.unlock()
        try inner.sync()
    }
    func map(length: UInt64) throws -> StorageMapping { try inner.map(length: length) }
}

/// Records plain writes; `write(contiguous:at:)` is the protocol's default.
final class PlainWriteLog: StorageIO, @unchecked Sendable {
    let name = "plain"
    private let inner: FileStorageIO
    private(set) var writes: [(offset: UInt64, count: Int)] = []

    init() throws { inner = try FileStorageIO(anonymousName: "plain") }

    func size() throws -> UInt64 { try inner.size() }
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws { try inner.read(into: buffer, at: offset) }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        writes.append((offset, bytes.count))
        try inner.write(bytes, at: offset)
    }
    func sync() throws { try inner.sync() }
    func map(length: UInt64) throws -> StorageMapping { try inner.map(length: length) }
}

@Suite struct CommitWriteTests {
    @Test func vectoredFileWriteMatchesOneWritePerBuffer() throws {
        let io = try FileStorageIO(anonymousName: "vectored")
        // More buffers than one pwritev call takes, of uneven sizes.
        var rng = SplitMix64(seed: 3)
        let chunks: [[UInt8]] = (0..<1500).map { i in
            [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: Int(rng.next() % 40) + 1)
        }
        let expected = chunks.flatMap { $0 }
        try withBuffers(chunks) { try io.write(contiguous: $0, at: 100) }
        var back = [UInt8](repeating: 0xff, count: expected.count + 100)
        try back.withUnsafeMutableBytes { try io.read(into: $0, at: 0) }
        #expect(Array(back[100...]) == expected)
        #expect(back[..<100].allSatisfy { $0 == 0 })
        #expect(try io.size() == UInt64(expected.count + 100))
    }

    @Test func defaultVectoredWriteIssuesOneWritePerBuffer() throws {
        let io = try PlainWriteLog()
        try withBuffers([[1, 2], [3], [4, 5, 6]]) { try io.write(contiguous: $0, at: 8) }
        #expect(io.writes.map(\.offset) == [8, 10, 11])
        #expect(io.writes.map(\.count) == [2, 1, 3])
        var back = [UInt8](repeating: 0, count: 6)
        try back.withUnsafeMutableBytes { try io.read(into: $0, at: 8) }
        #expect(back == [1, 2, 3, 4, 5, 6])
    }

    @Test func commitWritesConsecutivePagesInCallsOfAtMost64KiB() throws {
        let io = try RecordingIO()
        let s = try Storage(io: io)
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<5_000 { try tx.put(t, key(i), [UInt8](repeating: UInt8(i & 0xff), count: 100)) }
        }
        let calls = io.vectored
        #expect(calls.allSatisfy { $0.count <= WriteTransaction.maxWriteBytes && $0.count % 4096 == 0 })
        #expect(calls.contains { $0.count == WriteTransaction.maxWriteBytes })
        let all = try s.read { try $0.dump("t") }
        #expect(all.map(\.0) == (0..<5_000).map(key))
    }

    @Test func manySmallCommitsOnAFileStayReadableAfterReopen() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("small-commits.trove")
        var rng = SplitMix64(seed: 11)
        var model: [String: [UInt8: [UInt8]]] = ["a": [:], "b": [:], "c": [:]]
        do {
            let s = try Storage(path: path)
            try s.write { tx in
                for name in ["a", "b", "c"] {
                    let t = try tx.createTree(named: name)
                    for i in 0..<2_000 { try tx.put(t, key(i), [UInt8](repeating: 1, count: 60)) }
                }
            }
            for _ in 0..<300 {
                try s.write { tx in
                    for name in ["a", "b", "c"] {
                        let k = UInt8(truncatingIfNeeded: rng.next())
                        let v = [UInt8](repeating: UInt8(truncatingIfNeeded: rng.next()), count: Int(rng.next() % 200) + 1)
                        try tx.put(try #require(try tx.tree(named: name)), [0xff, k], v)
                        model[name]![k] = v
                    }
                }
            }
            let report = try s.verify()
            #expect(report.isValid, "\(report)")
        }
        let s = try Storage(path: path)
        try s.read { tx in
            for (name, entries) in model {
                let t = try #require(try tx.tree(named: name))
                for (k, v) in entries { #expect(try tx.get(t, [0xff, k]) == v) }
                #expect(t.count == 2_000 + entries.count)
            }
        }
        let report = try s.verify()
        #expect(report.isValid, "\(report)")
    }
}

private func withBuffers(_ chunks: [[UInt8]], _ body: ([UnsafeRawBufferPointer]) throws -> Void) throws {
    let pointers = chunks.map { c -> UnsafeMutableRawBufferPointer in
        let p = UnsafeMutableRawBufferPointer.allocate(byteCount: c.count, alignment: 1)
        p.copyBytes(from: c)
        return p
    }
    defer { pointers.forEach { $0.deallocate() } }
    try body(pointers.map { UnsafeRawBufferPointer($0) })
}

@Suite struct TouchValidationTests {
    /// One key into a tree of three levels: the path `touch` copies.
    static func putOne(_ s: Storage, _ i: Int) throws -> Int {
        try s.write { tx in
            try tx.put(try #require(try tx.tree(named: "t")), key(i), bytes("one more"))
            return tx.validatedPages
        }
    }

    /// A store at `path` whose tree "t" holds the even keys below 40,000 in one commit, three
    /// or more levels deep, so that a path from root to leaf has pages to validate.
    private static func deepTree(at path: String) throws -> (Storage, depth: Int) {
        let s = try Storage(path: path)
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<20_000 { try tx.put(t, key(i * 2), [UInt8](repeating: 1, count: 200)) }
        }
        let depth = try s.read { Int(try #require(try $0.tree(named: "t")).info.depth) }
        #expect(depth >= 3)
        return (s, depth)
    }

    @Test func pagesTheLastCommitThroughThisObjectWroteAreNotValidatedAgain() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        let (s, depth) = try Self.deepTree(at: path)
        // The same path again: every page on it is the previous commit's.
        #expect(try Self.putOne(s, 1) == 0)
        #expect(try Self.putOne(s, 3) == 0)
        // Another object's commit: its pages are validated here, like any other writer's, and
        // this object's are validated there.
        let other = try Storage(path: path)
        #expect(try Self.putOne(other, 5) == depth)
        #expect(try Self.putOne(s, 7) == depth)
        #expect(try Self.putOne(s, 9) == 0)
    }

    @Test func pagesAnEarlierCommitThroughThisObjectWroteAreNotValidatedAgain() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        let (s, depth) = try Self.deepTree(at: path)
        // The last leaf, then the first: its leaf and branches are the bulk commit's, two
        // commits back, and were written through this object.
        #expect(try Self.putOne(s, 39_999) == 0)
        #expect(try Self.putOne(s, 1) == 0)
        // Another object validates every page of a path it did not write.
        let other = try Storage(path: path)
        #expect(try Self.putOne(other, 19_999) == depth)
        // And this object validates the pages the other one wrote, but not its own.
        #expect(try Self.putOne(s, 19_999) == depth)
        #expect(try Self.putOne(s, 3) == 0)
    }
}
