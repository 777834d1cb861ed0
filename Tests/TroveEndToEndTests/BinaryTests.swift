import Foundation
import Testing

/// The built `trove` binary, run as a script or a pipeline would.
@Suite struct BinaryTests {
    @Test func versionPrintsTheVersion() throws {
        let r = try TroveBinary.run(["--version"])
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("trove "))
        #expect(r.err.isEmpty)
    }

    @Test func helpFitsEightyColumnsAndExitsZero() throws {
        let r = try TroveBinary.run(["--help"])
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("Usage: trove [OPTIONS] [DATABASE] [COMMAND ...]"))
        #expect(r.out.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    @Test func badOptionExitsTwoAndNamesIt() throws {
        let r = try TroveBinary.run(["--frob"])
        #expect(r.status == 2)
        #expect(r.err.hasPrefix("trove: unknown option '--frob'"))
        #expect(r.out.isEmpty)
    }

    @Test func missingOptionArgumentExitsTwo() throws {
        let r = try TroveBinary.run(["-c"])
        #expect(r.status == 2)
        #expect(r.err.hasPrefix("trove: option '-c' needs an argument"))
    }

    @Test func unreadableFileExitsTwo() throws {
        let r = try TroveBinary.run(["-f", "/nonexistent/script.trove"])
        #expect(r.status == 2)
        #expect(r.err.contains("cannot read '/nonexistent/script.trove'"))
    }

    /// Output that cannot be written (a full disk) fails the run, as `cat` does, for a query
    /// as for an export, instead of exiting 0 with the results missing.
    @Test func lostStandardOutputFailsTheRun() throws {
        func run(_ arguments: [String], stdin: String = "") throws -> (status: Int32, err: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: TroveBinary.path)
            process.arguments = arguments
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
            let input = Pipe()
            process.standardInput = input
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
            let err = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: err, as: UTF8.self))
        }
        let query = try run([":memory:", ".print lost", ".print also lost"])
        #expect(query.status == 1)
        #expect(query.err == "error: cannot write standard output: No space left on device\n")
        let piped = try run([":memory:", "-c", ".models"])
        #expect(piped.status == 0, "no output, nothing lost: \(piped.err)")
        // Every later write is lost too, and the loss is told once, whatever writes.
        let people = Workspace.schema("People")
        let script = try run([":memory:", "-s", people], stdin: """
            insert Person {"id": 1, "name": "Ann"}
            export Person
            .print lost
            export Person where id == 1
            Person
            """)
        #expect(script.status == 1)
        #expect(script.err == "error: line 1: cannot write standard output: No space left on device\n")
        let exported = try run([":memory:", "-s", people, "begin", #"insert Person {"id": 1, "name": "Ann"}"#, "export Person"])
        #expect(exported.err == "error: cannot write standard output: No space left on device\nwarning: the open transaction was rolled back\n")
    }

    /// A run started with standard output or input closed fails to write or read them as
    /// `cat` does; the store never takes their descriptor, so results never land in it.
    @Test func closedStandardStreamsNeverReachTheStore() throws {
        let w = try Workspace()
        let r = try w.bash("""
            trove db -s \(Workspace.schema("People")) 'insert Person {"id": 1, "name": "Ann"}' 2>&1 >&- || echo "insert: $?"
            trove db Person 2>&1 >&- || echo "query: $?"
            trove db 'count Person' <&-
            trove db <&- || echo "input: $?"
            trove db frob 2>&- || echo "error: $?"
            trove db 'count Person'
            """)
        #expect(r.out == """
            error: cannot write standard output: Bad file descriptor
            insert: 1
            error: cannot write standard output: Bad file descriptor
            query: 1
            1
            error: 1
            1

            """, "\(r.err)")
    }

    /// An export to the file standard output writes, reached through a link or a path that
    /// does not start with /dev/, goes through standard output after what came before it:
    /// the file is neither replaced nor emptied.
    @Test func anExportThroughALinkToStandardOutputKeepsTheTextAroundIt() throws {
        let w = try Workspace()
        let r = try w.bash("""
            trove db -s \(Workspace.schema("People")) 'insert Person {"id": 1, "name": "Ann"}' >/dev/null
            ln -s /dev/stdout out.jsonl
            ln -s /proc/self/fd/1 out2.jsonl
            for f in out.jsonl out2.jsonl; do (echo head; trove db "export Person $f"; echo tail) > o.txt; cat o.txt; done
            d=$PWD; (echo head; cd / && trove "$d/db" 'export Person ./dev/stdout'; echo tail) > o.txt; cat o.txt
            """)
        let once = "head\n{\"id\": 1, \"name\": \"Ann\", \"birthdate\": null, \"age\": null, \"dogs\": [], \"nicknames\": [], \"bestFriend\": null}\ntail\n"
        #expect(r.out == String(repeating: once, count: 3), "\(r.err)")
    }

    /// A run that fails before it reads its input (an unknown option) exits 2 and leaves the
    /// input unread: the caller's write of 1 MiB, more than a pipe holds, finds the pipe closed.
    @Test func aRunThatStopsBeforeReadingItsInputLeavesItUnread() throws {
        let input = String(repeating: "count Person\n", count: 1 << 20 / 13 + 1)
        let r = try TroveBinary.run([":memory:", "--no-such-option"], stdin: input)
        #expect(r.status == 2)
        #expect(r.err.contains("--no-such-option"))
        #expect(r.out.isEmpty)
    }

    /// A script saved by an editor that starts files with a byte order mark runs as written.
    @Test func aScriptThatStartsWithAByteOrderMarkRuns() throws {
        let w = try Workspace()
        try w.write("bom.trove", "\u{FEFF}.print first\r\n.print second\r\n")
        let script = try w.run(["-f", "bom.trove"])
        #expect(script.status == 0, "\(script.err)")
        #expect(script.out == "first\nsecond\n")
        let piped = try w.run([":memory:"], stdin: "\u{FEFF}count Nobody\n")
        #expect(piped.err == "error: line 1, column 7: no model named 'Nobody' (the store has no models: open it with --schema FILE, or run .apply-schema FILE)\n")
    }

    @Test func dotCommandsWorkWithoutAStore() throws {
        let r = try TroveBinary.run(["-c", ".print hello", "-c", ".mode csv", "-c", ".mode", "-c", ".models"])
        #expect(r.status == 0)
        #expect(r.out == "hello\ncsv\n")
        #expect(try TroveBinary.run(["-c", ".help"]).out.contains(".timer on|off"))
    }

    @Test func modeOptionsAndThePipedDefault() throws {
        #expect(try TroveBinary.run(["-c", ".mode"]).out == "jsonl\n")
        #expect(try TroveBinary.run(["--line", "-c", ".mode"]).out == "line\n")
        #expect(try TroveBinary.run([":memory:", ".mode", "--json"]).out == "json\n")
    }

    @Test func statementsFromStandardInputRunLineByLine() throws {
        let r = try TroveBinary.run([], stdin: ".print one\n.mode table\n.mode\n")
        #expect(r.status == 0)
        #expect(r.out == "one\ntable\n")
    }

    @Test func statementOnAStoreWithoutModelsFailsWithStatusOne() throws {
        let r = try TroveBinary.run(["-c", "count Person", "-c", ".print not reached"])
        #expect(r.status == 1)
        #expect(r.err == "error: column 7: no model named 'Person' (the store has no models: open it with --schema FILE, or run .apply-schema FILE)\n")
        #expect(r.out.isEmpty)
    }

    @Test func aDotCommandNamingAModelOfAStoreWithoutModelsSaysHowToGiveItOne() throws {
        for (command, column) in [(".dump Person", 7), (".schema Person", 9)] {
            let r = try TroveBinary.run(["-c", command])
            #expect(r.status == 1, "\(command)")
            #expect(r.err == "error: column \(column): no model named 'Person' (the store has no models: open it with --schema FILE, or run .apply-schema FILE)\n",
                    "\(command): \(r.err)")
        }
    }

    @Test func parseErrorNamesTheColumn() throws {
        let r = try TroveBinary.run(["-c", "get Person"])
        #expect(r.status == 1)
        #expect(r.err == "error: column 11: expected a primary key after 'get Person', found the end of the statement\n")
    }

    @Test func scriptFileErrorsNameTheLine() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trove-e2e-\(UUID().uuidString).trove")
        try "#!/usr/bin/env trove -f\n.print first\nPerson where\n".write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let r = try TroveBinary.run(["-f", url.path])
        #expect(r.status == 1)
        #expect(r.out == "first\n")
        #expect(r.err == "error: \(url.path):3:13: expected a predicate after 'where', found the end of the statement\n")
    }

    @Test func exitDotCommandSetsTheStatus() throws {
        #expect(try TroveBinary.run([], stdin: ".exit 4\n").status == 4)
        // Status 0 says every statement succeeded: after a failure, leaving with 0 gives 1.
        #expect(try TroveBinary.run([], stdin: "nosuchmodel\n.exit 4\n").status == 4)
        #expect(try TroveBinary.run([], stdin: "nosuchmodel\n.exit\n").status == 1)
        #expect(try TroveBinary.run([], stdin: "nosuchmodel\n.exit 0\n").status == 1)
        #expect(try TroveBinary.run([], stdin: "nosuchmodel\n.quit\n").status == 1)
    }
}
