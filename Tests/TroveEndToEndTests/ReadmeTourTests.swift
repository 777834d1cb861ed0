import Foundation
import Testing

/// The README's five-minute tour, run word for word: every ```sh block under its heading,
/// in order, by one bash with `set -e`, in a fresh directory holding a copy of `Schemas/`,
/// with the built `trove` on PATH.
@Suite struct ReadmeTourTests {
    static func tourBlocks(under heading: String = "## A five-minute tour") throws -> [String] {
        let readme = try String(contentsOf: Workspace.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        var blocks: [String] = []
        var inTour = false
        var current: [Substring]?
        for line in lines {
            if current == nil, line.hasPrefix("## ") { inTour = line == heading }
            guard inTour else { continue }
            if current == nil, line == "```sh" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    @Test func theTourRunsAsWritten() throws {
        let blocks = try Self.tourBlocks()
        #expect(blocks.count >= 6)
        let w = try Workspace()
        try FileManager.default.copyItem(at: Workspace.root.appendingPathComponent("Schemas"),
                                         to: w.directory.appendingPathComponent("Schemas"))
        let r = try w.bash("set -e\n" + blocks.joined(separator: "\n"))
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.isEmpty)
        let out = r.out
        #expect(out.hasPrefix("Person\nDog\n{\"inserted\": 3}\n"))
        #expect(out.contains("\n2\n"))  // count Person where ANY dogs.age > 2 ... and other counts
        #expect(out.contains("{\"name\": \"Rex\", \"age\": 3}"))
        #expect(out.contains("{\"updated\": 1}"))
        #expect(out.contains("{\"inserted\": 2}"))
        #expect(!out.contains(", \"updated\""))
        // The questions: Ann, Cy and Dee are older than 30; Bob's best friend is Ann.
        #expect(out.contains("{\"name\": \"Dee\", \"age\": 52}\n35.75\nfriend,@count,age\n,3,39.0\nAnn,1,26.0\n"))
        #expect(out.contains("{\"op\": \"insert\", \"index\": 0, \"object\": {\"id\": 4, \"name\": \"Dee\""))
        #expect(out.contains("id,name,birthdate,age,dogs,nicknames,bestFriend\nok\n    file size: "))
        // The copy holds what the store held after the transaction above deleted Bob.
        #expect(out.hasSuffix("\n3\n"))
    }

    /// The section on PostgreSQL, run word for word the same way, but for the lines that start
    /// and stop the development server: the tests' server stands for it, in a PostgreSQL schema
    /// of the test's own.
    @Test(PostgresServer.isGiven)
    func theServerSectionRunsAsWritten() throws {
        let serverLines = ["make pg", #"eval "$(Scripts/pg-server env)""#, "Scripts/pg-server stop"]
        var script: [String] = []
        var skipped: [String] = []
        for line in try Self.tourBlocks(under: "## When one machine is not enough").joined(separator: "\n").split(separator: "\n") {
            let command = line.components(separatedBy: " #")[0].trimmingCharacters(in: .whitespaces)
            if serverLines.contains(command) { skipped.append(command) } else { script.append(String(line)) }
        }
        #expect(skipped == serverLines)
        let w = try Workspace()
        try FileManager.default.copyItem(at: Workspace.root.appendingPathComponent("Schemas"),
                                         to: w.directory.appendingPathComponent("Schemas"))
        let r = try w.bash("set -e\n" + script.joined(separator: "\n"),
                           environment: ["TROVE_TEST_POSTGRES_URL": try PostgresServer.urlInOwnSchema()])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.isEmpty, "\(r.err)")
        let lines = r.out.split(separator: "\n")
        #expect(lines.first == #"{"inserted": 10}"#, "\(r.out)")
        #expect(lines.dropFirst().first?.hasPrefix(#"{"id": 6, "name": "Fatima Haddad""#) == true, "\(r.out)")
        #expect(r.out.contains(#"{"sql": "SELECT "#), "\(r.out)")
        #expect(r.out.hasSuffix(#"{"inserted": 10}"# + "\n10\n"), "\(r.out)")
    }
}
