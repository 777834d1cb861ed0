import Foundation
import Testing
@testable import TroveStorage

/// `Storage.changeEncryptionKey`: every way between plain and encrypted, refused while the
/// store is open elsewhere, and a file that opens with exactly one key wherever it stops.
@Suite(.serialized) struct KeyChangeTests {
    static let marker = "plaintext-marker-"

    static func keyBytes(_ byte: UInt8?) -> [UInt8]? { byte.map { [UInt8](repeating: $0, count: 64) } }

    static func options(_ byte: UInt8?) -> StorageOptions {
        var o = StorageOptions()
        o.encryptionKey = keyBytes(byte)
        return o
    }

    /// A store of 3,000 entries over many pages, with the key `byte` repeats (none for nil).
    static func makeStore(_ path: String, key byte: UInt8?) throws {
        let s = try Storage(path: path, options: options(byte))
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<3000 { try tx.put(t, key(i), bytes(marker + "\(i)")) }
        }
    }

    /// Which of the keys opens the store at `path`; fails unless exactly one does, and the
    /// store it opens verifies and holds the entries `makeStore` wrote.
    static func openingKey(_ path: String, among candidates: [UInt8?]) throws -> UInt8?? {
        var opened: [UInt8?] = []
        for byte in candidates {
            guard let s = try? Storage(path: path, options: options(byte)) else { continue }
            opened.append(byte)
            let report = try s.verify()
            #expect(report.isValid, "\(report)")
            let entries = try s.read { try $0.dump("t") }
            #expect(entries.count == 3000)
            #expect(entries.last.map { $0.1 } == bytes(marker + "2999"))
        }
        #expect(opened.count == 1, "keys that open it: \(opened)")
        return opened.first
    }

    static func fileHoldsPlaintext(_ path: String) throws -> Bool {
        try Data(contentsOf: URL(fileURLWithPath: path)).range(of: Data(marker.utf8)) != nil
    }

    @Test func aStoreGoesFromPlainToEncryptedToAnotherKeyAndBack() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("k.trove")
        try Self.makeStore(path, key: nil)
        #expect(try Self.fileHoldsPlaintext(path))
        let candidates: [UInt8?] = [nil, 1, 2]

        try Storage.changeEncryptionKey(path: path, to: Self.keyBytes(1))
        #expect(try Self.openingKey(path, among: candidates) == .some(1))
        #expect(!(try Self.fileHoldsPlaintext(path)))
        #expect(throws: StorageError.keyNeeded(path: path)) { try Storage(path: path) }

        try Storage.changeEncryptionKey(path: path, options: Self.options(1), to: Self.keyBytes(2))
        #expect(try Self.openingKey(path, among: candidates) == .some(2))
        #expect(throws: StorageError.wrongEncryptionKey(path: path)) { try Storage(path: path, options: Self.options(1)) }

        // The re-keyed store takes writes, and keeps them across opens.
        do {
            let s = try Storage(path: path, options: Self.options(2))
            try s.write { tx in try tx.put(try tx.createTree(named: "more"), bytes("k"), bytes("v")) }
        }
        try Storage.changeEncryptionKey(path: path, options: Self.options(2), to: nil)
        #expect(try Self.openingKey(path, among: candidates) == .some(nil))
        let s = try Storage(path: path)
        #expect(try s.read { try $0.dump("more").map(\.1) } == [bytes("v")])
        for side in ["-rekey", "-rekey-lock", "-rekey-log"] {
            #expect(!FileManager.default.fileExists(atPath: path + side), "\(side) left behind")
        }
    }

    @Test func theWrongKeyOrAMissingStoreChangesNothing() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("k.trove")
        try Self.makeStore(path, key: 1)
        #expect(throws: StorageError.wrongEncryptionKey(path: path)) {
            try Storage.changeEncryptionKey(path: path, options: Self.options(3), to: Self.keyBytes(2))
        }
        #expect(throws: StorageError.keyNeeded(path: path)) { try Storage.changeEncryptionKey(path: path, to: Self.keyBytes(2)) }
        #expect(throws: StorageError.invalidArgument("an encryption key is 64 bytes, not 3")) {
            try Storage.changeEncryptionKey(path: path, options: Self.options(1), to: [1, 2, 3])
        }
        #expect(try Self.openingKey(path, among: [nil, 1, 2, 3]) == .some(1))
        let missing = dir.file("missing.trove")
        #expect(throws: StorageError.cannotOpen(path: missing, errno: ENOENT)) {
            try Storage.changeEncryptionKey(path: missing, to: Self.keyBytes(2))
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func aStoreOpenElsewhereIsRefusedAndUnchanged() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("k.trove")
        try Self.makeStore(path, key: 1)
        do {
            let other = try Storage(path: path, options: Self.options(1))
            #expect(throws: StorageError.inUse(path: path)) {
                try Storage.changeEncryptionKey(path: path, options: Self.options(1), to: Self.keyBytes(2))
            }
            #expect(try other.read { try $0.dump("t").count } == 3000)
            try other.write { tx in try tx.put(try tx.createTree(named: "t"), key(5000), bytes(Self.marker + "x")) }
        }
        try Storage.changeEncryptionKey(path: path, options: Self.options(1), to: Self.keyBytes(2))
        let s = try Storage(path: path, options: Self.options(2))
        #expect(try s.read { try $0.dump("t").count } == 3001)
    }

    /// A change that fails after each step (as if the process stopped, but for the cleanup an
    /// error does) leaves a store with exactly one key; the next change completes.
    @Test func failingAfterAnyStepLeavesOneKeyThatOpens() throws {
        for step in KeyChangeStep.allCases {
            let dir = TempDir()
            defer { dir.cleanup() }
            let path = dir.file("k.trove")
            try Self.makeStore(path, key: 1)
            struct Stop: Error {}
            #expect(throws: Stop.self) {
                try Storage.changeEncryptionKey(path: path, options: Self.options(1), to: Self.keyBytes(2)) { if $0 == step { throw Stop() } }
            }
            let expected: UInt8 = [.renamed, .directorySynced].contains(step) ? 2 : 1
            #expect(try Self.openingKey(path, among: [nil, 1, 2]) == .some(expected), "stopped after \(step)")
            #expect(!FileManager.default.fileExists(atPath: path + "-rekey"), "stopped after \(step)")
            try Storage.changeEncryptionKey(path: path, options: Self.options(expected), to: Self.keyBytes(3))
            #expect(try Self.openingKey(path, among: [nil, 1, 2, 3]) == .some(3))
        }
    }

    /// A process killed after each step leaves a store with exactly one key, which a later
    /// change to a third key takes from there (removing a copy the killed one left).
    @Test func aProcessKilledAfterAnyStepLeavesOneKeyThatOpens() throws {
        for step in KeyChangeStep.allCases {
            let dir = TempDir()
            defer { dir.cleanup() }
            let path = dir.file("k.trove")
            try Self.makeStore(path, key: 1)
            let child = try runProbe(["rekey", path, "1", "2", step.rawValue])
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGKILL, "\(step)")
            let expected: UInt8 = [.renamed, .directorySynced].contains(step) ? 2 : 1
            #expect(try Self.openingKey(path, among: [nil, 1, 2]) == .some(expected), "killed after \(step)")
            try Storage.changeEncryptionKey(path: path, options: Self.options(expected), to: Self.keyBytes(3))
            #expect(try Self.openingKey(path, among: [nil, 1, 2, 3]) == .some(3))
            #expect(!FileManager.default.fileExists(atPath: path + "-rekey"))
        }
    }

    /// A process that opened the store's file and then waited for the lock file while the
    /// key changed opens the new file, with the new key, not the old one it had open.
    @Test func anOpenerThatWaitedOpensTheNewFile() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("k.trove")
        try Self.makeStore(path, key: 1)
        final class Waiter: @unchecked Sendable {
            var storage: Storage?
            var error: Error?
            let done = DispatchSemaphore(value: 0)
        }
        let waiter = Waiter()
        try Storage.changeEncryptionKey(path: path, options: Self.options(1), to: Self.keyBytes(2)) { step in
            guard step == .logRestarted else { return }
            // Opens the data file (the old one) now, then waits for the lock file.
            Thread.detachNewThread {
                do { waiter.storage = try Storage(path: path, options: Self.options(2)) } catch { waiter.error = error }
                waiter.done.signal()
            }
            while !Self.hasOpen(path + "-lock", moreThan: 1) { usleep(1000) }
        }
        waiter.done.wait()
        #expect(waiter.error == nil, "\(String(describing: waiter.error))")
        let entries = try waiter.storage?.read { try $0.dump("t") }
        #expect(entries?.count == 3000)
        try waiter.storage?.write { tx in try tx.put(try tx.createTree(named: "after"), key(7000), bytes("after")) }
        waiter.storage = nil
        #expect(try Self.openingKey(path, among: [nil, 1, 2]) == .some(2))
    }

    /// Whether this process holds more than `count` descriptors of `path`.
    static func hasOpen(_ path: String, moreThan count: Int) -> Bool {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        let open = fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == path }
        return open.count > count
    }
}
