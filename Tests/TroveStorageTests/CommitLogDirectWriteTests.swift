import Foundation
import Testing
@testable import TroveStorage

/// The commit log's appends as direct writes (`O_DIRECT | O_DSYNC`, whole blocks): records of
/// any length read back as written, need no `fdatasync`, and two writers taking turns never
/// write over each other's records. Where the file system refuses direct writes, appends go
/// through the page cache and an `fdatasync`, and the same records read back.
@Suite struct CommitLogDirectWriteTests {
    /// A file that counts what the log asks of it.
    final class CountingFile: StorageIO, @unchecked Sendable {
        let file: FileStorageIO
        private(set) var syncs = 0, directWrites = 0, refusedDirectWrites = 0
        init(_ path: String) throws { file = try FileStorageIO(path: path, writable: true, create: true) }
        var name: String { file.name }
        func size() throws -> UInt64 { try file.size() }
        func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws { try file.read(into: buffer, at: offset) }
        func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws { try file.write(bytes, at: offset) }
        func write(contiguous buffers: [UnsafeRawBufferPointer], at offset: UInt64) throws { try file.write(contiguous: buffers, at: offset) }
        func sync() throws { syncs += 1; try file.sync() }
        func map(length: UInt64) throws -> StorageMapping { try file.map(length: length) }
        func writeDirect(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws -> Bool {
            #expect(Int(bitPattern: bytes.baseAddress) % directWriteAlignment == 0)
            #expect(offset % UInt64(directWriteAlignment) == 0 && bytes.count % directWriteAlignment == 0)
            let done = try file.writeDirect(bytes, at: offset)
            if done { directWrites += 1 } else { refusedDirectWrites += 1 }
            return done
        }
    }

    /// Record `i`: `i % 7 + 1` extents of lengths that end anywhere in a block, with bytes
    /// that say which record and extent they belong to.
    static func extents(_ i: Int) -> [(offset: UInt64, bytes: [UInt8])] {
        (0...(i % 7)).map { e in
            let length = 1 + (i * 977 + e * 131) % 9_000
            return (UInt64((i * 8 + e) * 16_384), (0..<length).map { UInt8(truncatingIfNeeded: $0 &+ i &* 31 &+ e) })
        }
    }

    /// Appends record `i` to `log` at `offset`; returns the offset after it.
    static func append(_ log: CommitLog, _ i: Int, generation: UInt64, at offset: UInt64) throws -> UInt64 {
        let parts = extents(i)
        var buffers: [UnsafeMutableRawBufferPointer] = []
        defer { for b in buffers { b.deallocate() } }
        var list: [CommitLog.Extent] = []
        for part in parts {
            let b = UnsafeMutableRawBufferPointer.allocate(byteCount: part.bytes.count, alignment: 8)
            b.copyBytes(from: part.bytes)
            buffers.append(b)
            list.append((part.offset, UnsafeRawBufferPointer(b), false))
        }
        return try log.append(generation: generation, txnid: UInt64(100 + i), extents: list, fileSize: 1 << 30, at: offset)
    }

    /// Replays `log` into a file in memory and checks that it holds records `0..<count`.
    static func expectRecords(_ log: CommitLog, _ count: Int) throws {
        let target = try FileStorageIO(anonymousName: "replay")
        let found = try log.replay(into: target)
        #expect(found.records == count)
        #expect(found.lastTxnid == UInt64(100 + count - 1))
        for i in 0..<count {
            for part in extents(i) {
                var back = [UInt8](repeating: 0, count: part.bytes.count)
                try back.withUnsafeMutableBytes { try target.read(into: $0, at: part.offset) }
                let same = back == part.bytes
                #expect(same, "record \(i), extent at \(part.offset)")
            }
        }
    }

    /// Whether the file system of the test's directory takes direct writes (tmpfs on older
    /// kernels does not): where it does, the tests below must see them.
    static func directWritesWork(in dir: TempDir) throws -> Bool {
        let probe = try FileStorageIO(path: dir.file("probe"), writable: true, create: true)
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: directWriteAlignment, alignment: directWriteAlignment)
        defer { block.deallocate() }
        block.initializeMemory(as: UInt8.self, repeating: 1)
        return try probe.writeDirect(UnsafeRawBufferPointer(block), at: 0)
    }

    @Test func linuxHasDirectWrites() {
        #if os(Linux)
        #expect(FileStorageIO.systemHasDirectWrites)
        #endif
    }

