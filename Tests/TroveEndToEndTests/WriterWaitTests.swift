import Foundation
import TestWaits
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A write that meets another shell's transaction waits for it: by default until it is done,
/// telling standard error after a second whom it waits for; with `--timeout` or `.timeout`, at
/// most that long, then fails naming the process that holds the writer lock.
///
/// Every wait on another `trove` has its own ``WaitBudget``, and one that runs out is a
/// failure (the process is killed) rather than a hang.
@Suite struct WriterWaitTests {
    let w: Workspace
    init() throws { w = try Workspace() }

    /// A `trove` that has begun a transaction on `db` and keeps it open until told to commit.
    final class Holder {
        let process = Process()
        let input = Pipe(), output = Pipe()
        let exited = DispatchSemaphore(value: 0)

        init(_ w: Workspace) throws {
            process.executableURL = URL(fileURLWithPath: TroveBinary.path)
            process.arguments = ["db"]
            process.currentDirectoryURL = w.directory
            process.standardInput = input
            process.standardOutput = output
            process.terminationHandler = { [exited] _ in exited.signal() }
            try process.run()
            input.fileHandleForWriting.write(Data("begin\ncount Person\n".utf8))
            // The count answers once the transaction, and with it the writer lock, is held.
            let said = WaitBudget.readUntil(output.fileHandleForReading, "\n")
            guard said == "2\n" else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw HolderFailed(said: said)
            }
        }

        struct HolderFailed: Error { let said: String }

        func commit() {
            input.fileHandleForWriting.write(Data("commit\n".utf8))
            try? input.fileHandleForWriting.close()
            WaitBudget.waitForExit(process, exited, "the holder")
        }
    }

    /// The milliseconds a "gave up waiting ... after N ms" message says.
    static func waitedMilliseconds(_ message: String) -> Int? {
        message.firstMatch(of: #/gave up waiting for the writer lock after (\d+) ms/#).flatMap { Int($0.1) }
    }

    func people() throws {
        let r = try w.run(["db", "-s", Workspace.schema("People"), #"insert Person [{"id": 1}, {"id": 2}]"#])
        #expect(r.status == 0, "\(r.err)")
    }

    @Test func aWriteGivesUpAfterItsTimeoutNamingTheProcessThatHoldsTheLock() throws {
        try people()
        let holder = try Holder(w)
        defer { holder.commit() }
        let r = try w.run(["db", "--timeout", "100", #"insert Person {"id": 3}"#], budget: WaitBudget.budget)
        #expect(!r.timedOut, "the write did not give up")
        #expect(r.status == 1)
        #expect(r.err.contains("is being written by process \(holder.process.processIdentifier): gave up waiting for the writer lock after "), "\(r.err)")
        // At least the timeout; how much more is the machine's business.
        #expect(try #require(Self.waitedMilliseconds(r.err), "\(r.err)") >= 100)
        let dot = try w.run(["db", "-c", ".timeout 0", "-c", #"insert Person {"id": 3}"#, "-c", ".show"], budget: WaitBudget.budget)
        #expect(!dot.timedOut, "the write did not give up")
        #expect(dot.status == 1)
        #expect(dot.err.contains("process \(holder.process.processIdentifier)"), "\(dot.err)")
        // Reading never waits for the writer.
        let count = try w.run(["db", "count Person"], budget: WaitBudget.budget)
        #expect(!count.timedOut, "the read waited")
        #expect(count.out == "2\n")
    }

    @Test func aWriteWaitsForTheOtherWriterSayingOnceWhomItWaitsFor() throws {
        try people()
        let holder = try Holder(w)
        let waiter = Process()
        waiter.executableURL = URL(fileURLWithPath: TroveBinary.path)
        waiter.arguments = ["db", #"insert Person {"id": 3}"#]
        waiter.currentDirectoryURL = w.directory
        let errors = Pipe(), output = Pipe()
        waiter.standardError = errors
        waiter.standardOutput = output
        let exited = DispatchSemaphore(value: 0)
        waiter.terminationHandler = { _ in exited.signal() }
        try waiter.run()
        let said = WaitBudget.readUntil(errors.fileHandleForReading, "\n")
        #expect(said == "trove: waiting for the writer lock of 'db', held by process \(holder.process.processIdentifier)\n")
        // Still waiting after its notice: it goes on only once the holder commits.
        #expect(waiter.isRunning)
        holder.commit()
        WaitBudget.waitForExit(waiter, exited, "the waiting writer")
        #expect(waiter.terminationStatus == 0)
        #expect(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "")
        #expect(try w.run(["db", "count Person"]).out == "3\n")
    }

    @Test func aBadTimeoutIsAUsageError() throws {
        let r = try w.run(["db", "--timeout", "soon", ".show"])
        #expect(r.status == 2)
        #expect(r.err.contains("option '--timeout': a timeout is a whole number of milliseconds or 'wait', not 'soon'"), "\(r.err)")
        let show = try w.run(["db", "--timeout", "250", ".show"])
        #expect(show.out.contains("timeout: 250 ms"), "\(show.out)")
        #expect(try w.run(["db", "-c", ".timeout 5", "-c", ".timeout wait", "-c", ".show"]).out.contains("timeout: wait"))
        // Checked before any connection is tried, on PostgreSQL as on a store.
        let postgres = try w.run(["postgresql://nobody@127.0.0.1:1/none", "--timeout", "soon", ".show"])
        #expect(postgres.status == 2)
        #expect(postgres.err.contains("option '--timeout': a timeout is a whole number"), "\(postgres.err)")
    }
}
