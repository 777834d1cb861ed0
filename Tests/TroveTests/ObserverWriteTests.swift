import Foundation
import Testing
@testable import Trove

/// A commit observer runs once the transaction has ended: the store has no write open on the
/// committing thread, a write the observer makes is a transaction of its own (also a
/// repository's save), and every observer sees the commits in order.
@Suite struct ObserverWriteTests {
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        private var written = false
        func add(_ item: String) { lock.withLock { items.append(item) } }
        var all: [String] { lock.withLock { items } }
        /// True the first time only.
        func claimWrite() -> Bool { lock.withLock { defer { written = true }; return !written } }
    }

    /// A repository the observers' closures may hold: they run on the committing thread.
    final class Audit: @unchecked Sendable {
        let repository: TroveRepository
        init(_ repository: TroveRepository) { self.repository = repository }
    }

    /// Commits `id` through `store`, in a `write` closure or a transaction from `beginWrite()`.
    static func insert(_ id: Int64, into store: Store, explicit: Bool) throws {
        if explicit {
            let tx = try store.beginWrite()
            try tx.insert("Item", ["id": .int(id), "rank": .int(id), "label": "x"])
            try tx.commit()
        } else {
            try store.write { tx in try tx.insert("Item", ["id": .int(id), "rank": .int(id), "label": "x"]) }
        }
    }

    @Test(arguments: [false, true])
    func anObserversWriteIsATransactionOfItsOwn(explicit: Bool) throws {
        let store = try itemsStore()
        let log = Log()
        let observation = store.observeCommits { [store] commit in
            log.add("\(commit.version - 1): writing \(store.isWritingOnCurrentThread), inserted \(commit.changes?["Item"]?.inserted.count ?? -1)")
            guard log.claimWrite() else { return }
            do {
                try Self.insert(2, into: store, explicit: explicit)
            } catch {
                log.add("\(error)")
            }
        }
        defer { observation.cancel() }
        let start = store.latestVersion
        try Self.insert(1, into: store, explicit: explicit)
        // Each commit reported once, with its changes, after its transaction ended.
        #expect(log.all == ["\(start): writing false, inserted 1", "\(start + 1): writing false, inserted 1"])
        #expect(try store.read { try $0.objects("Item").count } == 2)
        #expect(!store.isWritingOnCurrentThread)
    }

    /// Whichever observer runs first writes: the other still sees the first commit first.
    @Test func everyObserverSeesTheCommitsInOrder() throws {
        let store = try itemsStore()
        let shared = Log()
        let logs = [Log(), Log(), Log()]
        let observations = logs.map { log in
            store.observeCommits { [store] commit in
                log.add("\(commit.version)")
                if shared.claimWrite() { try? Self.insert(2, into: store, explicit: false) }
            }
        }
        defer { observations.forEach { $0.cancel() } }
        let start = store.latestVersion
        try Self.insert(1, into: store, explicit: false)
        for log in logs { #expect(log.all == ["\(start + 1)", "\(start + 2)"]) }
    }

    /// Another repository on the store saves from the observer of the first one's commit.
    @Test func aRepositorySaveFromAnObserverIsDurable() throws {
        let repo = try RepositoryRollbackTests.tallies()
        let audit = Audit(TroveRepository(store: repo.store))
        let log = Log()
        let observation = repo.store.observeCommits { _ in
            guard log.claimWrite() else { return }
            do {
                try audit.repository.beginWrite()
                let added = try audit.repository.addEntity(Tally.self)
                added.id = 2
                try audit.repository.endWrite()
            } catch {
                log.add("\(error)")
            }
        }
        defer { observation.cancel() }
        try repo.beginWrite()
        let first = try repo.addEntity(Tally.self)
        first.id = 1
        try repo.endWrite()
        #expect(log.all.isEmpty)
        #expect(try RepositoryRollbackTests.rows(repo) == ["1:0", "2:0"])
        // Saved, not pending: the entity's next change is an update.
        try repo.beginWrite()
        first.n = 4
        try repo.endWrite()
        #expect(try RepositoryRollbackTests.rows(repo) == ["1:4", "2:0"])
    }
}
