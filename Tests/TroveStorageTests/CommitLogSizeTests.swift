import Foundation
import Testing
@testable import TroveStorage

/// The commit log is sized by use: small when new, doubled as commits need it up to its cap,
/// and cut back when the last process closes the store.
@Suite struct CommitLogSizeTests {
    private static let small: UInt64 = 64 << 10

    private func logSize(_ path: String) throws -> UInt64 {
        (try FileManager.default.attributesOfItem(atPath: path + "-log")[.size] as? NSNumber)?.uint64Value ?? 0
    }

    /// One transaction of `count` keys of 100 bytes from `start`: a record of about
    /// `count * 130` bytes of leaves.
    private func putMany(_ s: Storage, from start: Int, count: Int) throws {
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in start..<(start + count) { try tx.put(t, key(i), [UInt8](repeating: UInt8(i & 0xFF), count: 100)) }
        }
    }

    private func count(_ s: Storage) throws -> Int {
        try s.read { tx in try tx.tree(named: "t").map { $0.count } ?? 0 }
    }

    @Test func aNewStoresLogIsSmall() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        let s = try Storage(path: path)
        try putMany(s, from: 0, count: 1)
        #expect(try logSize(path) == Self.small)
        #expect(s.logState!.position.end > CommitLog.headerSize, "the commit went to the log")
    }

    @Test func aCommitLargerThanTheLogGrowsItAndCleanCloseByTheLastProcessShrinksIt() throws {
        let dir = TempDir(); defer { dir.cleanup() }
        let path = dir.file("db.trove")
        do {
            let s = try Storage(path: path)
            try putMany(s, from: 0, count: 1)
            let before = s.logState!.position.end
            try putMany(s, from: 1, count: 1500)
            #expect(s.logState!.position.end > before + Self.small, "the large commit went to the log as one record")
            #expect(try logSize(path) > Self.small)
            #expect(try logSize(path) <= 4 << 20)
            // Another opener of the same store appends to the grown log, and keeps it when it
            // closes: it is not the last.
            do {
                let other = try Storage(path: path)
                try putMany(other, from: 1501, count: 10)
            }
            #expect(try logSize(path) > Self.small)
            try putMany(s, from: 1511, count: 10)
        }
        #expect(try logSize(path) == Self.small)
        let reopened = try Storage(path: path)
        #expect(try count(reopened) == 1521)
        #expect(try reopened.verify().isValid)
    }

    @Test func aGrownLogReplaysWholeAfterAPowerCut() throws {
        let disk = SimulatedDisk(), logDisk = SimulatedDisk()
        let s = try Storage(io: disk, log: CommitLog(io: logDisk))
        try putMany(s, from: 0, count: 1)
        try putMany(s, from: 1, count: 1500)
        #expect(try logDisk.size() > Self.small)
        try putMany(s, from: 1501, count: 10)
        let recovered = try Storage(io: SimulatedDisk(durable: disk.durableImage()),
                                    log: CommitLog(io: SimulatedDisk(durable: logDisk.durableImage())))
        #expect(try count(recovered) == 1511)
        #expect(try recovered.verify().isValid)
    }

    @Test func theLogGrowsNoFurtherThanItsCapacity() throws {
        let disk = SimulatedDisk(), logDisk = SimulatedDisk()
        let log = CommitLog(io: logDisk, capacity: 256 << 10, largestRecord: 100 << 10)
        let s = try Storage(io: disk, log: log)
        for round in 0..<12 { try putMany(s, from: round * 500, count: 500) }
        #expect(try logDisk.size() == 256 << 10)
        #expect(try count(s) == 6000)
    }
}
