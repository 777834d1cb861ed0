import Foundation
import Testing
@testable import Trove

/// `Store.statistics()`, `vacuum()`, `writeCopy(toFile:encryptionKey:)`, `verify()` and
/// `discardedCommit`: what a store's file holds, and how it is shrunk, copied, checked and
/// recovered.
@Suite struct StoreMaintenanceTests {
    static let schema = """
        { "schemaVersion": 1, "models": [ { "name": "Item", "primaryKey": "id",
          "properties": { "id": "int", "name": { "type": "string", "indexed": true } } } ] }
        """

    func configuration(_ path: String, key: [UInt8]? = nil) throws -> StoreConfiguration {
        var configuration = StoreConfiguration(path: path, schema: try schemaFromJSON(Self.schema))
        configuration.encryptionKey = key
        // These stores keep the space their deletes free, to show it.
        configuration.compactsAutomatically = false
        return configuration
    }

    func open(_ path: String, key: [UInt8]? = nil) throws -> Store {
        try Store(configuration: try configuration(path, key: key))
    }

    /// A store with 5,000 items of which all but the first 500 are deleted again.
    func mostlyDeleted(_ path: String, key: [UInt8]? = nil) throws -> Store {
        let store = try open(path, key: key)
        try store.write { tx in
            for i in 0..<5_000 { try tx.insert("Item", ["id": .int(Int64(i)), "name": .string("item \(i) " + String(repeating: "x", count: 40))]) }
        }
        try store.write { tx in _ = try tx.delete("Item", where: "id >= 500") }
        // A second small write, so that the pages the delete freed are reusable, not pending.
        try store.write { tx in try tx.insert("Item", ["id": .int(-1), "name": .string("late")]) }
        return store
    }

    func names(_ store: Store) throws -> [String] {
        try store.read { try $0.objects("Item").sorted(by: "id").map { try $0.string("name") ?? "" } }
    }

