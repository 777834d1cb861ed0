import Glibc
import Testing
import Trove
@testable import TroveShell

/// `.verify`, `.dbinfo`, `.backup` and the warnings an open reports, against the test backend.
@Suite struct MaintenanceCommandTests {
    func run(_ arguments: [String], backend: EchoBackend = EchoBackend()) -> (status: Int32, out: String, err: String) {
        let out = StringOutput(), err = StringOutput()
        let status = Shell.run(arguments: arguments, stdout: out, stderr: err, terminal: ShellRunTests.pipes,
                               standardInput: TextLines(""), openBackend: { _ in backend })
        return (status, out.text, err.text)
    }

    /// sqlite3 opens a write-protected file read-only by itself; here the refusal says how.
    @Test func aFileThatCanOnlyBeReadIsRefusedWithTheWayToReadIt() {
        let denied = StoreError.StorageFailure.cannotOpen(path: #filePath, errno: EACCES)
        #expect(TroveBackend.describeOpenFailure(denied, database: #filePath, readOnly: false) == "Permission denied (it can be read: open it with --readonly)")
        #expect(TroveBackend.describeOpenFailure(denied, database: #filePath, readOnly: true) == "Permission denied")
        let unreadable = StoreError.StorageFailure.cannotOpen(path: "/nonexistent/db.trove", errno: EACCES)
        #expect(TroveBackend.describeOpenFailure(unreadable, database: "/nonexistent/db.trove", readOnly: false) == "Permission denied")
    }

    /// The store opens its `-log` for writing too: a refusal there names the log, not the store.
    @Test func aCommitLogThatCannotBeWrittenIsNamed() {
        let log = StoreError.StorageFailure.cannotOpen(path: "/nonexistent/db.trove-log", errno: EROFS)
        #expect(TroveBackend.describeOpenFailure(log, database: "/nonexistent/db.trove", readOnly: false)
                == "/nonexistent/db.trove-log: Read-only file system")
    }

    @Test func verifyPrintsOkForASoundStore() {
        let r = run(["db", ".verify"])
        #expect(r.status == 0)
        #expect(r.out == "ok\n")
        #expect(r.err.isEmpty)
    }

    @Test func verifyPrintsEachProblemAndFails() {
        let backend = EchoBackend()
        backend.problems = ["page 30: checksum mismatch", "page 31 is neither used nor free"]
        let r = run(["db", ".verify", "count Person"], backend: backend)
        #expect(r.status == 1)
        #expect(r.out == "page 30: checksum mismatch\npage 31 is neither used nor free\n")
        #expect(r.err.contains("error: the store has 2 problems"))
        #expect(backend.executed.isEmpty, "a failed .verify stops the commands after it")
    }

