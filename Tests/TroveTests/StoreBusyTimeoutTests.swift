import Foundation
import TestWaits
import Testing
import Trove

/// A store's busy timeout: a write that meets another store's write transaction on the same
/// file gives up after it with a typed error naming the holder. The write runs on a thread of
/// its own, waited for within the ``WaitBudget``: one that never gives up fails the test
/// rather than hangs it.
@Suite struct StoreBusyTimeoutTests {
    @Test func aWriteGivesUpAfterTheConfiguredTimeoutWithATypedError() throws {
        let dir = StoreTempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        let schema = try schemaFromJSON(#"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": {"type": "int"}}}]}"#)
        let first = try Store(configuration: StoreConfiguration(path: path, schema: schema))
        let held = try first.beginWrite()
        var configuration = StoreConfiguration(path: path, schema: schema)
        configuration.busyTimeout = .milliseconds(30)
        let second = try Store(configuration: configuration)
        #expect(second.busyTimeout == .milliseconds(30))
        let write = WaitBudget.Thread { _ = try second.write { try $0.insert("Item", ["id": 1]) } }
        let outcome = try #require(write.result("the write that meets the held transaction"))
        let error = try #require(throws: StoreError.self) { try outcome.get() }
        guard case .storage(.writerBusy(let busyPath, let holder, let waited)) = error else { Issue.record("\(error)"); return }
        #expect(busyPath == path)
        #expect(holder == getpid())
        #expect(waited >= .milliseconds(30))
        #expect(error.description.contains("is being written by process \(getpid())"))
        try held.commit()
        second.busyTimeout = nil
        try second.write { try $0.insert("Item", ["id": 1]) }
        #expect(try second.read { try $0.count("Item") } == 1)
    }
}
