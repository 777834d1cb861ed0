import Foundation
import Testing

/// `.dbinfo`, `.vacuum`, `.backup` and `.verify` through the built binary, on a file store: how
/// a user sees the space a delete leaves, gets it back, and checks a file.
@Suite struct MaintenanceCommandEndToEndTests {
    let w: Workspace
    init() throws { w = try Workspace() }

    /// A People store that held 7,000 people (a file of over 1 MiB), of which 100 are left.
    func mostlyDeleted() throws {
        let rows = (0..<7_000).map { #"{"id": \#($0), "name": "person \#($0) with a longer name to fill pages"}"# }
        try w.write("people.jsonl", rows.joined(separator: "\n") + "\n")
        let r = try w.run(["db", "-s", Workspace.schema("People"), "import Person people.jsonl", "delete Person where id >= 100",
                           "insert Person {\"id\": -1, \"name\": \"late\"}"])
        #expect(r.status == 0, "\(r.err)")
    }

    func field(_ name: String, in dbinfo: String) -> Int? {
        for line in dbinfo.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                return Int(parts[1].split(separator: " ").first ?? "")
            }
        }
        return nil
    }

    @Test func aLargeDeleteGivesItsSpaceBackAndBackupCopiesEveryObject() throws {
        try mostlyDeleted()
        let before = try w.run(["db", ".dbinfo"])
        #expect(before.status == 0, "\(before.err)")
        // The commit that freed most of the file shrank it (the automatic vacuum).
        let free = try #require(field("free pages", in: before.out)), used = try #require(field("used pages", in: before.out))
        let pending = try #require(field("pending pages", in: before.out))
        #expect(free + pending < used, "\(before.out)")
        let vacuum = try w.run(["db", ".vacuum", ".verify", "count Person"])
        #expect(vacuum.status == 0, "\(vacuum.err)")
        #expect(vacuum.out.hasPrefix("file size: "), "\(vacuum.out)")
        #expect(vacuum.out.hasSuffix("ok\n101\n"), "\(vacuum.out)")

        let backup = try w.run(["db", ".backup small.trove"])
        #expect(backup.status == 0 && backup.out.isEmpty, "\(backup.err)")
        let after = try w.run(["small.trove", ".dbinfo", ".verify", "count Person"])
        #expect(after.status == 0, "\(after.err)")
        #expect(field("free pages", in: after.out) == 0)
        #expect(try #require(field("file size", in: after.out)) <= #require(field("file size", in: before.out)))
        #expect(after.out.hasSuffix("ok\n101\n"))
        #expect(try w.run(["small.trove", "get Person -1"]).out.contains("\"late\""))
    }

    @Test func backupNeverOverwrites() throws {
        try mostlyDeleted()
        try w.write("taken.trove", "precious")
        let r = try w.run(["db", ".backup taken.trove"])
        #expect(r.status == 1)
        #expect(r.err.contains("taken.trove already exists"), "\(r.err)")
        #expect(try w.read("taken.trove") == "precious")
    }

    /// Flips a byte inside the entries of the first leaf page the newest commit of store `name`
    /// wrote, with no lock file left to vouch for that commit (as after a reboot). Returns the
    /// leaf's page number and the commit's version.
    func damageNewestLeaf(_ name: String) throws -> (leaf: Int, version: UInt64) {
        try FileManager.default.removeItem(atPath: w.path(name + "-lock"))
        var bytes = [UInt8](try w.bytes(name))
        func txnid(_ page: Int) -> UInt64 { bytes[(page * 4096 + 8)..<(page * 4096 + 16)].withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } }
        let pages = 2..<(bytes.count / 4096)
        let newest = try #require(pages.map(txnid).max())
        let leaf = try #require(pages.first { txnid($0) == newest && bytes[$0 * 4096 + 16] == 2 })
        let upper = Int(bytes[(leaf * 4096 + 20)..<(leaf * 4096 + 24)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
        bytes[leaf * 4096 + upper] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: w.path(name)))
        return (leaf, newest)
    }

    @Test func verifyAndOpenReportDamage() throws {
        try mostlyDeleted()
        #expect(try w.run(["db", ".backup copy.trove"]).status == 0)
        #expect(try w.run(["copy.trove", ".verify"]).out == "ok\n")
        // The copy's pages are all its one commit's.
        let (leaf, _) = try damageNewestLeaf("copy.trove")
        let r = try w.run(["copy.trove", "count Person"])
        #expect(r.status == 2)
        #expect(r.err.contains("page \(leaf): checksum mismatch"), "\(r.err)")
    }

    @Test func anOpenThatSetsADamagedCommitAsideWarnsAndGoesOn() throws {
        let people = Workspace.schema("People")
        #expect(try w.run(["db", "-s", people, "insert Person {\"id\": 1, \"name\": \"Ann\"}"]).status == 0)
        #expect(try w.run(["db", "insert Person {\"id\": 2, \"name\": \"Bob\"}"]).status == 0)
        let (leaf, newest) = try damageNewestLeaf("db")
        let r = try w.run(["db", "count Person"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "1\n")
        #expect(r.err.hasPrefix("warning: the newest commit (version \(newest)) failed its checks ("), "\(r.err)")
        #expect(r.err.contains("page \(leaf): checksum mismatch") && r.err.contains("so the store opened at version \(newest - 1)."))
        // The version opened is sound, but .verify names the commit damage cost, until a write replaces it.
        let verify = try w.run(["db", ".verify"])
        #expect(verify.status == 1)
        #expect(verify.out.hasPrefix("the newest commit (version \(newest)) failed its checks ("), "\(verify.out)")
        #expect(verify.out.contains("page \(leaf): checksum mismatch") && verify.out.contains("and the store opened at version \(newest - 1)\n"))
        #expect(verify.err.hasSuffix("error: the store has a problem\n"), "\(verify.err)")
        let written = try w.run(["db", "insert Person {\"id\": 3, \"name\": \"Cy\"}", ".verify"])
        #expect(written.status == 0, "\(written.err)")
        #expect(written.out == "{\"inserted\": 1}\nok\n")
    }

    /// A store of two commits, its bytes, the meta slot of the newest commit and its version.
    func twoCommits(keepingTheLockFile: Bool) throws -> (bytes: [UInt8], slot: Int, newest: UInt64) {
        let people = Workspace.schema("People")
        #expect(try w.run(["db", "-s", people, "insert Person {\"id\": 1, \"name\": \"Ann\"}"]).status == 0)
        #expect(try w.run(["db", "insert Person {\"id\": 2, \"name\": \"Bob\"}"]).status == 0)
        if !keepingTheLockFile { try FileManager.default.removeItem(atPath: w.path("db-lock")) }
        let bytes = [UInt8](try w.bytes("db"))
        func txnid(_ slot: Int) -> UInt64 { bytes[(slot * 4096 + 24)..<(slot * 4096 + 32)].withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } }
        let slot = txnid(0) > txnid(1) ? 0 : 1
        return (bytes, slot, txnid(slot))
    }

    @Test func aNewestMetaPageFailingItsChecksumWarnsAndVerifyPassesWarningUntilAWrite() throws {
        let (stored, slot, newest) = try twoCommits(keepingTheLockFile: false)
        var bytes = stored
        bytes[slot * 4096 + 100] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: w.path("db")))
        let setAside = "the newest commit (version \(newest)) failed its checks (database is corrupt at page \(slot):"
            + " the meta page fails its checksum)"
        let r = try w.run(["db", "count Person"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "1\n")
        #expect(r.err == "warning: \(setAside), so the store opened at version \(newest - 1). A crash while that commit was"
            + " written does this; so does damage to the file. If that commit matters, copy the file before writing to it.\n")
        // A crash while the meta was written leaves the same: .verify warns, and passes.
        let verify = try w.run(["db", ".verify", "count Person"])
        #expect(verify.status == 0, "\(verify.err)")
        #expect(verify.out == "ok\n1\n")
        #expect(verify.err.hasSuffix("\nwarning: \(setAside), and the store opened at version \(newest - 1); a crash while that"
            + " page was written leaves the same, so .verify passes, and the next write rewrites the page\n"), "\(verify.err)")
        let written = try w.run(["db", "insert Person {\"id\": 3, \"name\": \"Cy\"}", ".verify"])
        #expect(written.status == 0 && written.out == "{\"inserted\": 1}\nok\n", "\(written.err)")
        #expect(!written.err.contains("rewrites the page"))
        let after = try w.run(["db", ".verify", "count Person"])
        #expect(after.status == 0 && after.out == "ok\n2\n" && after.err.isEmpty, "\(after.err)")
    }

    @Test func aNewestMetaPageFailingItsChecksumInTheBootThatSawItReturnIsDamageVerifyFails() throws {
        guard FileManager.default.fileExists(atPath: "/proc/sys/kernel/random/boot_id") else { return }
        // The lock file stays: it records that commit as published in this boot.
        let (stored, slot, newest) = try twoCommits(keepingTheLockFile: true)
        var bytes = stored
        bytes[slot * 4096 + 100] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: w.path("db")))
        let setAside = "the newest commit (version \(newest)) failed its checks (database is corrupt at page \(slot):"
            + " the meta page fails its checksum)"
        let verify = try w.run(["db", ".verify"])
        #expect(verify.status == 1)
        #expect(verify.err.hasPrefix("warning: \(setAside), so the store opened at version \(newest - 1). That commit"
            + " returned since the machine booted, so the file is damaged. If that commit matters, copy the file before"
            + " writing to it.\n"), "\(verify.err)")
        #expect(verify.out == "\(setAside), and the store opened at version \(newest - 1)\n", "\(verify.out)")
        #expect(verify.err.hasSuffix("error: the store has a problem\n"), "\(verify.err)")
    }

    @Test func aMetaPageHoldingNoMetaOfTheStoreIsDamageNamingNoVersion() throws {
        let (stored, slot, newest) = try twoCommits(keepingTheLockFile: false)
        var bytes = stored
        bytes.replaceSubrange((slot * 4096)..<(slot * 4096 + 512), with: repeatElement(0xEE, count: 512))
        try Data(bytes).write(to: URL(fileURLWithPath: w.path("db")))
        let reason = "database is corrupt at page \(slot): the meta page holds no meta of this store"
        let verify = try w.run(["db", ".verify"])
        #expect(verify.status == 1)
        #expect(verify.err.hasPrefix("warning: the store opened at version \(newest - 1), but \(reason), so a newer commit"
            + " may be lost to damage to the file. If it matters, copy the file before writing to it.\n"), "\(verify.err)")
        #expect(verify.out == "\(reason), and the store opened at version \(newest - 1)\n", "\(verify.out)")
        let written = try w.run(["db", "insert Person {\"id\": 3, \"name\": \"Cy\"}", ".verify"])
        #expect(written.status == 0 && written.out == "{\"inserted\": 1}\nok\n", "\(written.err)")
    }

    @Test func backupWorksReadOnlyInsideATransactionAndFromMemory() throws {
        try mostlyDeleted()
        let before = try w.bytes("db")
        #expect(try w.run(["--readonly", "db", ".backup ro.trove"]).status == 0)
        #expect(try w.bytes("db") == before, "--readonly leaves the store's file as it was")
        for side in ["ro.trove-lock", "ro.trove-log"] {
            #expect(!FileManager.default.fileExists(atPath: w.path(side)), "a copy comes without \(side)")
        }
        #expect(try w.run(["ro.trove", "count Person"]).out == "101\n")
        let tx = try w.run(["db", "begin", "delete Person where id < 50", ".backup tx.trove", "commit"])
        #expect(tx.status == 0, "\(tx.err)")
        #expect(try w.run(["tx.trove", "count Person"]).out == "101\n", "the open transaction is left out")
        #expect(try w.run(["db", "count Person"]).out == "50\n")
        let memory = try w.run([":memory:", "-s", Workspace.schema("People"), "insert Person {\"id\": 7, \"name\": \"Mem\"}", ".backup mem.trove"])
        #expect(memory.status == 0, "\(memory.err)")
        #expect(try w.run(["mem.trove", "get Person 7"]).out.contains("\"Mem\""))
    }
}