    @Test func verifyPrintsItsWarningsOnStandardErrorAndPasses() {
        let backend = EchoBackend()
        backend.verifyWarnings = ["meta page 1 fails its checksum"]
        let r = run(["db", ".verify", "count Person"], backend: backend)
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("ok\n"))
        #expect(r.err == "warning: meta page 1 fails its checksum\n")
        #expect(backend.executed.count == 1, "a .verify that passes goes on to the next command")
    }

    @Test func dbinfoShowsTheSpaceInPagesAndBytes() {
        let r = run(["db", ".dbinfo"])
        #expect(r.status == 0)
        #expect(r.out == """
                file size: 602681344 bytes (574.8 MiB)
                page size: 4096 bytes
                    pages: 147139
               used pages: 74084 (289.4 MiB)
               free pages: 73035 (285.3 MiB, reused by later writes)
            pending pages: 20 (80.0 KiB, reused once no snapshot reads them)
                  version: 2006

            """)
    }

    @Test func backupHandsTheFileToTheBackendAndPrintsNothing() {
        let backend = EchoBackend()
        let r = run(["db", ".backup 'my copy.trove'"], backend: backend)
        #expect(r.status == 0)
        #expect(r.out.isEmpty)
        #expect(backend.copies == ["my copy.trove"])
    }

    @Test func vacuumPrintsTheFileSizeBeforeAndAfter() {
        let backend = EchoBackend()
        let r = run(["db", ".vacuum"], backend: backend)
        #expect(r.status == 0)
        #expect(r.out == "file size: 602681344 -> 303570944 bytes (574.8 MiB -> 289.5 MiB)\n")
        #expect(backend.vacuums == 1)
        #expect(run(["db", ".vacuum all"]).err.contains(".vacuum takes no arguments"))
    }

    @Test func vacuumRefusesToRunInsideATransaction() {
        let backend = EchoBackend()
        let r = run(["db", "begin", ".vacuum"], backend: backend)
        #expect(r.status == 1)
        #expect(r.err.contains("cannot vacuum inside a transaction"), "\(r.err)")
        #expect(backend.vacuums == 0)
    }

    @Test func backupNeedsAFileAndAtMostAKeyFile() {
        for command in [".backup", ".backup a b c"] {
            let r = run(["db", command])
            #expect(r.status == 1)
            #expect(r.err.contains("usage: .backup FILE [KEYFILE]"), "\(r.err)")
        }
        #expect(run(["db", ".dbinfo now"]).err.contains(".dbinfo takes no arguments"))
        #expect(run(["db", ".verify all"]).err.contains(".verify takes no arguments"))
    }

    @Test func rekeyTakesAKeyFileOrNoneAndNeedsATerminalOtherwise() throws {
        #expect(try DotCommand.parse(".rekey new.key") == .rekey(.file("new.key")))
        #expect(try DotCommand.parse(".rekey --none") == .rekey(.plain))
        #expect(try DotCommand.parse(".rekey") == .rekey(.typed))
        #expect(throws: StatementError.self) { try DotCommand.parse(".rekey a b") }
        let plain = EchoBackend()
        #expect(run(["db", ".rekey --none"], backend: plain).status == 0)
        #expect(plain.newKeys == [nil])
        let typed = EchoBackend()
        let r = run(["db", ".rekey"], backend: typed)
        #expect(r.status == 1 && r.err.contains(".rekey: give the new key's file (.rekey KEYFILE), or --none"), "\(r.err)")
        #expect(typed.newKeys.isEmpty)
    }

    @Test func openWarningsComeFirstOnStandardError() {
        let backend = EchoBackend()
        backend.openWarnings = ["the newest commit (version 4) failed its checks"]
        let r = run(["db", "count Person"], backend: backend)
        #expect(r.status == 0)
        #expect(r.err == "warning: the newest commit (version 4) failed its checks\n")
    }

    @Test func aBackendWithoutAStoreRefusesTheMaintenanceCommands() {
        for command in [".verify", ".dbinfo", ".backup x.trove", ".rekey --none", ".vacuum"] {
            let out = StringOutput(), err = StringOutput()
            let status = Shell.run(arguments: ["db", command], stdout: out, stderr: err, terminal: ShellRunTests.pipes,
                                   standardInput: TextLines(""), openBackend: { _ in UnavailableBackend() })
            #expect(status == 1)
            #expect(err.text.contains("this backend has no store file"), "\(err.text)")
        }
    }

    @Test func byteCountsReadAsPeopleWriteThem() {
        #expect(ByteCount.text(0) == "0 bytes")
        #expect(ByteCount.text(1) == "1 byte")
        #expect(ByteCount.text(1023) == "1023 bytes")
        #expect(ByteCount.text(1024) == "1.0 KiB")
        #expect(ByteCount.text(1536) == "1.5 KiB")
        #expect(ByteCount.text(1_048_575) == "1.0 MiB")
        #expect(ByteCount.text(1_048_524) == "1023.9 KiB")
        #expect(ByteCount.text(1_048_576) == "1.0 MiB")
        #expect(ByteCount.text(602_681_344) == "574.8 MiB")
        #expect(ByteCount.text(UInt64.max) == "16.0 EiB")
    }
}