    @Test func recordsOfAnyLengthReadBackAsWrittenWithoutASync() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let file = try CountingFile(dir.file("db.trove-log"))
        let log = CommitLog(io: file)
        let generation = try log.restart(storeID: 7, base: 1)
        let syncsAfterRestart = file.syncs
        var offset = CommitLog.headerSize
        for i in 0..<40 { offset = try Self.append(log, i, generation: generation, at: offset) }
        #expect(try Self.directWritesWork(in: dir) == (file.refusedDirectWrites == 0))
        if file.refusedDirectWrites == 0 {
            #expect(file.directWrites == 40)
            #expect(file.syncs == syncsAfterRestart, "a direct append is durable without fdatasync")
        } else {
            // This file system has no direct I/O: one refusal, then every append writes and syncs.
            #expect(file.refusedDirectWrites == 1 && file.directWrites == 0)
            #expect(file.syncs == syncsAfterRestart + 40)
        }
        try Self.expectRecords(log, 40)
        // Another reader of the file, such as the open after a reboot, finds the same.
        try Self.expectRecords(CommitLog(io: try FileStorageIO(path: dir.file("db.trove-log"), writable: false, create: false)), 40)
    }

    @Test func twoWritersTakingTurnsKeepEachOthersRecords() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        // Two processes' logs over one file: each remembers the block it wrote last, which the
        // other may have written since.
        let files = [try CountingFile(dir.file("db.trove-log")), try CountingFile(dir.file("db.trove-log"))]
        let first = CommitLog(io: files[0]), second = CommitLog(io: files[1])
        let generation = try first.restart(storeID: 7, base: 1)
        var offset = CommitLog.headerSize
        for i in 0..<30 {
            // Runs of one to three appends by the same writer.
            let writer = (i / (1 + i % 3)) % 2 == 0 ? first : second
            offset = try Self.append(writer, i, generation: generation, at: offset)
        }
        if try Self.directWritesWork(in: dir) { #expect(files.allSatisfy { $0.directWrites > 0 }) }
        try Self.expectRecords(first, 30)
        try Self.expectRecords(second, 30)
    }

    @Test func aWriterThatFollowsANewGenerationReadsTheBlockAgain() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let first = CommitLog(io: try CountingFile(dir.file("db.trove-log")))
        let second = CommitLog(io: try CountingFile(dir.file("db.trove-log")))
        // The first writer appends two records; the second restarts the log and appends as
        // many, ending where the first one's did; the first appends after them.
        let old = try first.restart(storeID: 7, base: 1)
        var end = CommitLog.headerSize
        for i in 0..<2 { end = try Self.append(first, i, generation: old, at: end) }
        let new = try second.restart(storeID: 7, base: 1)
        var offset = CommitLog.headerSize
        for i in 0..<2 { offset = try Self.append(second, i, generation: new, at: offset) }
        #expect(offset == end)
        offset = try Self.append(first, 2, generation: new, at: offset)
        try Self.expectRecords(second, 3)
    }

    @Test func recordsEndingOnABlockBoundaryAndAtTheLogsEnd() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let file = try CountingFile(dir.file("db.trove-log"))
        // The header's block and two more: two records of one block each fill it exactly.
        let log = CommitLog(io: file, capacity: 3 * 4096, largestRecord: 4096)
        let generation = try log.restart(storeID: 7, base: 1)
        let data = 4096 - CommitLog.recordHeaderSize - 16
        var offset = CommitLog.headerSize
        var contents: [[UInt8]] = []
        for i in 0..<2 {
            let bytes = (0..<data).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) }
            contents.append(bytes)
            offset = try bytes.withUnsafeBytes { b in
                try log.append(generation: generation, txnid: UInt64(100 + i), extents: [(UInt64(i * 4096), b, false)],
                               fileSize: 1 << 20, at: offset)
            }
            #expect(offset == CommitLog.headerSize + UInt64((i + 1) * 4096))
        }
        #expect(try file.size() == 3 * 4096, "an append that ends at the log's end does not grow it")
        let target = try FileStorageIO(anonymousName: "replay")
        #expect(try log.replay(into: target).records == 2)
        for i in 0..<2 {
            var back = [UInt8](repeating: 0, count: data)
            try back.withUnsafeMutableBytes { try target.read(into: $0, at: UInt64(i * 4096)) }
            let same = back == contents[i]
            #expect(same, "record \(i)")
        }
    }
}