    /// Flips a byte inside the entries of the first leaf page the given commit wrote.
    func damageLeaf(of path: String, writtenBy version: UInt64) throws -> Int {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        let data = try handle.readToEnd() ?? Data()
        let bytes = [UInt8](data)
        for page in 2..<(bytes.count / 4096) {
            let base = page * 4096
            let txnid = bytes[(base + 8)..<(base + 16)].withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            guard txnid == version, bytes[base + 16] == 2 else { continue }
            let upper = Int(bytes[(base + 20)..<(base + 24)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
            try handle.seek(toOffset: UInt64(base + upper))
            try handle.write(contentsOf: [bytes[base + upper] ^ 0xFF])
            return page
        }
        Issue.record("no leaf page of version \(version)")
        return 0
    }

    @Test func statisticsCountTheSpaceADeleteFreed() throws {
        let dir = StoreTempDir(); defer { dir.cleanup() }
        let store = try mostlyDeleted(dir.file("a.trove"))
        let s = try store.statistics()
        #expect(s.pageSize == 4096)
        #expect(s.version == store.latestVersion)
        #expect(s.fileBytes >= UInt64(s.pageCount * s.pageSize))
        #expect(s.freePages + s.pendingPages > s.usedPages, "most of the file is free after the delete: \(s)")
        #expect(s.usedPages + s.freePages + s.pendingPages == s.pageCount)
    }

    @Test func vacuumShrinksTheFileAndKeepsEveryObject() throws {
        let dir = StoreTempDir(); defer { dir.cleanup() }
        let store = try mostlyDeleted(dir.file("a.trove"))
        let other = try open(dir.file("a.trove"))
        let before = try names(store)
        let report = try store.vacuum()
        #expect(report.bytesAfter < report.bytesBefore / 2, "\(report)")
        #expect(!report.heldBySnapshots)
        #expect(try store.statistics().fileBytes == report.bytesAfter)
        #expect(try store.verify().isEmpty)
        #expect(try names(store) == before)
        // Another instance on the file goes on reading and writing.
        #expect(try names(other) == before)
        try other.write { tx in try tx.insert("Item", ["id": .int(9_999), "name": .string("after")]) }
        #expect(try names(store).last == "after")
        #expect(try store.verify().isEmpty)
    }

    @Test func vacuumCannotRunInsideAWrite() throws {
        let dir = StoreTempDir(); defer { dir.cleanup() }
        let store = try open(dir.file("a.trove"))
        #expect(throws: StoreError.self) { try store.write { _ in try store.vacuum() } }
    }

    @Test func shouldCompactOnLaunchIsAskedWithTheFileAndDataSizes() throws {
        final class Asked: @unchecked Sendable { var sizes: [(total: UInt64, used: UInt64)] = [] }
        let dir = StoreTempDir(); defer { dir.cleanup() }
        let path = dir.file("a.trove")
        let before = try mostlyDeleted(path).statistics()
        let asked = Asked()
        var c = try configuration(path)
        c.shouldCompactOnLaunch = { total, used in
            asked.sizes.append((total, used))
            return used * 2 < total
        }
        let store = try Store(configuration: c)
        #expect(asked.sizes.count == 1)
        #expect(asked.sizes.first?.total == before.fileBytes)
        #expect(asked.sizes.first?.used == UInt64(before.usedPages * before.pageSize))
        #expect(try store.statistics().fileBytes < before.fileBytes / 2)
        #expect(try store.verify().isEmpty)
        // Declined, nothing changes.
        c.shouldCompactOnLaunch = { _, _ in false }
        let size = try store.statistics().fileBytes
        _ = try Store(configuration: c)
        #expect(try store.statistics().fileBytes == size)
    }

    @Test func theAutomaticPolicyShrinksTheFileAfterALargeDelete() throws {
        let dir = StoreTempDir(); defer { dir.cleanup() }
        var c = try configuration(dir.file("a.trove"))
        c.compactsAutomatically = true
        let store = try Store(configuration: c)
        try store.write { tx in
            for i in 0..<20_000 { try tx.insert("Item", ["id": .int(Int64(i)), "name": .string("item \(i) " + String(repeating: "x", count: 40))]) }
        }
        let full = try store.statistics().fileBytes
        try store.write { tx in _ = try tx.delete("Item", where: "id >= 2000") }
        let s = try store.statistics()
        #expect(s.fileBytes < full / 2, "\(full) -> \(s)")
        #expect(try store.read { try $0.objects("Item").count } == 2000)
        #expect(try store.verify().isEmpty)
    }

    @Test func aCopyHoldsTheSameObjectsWithoutTheFreePages() throws {
        let dir = StoreTempDir(); defer { dir.cleanup() }
        let store = try mostlyDeleted(dir.file("a.trove"))
        let bytes = try store.writeCopy(toFile: dir.file("copy.trove"))
        let copy = try open(dir.file("copy.trove"))
        #expect(try names(copy) == names(store))
        let original = try store.statistics(), copied = try copy.statistics()
        #expect(bytes == copied.fileBytes)
        #expect(copied.freePages == 0 && copied.pendingPages == 0)
        #expect(copied.fileBytes * 4 < original.fileBytes, "\(copied.fileBytes) against \(original.fileBytes)")
        #expect(try copy.verify().isEmpty)
        // The copy is a store like any other: it takes writes.
        try copy.write { tx in try tx.insert("Item", ["id": .int(9_999), "name": .string("new")]) }
        #expect(try copy.read { try $0.objects("Item").count } == 502)
    }

    @Test func aCopyRefusesAnExistingFileAndLeavesItAlone() throws {
        let dir = StoreTempDir(); defer { dir.cleanup() }
        let store = try mostlyDeleted(dir.file("a.trove"))
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: dir.file("taken")))
        #expect(throws: StoreError.self) { try store.writeCopy(toFile: dir.file("taken")) }
        #expect(try String(contentsOfFile: dir.file("taken"), encoding: .utf8) == "keep me")
        #expect(throws: StoreError.self) { try store.writeCopy(toFile: dir.file("a.trove")) }
        #expect(try names(store).count == 501)
    }

    @Test func aCopyLeavesOutTheWriteStillOpen() throws {
        let dir = StoreTempDir(); defer { dir.cleanup() }
        let store = try open(dir.file("a.trove"))
        try store.write { tx in try tx.insert("Item", ["id": 1, "name": "committed"]) }
        let tx = try store.beginWrite()
        try tx.insert("Item", ["id": 2, "name": "open"])
        try store.writeCopy(toFile: dir.file("copy.trove"))
        try tx.commit()
        #expect(try names(open(dir.file("copy.trove"))) == ["committed"])
        #expect(try names(store) == ["committed", "open"])
    }

