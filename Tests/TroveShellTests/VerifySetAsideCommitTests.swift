import Foundation
import Testing
import Trove
@testable import TroveShell

/// How long `.verify` names a commit the open set aside, against a real store.
@Suite struct VerifySetAsideCommitTests {
    static let schema = #"{ "schemaVersion": 1, "models": [ { "name": "Item", "primaryKey": "id", "properties": { "id": "int" } } ] }"#

    func open(_ path: String, _ durability: TroveDurability = .durable) throws -> Store {
        var configuration = StoreConfiguration(path: path, schema: try Schema(jsonData: Array(Self.schema.utf8)))
        configuration.durability = durability
        return try Store(configuration: configuration)
    }

    /// Flips a byte of a leaf page version `version` wrote; returns that page.
    func damageLeaf(of path: String, writtenBy version: UInt64) throws -> Int? {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        let bytes = [UInt8](try handle.readToEnd() ?? Data())
        for page in 2..<(bytes.count / 4096) {
            let base = page * 4096
            let txnid = bytes[(base + 8)..<(base + 16)].withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            guard txnid == version, bytes[base + 16] == 2 else { continue }
            let upper = Int(bytes[(base + 20)..<(base + 24)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
            try handle.seek(toOffset: UInt64(base + upper))
            try handle.write(contentsOf: [bytes[base + upper] ^ 0xFF])
            return page
        }
        return nil
    }

    /// No-sync commits leave the slot of the last durable commit alone, so the open falls back
    /// several versions; the first write after it takes a version below the one set aside,
    /// and rewrites that slot: from then on nothing is set aside.
    @Test func aWriteAfterAGapOfNoSyncCommitsEndsTheProblemOfTheCommitSetAside() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("trove-verify-\(UInt64.random(in: 0 ... .max))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/db.trove"
        let durable: UInt64, newest: UInt64
        do {
            let store = try open(path)
            try store.write { tx in try tx.insert("Item", ["id": 0]) }
            durable = store.latestVersion
        }
        do {
            let store = try open(path, .noSync)
            for i in 1...3 { try store.write { tx in try tx.insert("Item", ["id": .int(Int64(i))]) } }
            newest = store.latestVersion
        }
        // Without the lock file's record, the open checks the newest commit's pages.
        try FileManager.default.removeItem(atPath: path + "-lock")
        let page = try #require(try damageLeaf(of: path, writtenBy: newest))
        let backend = TroveBackend(store: try open(path))
        let discarded = try #require(backend.store.discardedCommit)
        #expect(discarded.version == newest && discarded.openedVersion == durable && newest > durable + 1)
        #expect(try backend.verify().problems.first?.contains("page \(page)") == true)
        try backend.store.write { tx in try tx.insert("Item", ["id": 9]) }
        #expect(backend.store.latestVersion < newest)
        let findings = try backend.verify()
        #expect(findings.problems.isEmpty && findings.warnings.isEmpty, "\(findings)")
    }
}
