import Foundation
import Testing
@testable import Trove

/// `Store.observeCommits`: one report per commit, with changes when they are known.
@Suite struct CommitObservationTests {
    final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [StoreCommit] = []
        func add(_ c: StoreCommit) { lock.lock(); items.append(c); lock.unlock() }
        var all: [StoreCommit] { lock.lock(); defer { lock.unlock() }; return items }
    }

    @Test func aCommitThroughTheStoreIsReportedOnceWithItsChanges() throws {
        let store = try itemsStore()
        let reports = Reports()
        let observation = store.observeCommits { reports.add($0) }
        try store.write { tx in try tx.insert("Item", ["id": 1, "rank": 1, "label": "a"]) }
        #expect(reports.all.count == 1)
        #expect(reports.all.first?.version == store.latestVersion)
        #expect(reports.all.first?.changes?["Item"]?.inserted.count == 1)
        observation.cancel()
        try store.write { tx in try tx.insert("Item", ["id": 2, "rank": 2, "label": "b"]) }
        #expect(reports.all.count == 1)
    }

    /// A vacuum moves pages and changes no object: its commits through the store, the
    /// automatic vacuum's after a large delete or `vacuum()`'s, wake no observer.
    @Test(arguments: [true, false])
    func aVacuumsCommitsAreNotReported(automatically: Bool) throws {
        var configuration = StoreConfiguration.inMemory(schema: try schemaFromJSON(itemsSchemaJSON))
        configuration.compactsAutomatically = automatically
        let store = try Store(configuration: configuration)
        try store.write { tx in
            for i in 0..<20_000 { try tx.insert("Item", ["id": .int(Int64(i)), "rank": .int(Int64(i)), "label": .string(String(repeating: "x", count: 40))]) }
        }
        let reports = Reports()
        let observation = store.observeCommits { reports.add($0) }
        defer { observation.cancel() }
        try store.write { tx in _ = try tx.delete("Item", where: "id >= 2000") }
        #expect(reports.all.count == 1)
        #expect(reports.all.first?.changes?["Item"]?.deleted.count == 18_000)
        if automatically {
            #expect(store.latestVersion > reports.all[0].version, "the automatic vacuum committed after the delete")
        } else {
            // Another commit, so that the pages the delete freed are free, not pending.
            try store.write { tx in try tx.insert("Item", ["id": -1, "rank": 0, "label": "late"]) }
            let before = store.latestVersion
            let report = try store.vacuum()
            #expect(store.latestVersion > before && report.bytesAfter < report.bytesBefore, "vacuum() committed")
            #expect(reports.all.count == 2)
        }
    }

    /// The storage layer reports only the newest version, so another store's commit can be
    /// folded into one of this store's own, which the observation leaves out: then it reports
    /// that one without changes. Here the watcher thread is held in the handler while another
    /// store commits, and this store's vacuum commits before the watcher reads the file's news.
    @Test func anotherStoresCommitFoldedIntoAVacuumsIsStillReported() throws {
        let dir = StoreTempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        let schema = try schemaFromJSON(itemsSchemaJSON)
        var configuration = StoreConfiguration(path: path, schema: schema)
        configuration.compactsAutomatically = false
        configuration.durability = .noSync
        let store = try Store(configuration: configuration)
        let other = try Store(configuration: configuration)
        try store.write { tx in
            for i in 0..<20_000 { try tx.insert("Item", ["id": .int(Int64(i)), "rank": .int(Int64(i)), "label": .string(String(repeating: "x", count: 40))]) }
        }
        try store.write { tx in _ = try tx.delete("Item", where: "id >= 2000") }
        try store.write { tx in try tx.insert("Item", ["id": -1, "rank": 0, "label": "late"]) }

        let reports = Reports()
        let first = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let observation = store.observeCommits { commit in
            let isFirst = reports.all.isEmpty
            reports.add(commit)
            if isFirst { first.signal(); release.wait() }
        }
        defer { observation.cancel() }
        try other.write { tx in try tx.insert("Item", ["id": -2, "rank": 0, "label": "one"]) }
        #expect(first.wait(timeout: .now() + 30) == .success, "the watcher reported the other store's first commit")
        try other.write { tx in try tx.insert("Item", ["id": -3, "rank": 0, "label": "two"]) }
        let second = other.latestVersion
        let report = try store.vacuum()
        release.signal()
        #expect(report.bytesAfter < report.bytesBefore, "vacuum() committed")
        #expect(reports.all.contains { $0.version >= second && $0.changes == nil }, "the other store's second commit reached the observer")
    }

    /// A commit of the observing store is left out only when it follows the last version
    /// accounted for.
    @Test func theLedgerLeavesOutOnlyOwnCommitsThatFollowTheLastOne() {
        let ledger = CommitLedger(version: 10)
        #expect(!ledger.shouldReport(11, own: true))
        #expect(ledger.shouldReport(12, own: false))
        #expect(ledger.shouldReport(14, own: true), "13 came from elsewhere, folded into 14")
        ledger.noteReported(15)
        #expect(!ledger.shouldReport(16, own: true))
    }

    @Test func releasingTheObservationStopsIt() throws {
        let store = try itemsStore()
        let reports = Reports()
        weak var released: CommitObservation?
        do {
            let observation = store.observeCommits { reports.add($0) }
            released = observation
        }
        #expect(released == nil)
        try store.write { tx in try tx.insert("Item", ["id": 1, "rank": 1, "label": "a"]) }
        #expect(reports.all.isEmpty)
    }
}
