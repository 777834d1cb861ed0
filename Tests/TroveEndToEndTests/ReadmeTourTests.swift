import Foundation
import Testing

/// The README's five-minute tour, run word for word: every ```sh block under its heading,
/// in order, by one bash with `set -e`, in a fresh directory holding a copy of `Schemas/`,
/// with the built `trove` on PATH.
@Suite struct ReadmeTourTests {
    static func tourBlocks() throws -> [String] {
        let readme = try String(contentsOf: Workspace.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        var blocks: [String] = []
        var inTour = false
        var current: [Substring]?
        for line in lines {
            if current == nil, line.hasPrefix("## ") { inTour = line == "## A five-minute tour" }
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
}