    @Test func aCopyTakesItsOwnEncryptionKey() throws {
        let dir = StoreTempDir(); defer { dir.cleanup() }
        let key = [UInt8](repeating: 9, count: 64)
        let store = try mostlyDeleted(dir.file("a.trove"), key: key)
        try store.writeCopy(toFile: dir.file("plain.trove"))
        try store.writeCopy(toFile: dir.file("sealed.trove"), encryptionKey: key)
        #expect(try names(open(dir.file("plain.trove"))).count == 501)
        #expect(throws: StoreError.self) { try open(dir.file("sealed.trove")) }
        #expect(try names(open(dir.file("sealed.trove"), key: key)).count == 501)
    }

    @Test func aDamagedCopyFailsToOpenInsteadOfOpeningEmpty() throws {
        let dir = StoreTempDir(); defer { dir.cleanup() }
        let store = try mostlyDeleted(dir.file("a.trove"))
        try store.writeCopy(toFile: dir.file("copy.trove"))
        let version = try open(dir.file("copy.trove")).latestVersion
        try FileManager.default.removeItem(atPath: dir.file("copy.trove-lock"))
        let page = try damageLeaf(of: dir.file("copy.trove"), writtenBy: version)
        // The copy's one commit has nothing before it to fall back to but an empty store.
        let error = try #require(throws: StoreError.self) { try open(dir.file("copy.trove")) }
        #expect(error.description.contains("page \(page)"), "\(error)")
    }

    @Test func anOpenThatDiscardsADamagedNewestCommitSaysSo() throws {
        let dir = StoreTempDir(); defer { dir.cleanup() }
        let path = dir.file("a.trove")
        var store: Store? = try open(path)
        try store!.write { tx in for i in 0..<300 { try tx.insert("Item", ["id": .int(Int64(i)), "name": .string("item \(i)")]) } }
        try store!.write { tx in try tx.insert("Item", ["id": 1_000, "name": "last"]) }
        let newest = store!.latestVersion
        #expect(store!.discardedCommit == nil)
        store = nil
        // A lock file written in this boot would vouch for the commit: without it, the open
        // checks the newest commit's pages, as after a reboot.
        try FileManager.default.removeItem(atPath: path + "-lock")
        let page = try damageLeaf(of: path, writtenBy: newest)
        let reopened = try open(path)
        let discarded = try #require(reopened.discardedCommit)
        #expect(discarded.version == newest)
        #expect(discarded.openedVersion == newest - 1)
        #expect(reopened.latestVersion == newest - 1)
        #expect(discarded.reason.contains("page \(page)") && discarded.reason.contains("checksum"), "\(discarded.reason)")
        #expect(try reopened.read { try $0.objects("Item").count } == 300)
        #expect(try reopened.verify().isEmpty)
    }

    @Test func changeEncryptionKeyEncryptsRekeysAndDecryptsAClosedStore() throws {
        let dir = StoreTempDir(); defer { dir.cleanup() }
        let path = dir.file("k.trove")
        let first = [UInt8](repeating: 1, count: 64), second = [UInt8](repeating: 2, count: 64)
        let expected: [String]
        do {
            let store = try mostlyDeleted(path)
            expected = try names(store)
            #expect(throws: StoreError.storage(.inUse(path: path))) {
                try Store.changeEncryptionKey(ofStoreAt: path, from: nil, to: first)
            }
        }
        try Store.changeEncryptionKey(ofStoreAt: path, from: nil, to: first)
        #expect(throws: StoreError.storage(.keyNeeded(path: path))) { try open(path) }
        #expect(throws: StoreError.storage(.wrongEncryptionKey(path: path))) {
            try Store.changeEncryptionKey(ofStoreAt: path, from: second, to: nil)
        }
        try Store.changeEncryptionKey(ofStoreAt: path, from: first, to: second)
        #expect(throws: StoreError.storage(.wrongEncryptionKey(path: path))) { try open(path, key: first) }
        do {
            let store = try open(path, key: second)
            #expect(try names(store) == expected)
            #expect(try store.verify().isEmpty)
        }
        try Store.changeEncryptionKey(ofStoreAt: path, from: second, to: nil)
        #expect(try names(try open(path)) == expected)
    }
}
