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
