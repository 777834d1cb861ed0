import Foundation
import Testing

/// A write that meets another shell's transaction waits for it: by default until it is done,
/// telling standard error after a second whom it waits for; with `--timeout` or `.timeout`, at
/// most that long, then fails naming the process that holds the writer lock.
@Suite(.timeLimit(.minutes(1))) struct WriterWaitTests {
    let w: Workspace
    init() throws { w = try Workspace() }

    /// A `trove` that has begun a transaction on `db` and keeps it open until told to commit.
    final class Holder {
        let process = Process()
        let input = Pipe(), output = Pipe()

        init(_ w: Workspace) throws {
            process.executableURL = URL(fileURLWithPath: TroveBinary.path)
            process.arguments = ["db"]
            process.currentDirectoryURL = w.directory
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            input.fileHandleForWriting.write(Data("begin\ncount Person\n".utf8))
            // The count answers once the transaction, and with it the writer lock, is held.
            #expect(readUntil(output.fileHandleForReading, "\n") == "2\n")
        }

        func commit() {
            input.fileHandleForWriting.write(Data("commit\n".utf8))
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    /// What `handle` yields until it has said `marker` (or ended).
    static func readUntil(_ handle: FileHandle, _ marker: String) -> String {
        var data = Data()
        while !String(decoding: data, as: UTF8.self).contains(marker) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        return String(decoding: data, as: UTF8.self)
    }

    func people() throws {
        let r = try w.run(["db", "-s", Workspace.schema("People"), #"insert Person [{"id": 1}, {"id": 2}]"#])
        #expect(r.status == 0, "\(r.err)")
    }

    @Test func aWriteGivesUpAfterItsTimeoutNamingTheProcessThatHoldsTheLock() throws {
        try people()
        let holder = try Holder(w)
        defer { holder.commit() }
        let r = try w.run(["db", "--timeout", "100", #"insert Person {"id": 3}"#])
        #expect(r.status == 1)
        #expect(r.err.contains("is being written by process \(holder.process.processIdentifier): gave up waiting for the writer lock after 1"), "\(r.err)")
        let dot = try w.run(["db", "-c", ".timeout 0", "-c", #"insert Person {"id": 3}"#, "-c", ".show"])
        #expect(dot.status == 1)
        #expect(dot.err.contains("process \(holder.process.processIdentifier)"), "\(dot.err)")
        // Reading never waits for the writer.
        #expect(try w.run(["db", "count Person"]).out == "2\n")
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
        try waiter.run()
        let said = Self.readUntil(errors.fileHandleForReading, "\n")
        #expect(said == "trove: waiting for the writer lock of 'db', held by process \(holder.process.processIdentifier)\n")
        holder.commit()
        waiter.waitUntilExit()
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
