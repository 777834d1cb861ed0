import Foundation
import Testing
@testable import TroveStorage

/// Opening a store never waits for the disk; the first write transaction of each `Storage`
/// flushes what a crashed writer may have left unsynced before it builds on it.
@Suite struct FirstWriteSyncTests {
    /// A store on `io` holding one committed key, closed again.
    private func seeded(_ io: RecordingIO) throws {
        let s = try Storage(io: io)
        try s.write { tx in try tx.put(try tx.createTree(named: "t"), key(1), bytes("one")) }
    }

    @Test func openingAndReadingDoNotSync() throws {
        let io = try RecordingIO()
        try seeded(io)
        let before = io.syncs
        let s = try Storage(io: io)
        let value = try s.read { tx in try tx.tree(named: "t").flatMap { try tx.get($0, key(1)) } }
        #expect(value == bytes("one"))
        #expect(io.syncs == before)
    }

    @Test func theFirstWriteSyncsOnceBeforeItsCommitDoes() throws {
        let io = try RecordingIO()
        try seeded(io)
        let s = try Storage(io: io)
        let before = io.syncs
        let tx = try s.beginWrite()
        #expect(io.syncs == before + 1)
        try tx.put(try tx.createTree(named: "t"), key(2), bytes("two"))
        try tx.commit()
        #expect(io.syncs == before + 2)
        try s.write { tx in try tx.put(try tx.createTree(named: "t"), key(3), bytes("three")) }
        #expect(io.syncs == before + 3)
    }

    @Test func anExplicitSyncTakesThePlaceOfTheFirstWritesSync() throws {
        let io = try RecordingIO()
        try seeded(io)
        let s = try Storage(io: io)
        try s.sync()
        let before = io.syncs
        try s.write { tx in try tx.put(try tx.createTree(named: "t"), key(2), bytes("two")) }
        #expect(io.syncs == before + 1)
    }
}
