import Foundation
import Testing
import Trove
#if canImport(Glibc)
import Glibc
#endif

/// `watch` end to end: one process watches, another writes, and the change arrives as a
/// JSON line on the watcher's standard output, a pipe.
@Suite struct WatchTests {
    let w: Workspace
    init() throws { w = try Workspace() }

    /// Reads a child's standard output line by line, blocking until each is complete.
    final class Lines {
        let handle: FileHandle
        private var buffer = Data()
        init(_ handle: FileHandle) { self.handle = handle }

        func next() -> String? {
            while true {
                if let newline = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer = Data(buffer[(newline + 1)...])
                    return line
                }
                let chunk = handle.availableData
                if chunk.isEmpty { return nil }
                buffer.append(chunk)
            }
        }
    }

    /// Starts `trove ARGS` in the workspace with its output read line by line.
    func startWatcher(_ arguments: [String]) throws -> (Process, Lines, Pipe) {
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: TroveBinary.path)
        watcher.arguments = arguments
        watcher.currentDirectoryURL = w.directory
        let output = Pipe(), errors = Pipe()
        watcher.standardOutput = output
        watcher.standardError = errors
        watcher.standardInput = FileHandle.nullDevice
        try watcher.run()
        return (watcher, Lines(output.fileHandleForReading), errors)
    }

    @Test func changesFromAnotherProcessArriveAsJSONLinesUntilInterrupted() throws {
        let setup = try w.run(["db", "-s", Workspace.schema("People"), #"insert Person [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}]"#])
        #expect(setup.status == 0, "\(setup.err)")

        let (watcher, lines, errors) = try startWatcher(["db", "watch Person"])

        // The first results, as the query prints them; the watch is registered before them.
        let first = try #require(lines.next())
        let second = try #require(lines.next())
        #expect(first.hasPrefix("{\"id\": 1, \"name\": \"Ann\""))
        #expect(second.hasPrefix("{\"id\": 2, \"name\": \"Bob\""))

        let insert = try w.run(["db", "-c", #"insert Person {"id": 3, "name": "Cy"}"#])
        #expect(insert.status == 0)
        let event = try #require(lines.next())
        #expect(event == #"{"op": "insert", "index": 2, "object": {"id": 3, "name": "Cy", "birthdate": null, "age": null, "dogs": [], "nicknames": [], "bestFriend": null}}"#)

        #expect(try w.run(["db", "update Person 1 set age = 30"]).status == 0)
        let update = try #require(lines.next())
        #expect(update.hasPrefix(#"{"op": "update", "index": 0, "object": {"id": 1, "name": "Ann", "birthdate": null, "age": 30"#))

        #expect(try w.run(["db", "delete Person 2"]).status == 0)
        #expect(try #require(lines.next()).hasPrefix(#"{"op": "delete", "index": 1, "object": {"id": 2"#))

        kill(watcher.processIdentifier, SIGINT)
        watcher.waitUntilExit()
        #expect(watcher.terminationReason == .exit)
        #expect(watcher.terminationStatus == 0)
        #expect(lines.next() == nil)
        #expect(errors.fileHandleForReading.readDataToEndOfFile().isEmpty)
    }

    /// A watch whose output is lost ends, failing, instead of watching for no one.
    @Test func aWatchWhoseOutputIsLostEnds() throws {
        #expect(try w.run(["db", "-s", Workspace.schema("People"), #"insert Person {"id": 1, "name": "Ann"}"#]).status == 0)
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: TroveBinary.path)
        watcher.arguments = ["db", "watch Person", ".print not reached"]
        watcher.currentDirectoryURL = w.directory
        watcher.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        let errors = Pipe()
        watcher.standardError = errors
        watcher.standardInput = FileHandle.nullDevice
        try watcher.run()
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 1)
        #expect(err == "error: cannot write standard output: No space left on device\n")
    }

    @Test func eventsAreJSONLinesInEveryMode() throws {
        #expect(try w.run(["db", "-s", Workspace.schema("People")]).status == 0)
        let (watcher, lines, _) = try startWatcher(["db", "--csv", "watch Dog"])
        // No dogs yet: the first result is the CSV header alone.
        #expect(lines.next() == "name,age")
        #expect(try w.run(["db", #"insert Dog {"name": "Rex"}"#]).status == 0)
        #expect(lines.next() == #"{"op": "insert", "index": 0, "object": {"name": "Rex", "age": 0}}"#)
        kill(watcher.processIdentifier, SIGINT)
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
    }

    @Test func aSortedWatchReportsMoves() throws {
        let setup = try w.run(["db", "-s", Workspace.schema("People"), #"insert Person [{"id": 1, "name": "Ann", "age": 1}, {"id": 2, "name": "Bob", "age": 2}]"#])
        #expect(setup.status == 0)
        let (watcher, lines, _) = try startWatcher(["db", "--csv", "watch Person SORT(age)"])
        #expect(lines.next() == "id,name,birthdate,age,dogs,nicknames,bestFriend")
        #expect(lines.next()?.hasPrefix("1,Ann") == true)
        #expect(lines.next()?.hasPrefix("2,Bob") == true)
        #expect(try w.run(["db", "update Person 1 set age = 3"]).status == 0)
        #expect(lines.next() == #"{"op": "move", "from": 1, "to": 0}"#)
        #expect(lines.next()?.hasPrefix(#"{"op": "update", "index": 1, "object": {"id": 1"#) == true)
        kill(watcher.processIdentifier, SIGINT)
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
    }
    @Test func aWatchedAggregatePrintsItsNewValueWhenACommitChangesIt() throws {
        #expect(try w.run(["db", "-s", Workspace.schema("People"), #"insert Dog {"name": "Rex", "age": 3}"#]).status == 0)
        let (watcher, lines, errors) = try startWatcher(["db", "watch sum Dog.age"])
        #expect(lines.next() == "3")
        #expect(try w.run(["db", #"insert Dog {"name": "Max", "age": 4}"#]).status == 0)
        #expect(lines.next() == "7")
        // A commit that leaves the sum as it was prints nothing; the next change does.
        #expect(try w.run(["db", #"insert Dog {"name": "Pup", "age": 0}"#]).status == 0)
        #expect(try w.run(["db", "delete Dog where name == 'Rex'"]).status == 0)
        #expect(lines.next() == "4")
        kill(watcher.processIdentifier, SIGINT)
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
        #expect(lines.next() == nil)
        #expect(errors.fileHandleForReading.readDataToEndOfFile().isEmpty)
    }

    /// A later run that fails ends the watch, as psql's `\watch` ends: its error on standard
    /// error and exit status 1; a commit after it is not followed.
    @Test func aWatchEndsWithStatusOneWhenALaterRunFails() throws {
        #expect(try w.run(["db", "-s", Workspace.schema("People"), #"insert Dog {"name": "Rex", "age": 9223372036854775806}"#]).status == 0)
        let (watcher, lines, errors) = try startWatcher(["db", "watch sum Dog.age"])
        #expect(lines.next() == "9223372036854775806")
        #expect(try w.run(["db", #"insert Dog {"name": "Max", "age": 2}"#]).status == 0)
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 1)
        #expect(lines.next() == nil)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.hasPrefix("error: column 15: the sum of 'age' is out of the range of int"), "\(message)")
    }

    /// A NaN average (one that meets both infinities) stays the same value across commits
    /// that leave it NaN: it prints once, as JSON's string "NaN", not after every commit.
    @Test func aWatchedNaNAggregatePrintsOnlyWhenItChanges() throws {
        do {
            let schema = try Schema(jsonData: Array(#"{"models": [{"name": "M", "properties": {"d": "double?"}}]}"#.utf8))
            let store = try Store(path: w.path("db"), schema: schema)
            try store.write { tx in for d in [Double.infinity, -.infinity] { _ = try tx.insert("M", ["d": .double(d)]) } }
        }
        let (watcher, lines, errors) = try startWatcher(["db", "watch avg M.d"])
        #expect(lines.next() == #""NaN""#)
        // Still NaN: nothing prints. Without the infinities the average is 1.0.
        #expect(try w.run(["db", #"insert M {"d": 1}"#]).status == 0)
        #expect(try w.run(["db", "delete M where d > 2 or d < 0"]).status == 0)
        #expect(lines.next() == "1.0")
        kill(watcher.processIdentifier, SIGINT)
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
        #expect(lines.next() == nil)
        #expect(errors.fileHandleForReading.readDataToEndOfFile().isEmpty)
    }

    @Test func aWatchedGroupQueryPrintsEventsOverItsGroups() throws {
        #expect(try w.run(["db", "-s", Workspace.schema("People"), #"insert Dog [{"name": "Rex", "age": 3}, {"name": "Max", "age": 5}]"#]).status == 0)
        let (watcher, lines, _) = try startWatcher(["db", "watch Dog GROUP(age)"])
        #expect(lines.next() == #"{"age": 3, "@count": 1}"#)
        #expect(lines.next() == #"{"age": 5, "@count": 1}"#)
        // A group is the same row while its key values are: a new member updates it.
        #expect(try w.run(["db", #"insert Dog {"name": "Fido", "age": 5}"#]).status == 0)
        #expect(lines.next() == #"{"op": "update", "index": 1, "object": {"age": 5, "@count": 2}}"#)
        #expect(try w.run(["db", #"insert Dog {"name": "Pup", "age": 1}"#]).status == 0)
        #expect(lines.next() == #"{"op": "insert", "index": 0, "object": {"age": 1, "@count": 1}}"#)
        kill(watcher.processIdentifier, SIGINT)
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
    }

    @Test func aWatchedProjectionPrintsEventsOverItsRows() throws {
        #expect(try w.run(["db", "-s", Workspace.schema("People"), #"insert Dog [{"name": "Rex", "age": 3}, {"name": "Max", "age": 5}]"#]).status == 0)
        let (watcher, lines, errors) = try startWatcher(["db", "watch Dog where age > 1 SELECT(name, age AS years)"])
        #expect(lines.next() == #"{"name": "Rex", "years": 3}"#)
        #expect(lines.next() == #"{"name": "Max", "years": 5}"#)
        #expect(try w.run(["db", #"insert Dog {"name": "Fido", "age": 2}"#]).status == 0)
        #expect(lines.next() == #"{"op": "insert", "index": 2, "object": {"name": "Fido", "years": 2}}"#)
        #expect(try w.run(["db", "update Dog where name == 'Rex' set age = 4"]).status == 0)
        #expect(lines.next() == #"{"op": "update", "index": 0, "object": {"name": "Rex", "years": 4}}"#)
        // An object the predicate never held prints nothing; the next change to the rows does.
        #expect(try w.run(["db", #"insert Dog {"name": "Pup", "age": 0}"#]).status == 0)
        #expect(try w.run(["db", "delete Dog where name == 'Max'"]).status == 0)
        #expect(lines.next() == #"{"op": "delete", "index": 1, "object": {"name": "Max", "years": 5}}"#)
        // Leaving the predicate deletes the row.
        #expect(try w.run(["db", "update Dog where name == 'Fido' set age = 1"]).status == 0)
        #expect(lines.next() == #"{"op": "delete", "index": 1, "object": {"name": "Fido", "years": 2}}"#)
        kill(watcher.processIdentifier, SIGINT)
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
        #expect(lines.next() == nil)
        #expect(errors.fileHandleForReading.readDataToEndOfFile().isEmpty)
    }
}
