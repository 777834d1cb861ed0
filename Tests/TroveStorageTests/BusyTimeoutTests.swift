import Foundation
import TestWaits
import Testing
@testable import TroveStorage

/// A writer that meets another waits for the writer lock at most its busy timeout, and then
/// says who holds the lock and how long it waited: at least the timeout (how much more is the
/// machine's business). Every wait on the holder or on a waiting writer has its own
/// ``WaitBudget``: a writer that never gives up fails the test rather than hangs it.
@Suite struct BusyTimeoutTests {
    static func waitedMilliseconds(_ error: StorageError) -> Int64? {
        guard case let .writerBusy(_, _, waited) = error else { return nil }
        return waited.components.seconds * 1000 + waited.components.attoseconds / 1_000_000_000_000_000
    }

    /// Any `Duration` the public API takes gives a deadline: a negative one fails at once
    /// (it used to trap converting its attoseconds), a huge one never wraps into the past.
    @Test func aNegativeOrHugeTimeoutGivesADeadlineNotATrap() throws {
        #expect(Storage.nanoseconds(.milliseconds(-1)) == 0)
        #expect(Storage.nanoseconds(.seconds(-5)) == 0)
        #expect(Storage.nanoseconds(.milliseconds(1500)) == 1_500_000_000)
        #expect(Storage.nanoseconds(.seconds(10_000_000_000)) == UInt64.max / 2)
        #expect(Storage.nanoseconds(.seconds(Int64.max)) == UInt64.max / 2)
        let dir = TempDir()
        defer { dir.cleanup() }
        var options = StorageOptions()
        options.busyTimeout = .milliseconds(-1)
        let storage = try Storage(path: dir.file("db.trove"), options: options)
        try storage.write { tx in _ = try tx.createTree(named: "t") }
        #expect(try storage.read { try $0.dump("t").count } == 0)
    }

    @Test func aWriterGivesUpAfterItsTimeoutNamingTheProcessThatHoldsTheLock() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try Storage(path: path).write { tx in _ = try tx.createTree(named: "t") }
        let out = Pipe()
        let holder = try runProbe(["hold-writer", path], stdout: out)
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) }; holder.waitUntilExit() }
        try #require(WaitBudget.readUntil(out.fileHandleForReading, "holding").contains("holding"))

        var options = StorageOptions()
        options.busyTimeout = .milliseconds(100)
        let s = try Storage(path: path, options: options)
        let write = WaitBudget.Thread { _ = try s.beginWrite() }
        let outcome = try #require(write.result("the write that meets the holder"))
        let error = try #require(throws: StorageError.self) { try outcome.get() }
        guard case let .writerBusy(busyPath, pid, _) = error else { Issue.record("\(error)"); return }
        #expect(busyPath == path)
        #expect(pid == holder.processIdentifier)
        #expect(try #require(Self.waitedMilliseconds(error)) >= 100)
        #expect(error.description.contains("process \(holder.processIdentifier)"))

        // The kernel frees the lock of a writer that dies: the next write gets it.
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        s.busyTimeout = nil
        try s.write { tx in try tx.put(try #require(try tx.tree(named: "t")), key(1), bytes("after")) }
        #expect(try s.read { try $0.dump("t").count } == 1)
    }

    @Test func aZeroTimeoutFailsAtOnceAndAChangedTimeoutAppliesToTheNextWrite() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        let first = try Storage(path: path)
        let tx = try first.beginWrite()
        var options = StorageOptions()
        options.busyTimeout = .zero
        let second = try Storage(path: path, options: options)
        // A writer that retries the lock is one that waits.
        LockFileProbe.shared.watch(path + "-lock")
        defer { LockFileProbe.shared.stopWatching(path + "-lock") }
        let write = WaitBudget.Thread { _ = try second.beginWrite() }
        let outcome = try #require(write.result("the write with a zero timeout"))
        let error = try #require(throws: StorageError.self) { try outcome.get() }
        guard case let .writerBusy(_, pid, _) = error else { Issue.record("\(error)"); return }
        #expect(pid == getpid())
        #expect(LockFileProbe.shared.counts(of: path + "-lock").writerLockRetries == 0)

        // Another thread of the same Storage waits at the gate within the timeout too.
        first.busyTimeout = .milliseconds(20)
        let gated = WaitBudget.Thread { _ = try first.beginWrite() }
        let gatedOutcome = try #require(gated.result("the write waiting at the gate"))
        let again = try #require(throws: StorageError.self) { try gatedOutcome.get() }
        #expect(try #require(Self.waitedMilliseconds(again)) >= 20)
        tx.abort()
        try second.write { tx in _ = try tx.createTree(named: "t") }
    }

    final class Notices: @unchecked Sendable {
        let lock = NSLock()
        var holders: [Int32?] = []
        let first = DispatchSemaphore(value: 0)
        func add(_ holder: Int32?) {
            lock.lock(); holders.append(holder); lock.unlock()
            first.signal()
        }
    }

    @Test func aWaitingWriterIsToldOnceWhoHoldsTheLockAndGoesOnWhenItIsFree() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        let first = try Storage(path: path)
        let tx = try first.beginWrite()
        let tree = try tx.createTree(named: "t")
        try tx.put(tree, key(1), bytes("first"))

        let notices = Notices()
        var options = StorageOptions()
        options.onLongWriterWait = { notices.add($0) }
        let second = try Storage(path: path, options: options)
        try Self.writeOnAnotherThread(second, key(2), bytes("second"), whenToldItWaits: notices, commit: tx)
        #expect(notices.holders == [getpid()])
        #expect(try second.read { try $0.dump("t").count } == 2)
    }

    @Test func aThreadWaitingForAnotherThreadsWriteIsToldOnceToo() throws {
        let notices = Notices()
        var options = StorageOptions()
        options.onLongWriterWait = { notices.add($0) }
        let dir = TempDir()
        defer { dir.cleanup() }
        let s = try Storage(path: dir.file("db.trove"), options: options)
        let tx = try s.beginWrite()
        _ = try tx.createTree(named: "t")
        try Self.writeOnAnotherThread(s, key(1), bytes("waited"), whenToldItWaits: notices, commit: tx)
        #expect(notices.holders == [getpid()])
    }

    /// Puts `key` in tree "t" of `storage` on another thread, which waits for the writer;
    /// commits `holder` once that write is told it waits, and returns when the write is done.
    static func writeOnAnotherThread(_ storage: Storage, _ key: [UInt8], _ value: [UInt8],
                                     whenToldItWaits notices: Notices, commit holder: WriteTransaction) throws {
        let write = WaitBudget.Thread { try storage.write { tx in try tx.put(try #require(try tx.tree(named: "t")), key, value) } }
        // Committed either way: a write never told it waits still gets to finish.
        WaitBudget.wait(for: notices.first, "the notice to the waiting write")
        try holder.commit()
        try #require(write.result("the waiting write")).get()
    }
}
