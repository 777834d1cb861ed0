import Testing
@testable import Trove

/// A `TroveRepository` save that joins a transaction the caller opened lasts only if that
/// transaction commits: rolled back, the repository's entities are again what the store holds.
@Suite struct RepositoryRollbackTests {
    static func tallies() throws -> TroveRepository {
        TroveRepository(store: try Store(configuration: .inMemory(schema: try schemaFromJSON(#"""
            {"models": [{"name": "Tally", "primaryKey": "id", "properties": {"id": "int", "n": "int"}}]}
            """#))))
    }

    static func rows(_ repo: TroveRepository) throws -> [String] {
        try repo.store.read { s in try s.objects("Tally").sorted(by: "id").map { "\(try $0.int("id")!):\(try $0.int("n")!)" } }
    }

    /// An entity whose insert was rolled back is new again (the next save inserts it), one whose
    /// delete was rolled back is followed again (the next save writes its changes, and it can be
    /// removed), and one whose update was rolled back has its change pending again.
    @Test func aRolledBackInsertUpdateOrDeleteLeavesTheEntitiesAsTheStoreHoldsThem() throws {
        let repo = try Self.tallies()
        try repo.beginWrite()
        let kept = try repo.addEntity(Tally.self)
        kept.id = 1
        let changed = try repo.addEntity(Tally.self)
        changed.id = 2
        try repo.endWrite()
        let tx = try repo.store.beginWrite()
        try repo.beginWrite()
        let added = try repo.addEntity(Tally.self)
        added.id = 3
        try repo.removeEntity(kept)
        changed.n = 7
        try repo.endWrite()
        try repo.beginWrite()
        added.n = 5
        try repo.endWrite()
        #expect(try tx.objects("Tally").count == 2)
        try tx.rollback()
        #expect(try Self.rows(repo) == ["1:0", "2:0"])
        try repo.beginWrite()
        kept.n = 3
        try repo.endWrite()
        #expect(try Self.rows(repo) == ["1:3", "2:7", "3:5"])
        try repo.beginWrite()
        try repo.removeEntity(kept)
        try repo.endWrite()
        #expect(try Self.rows(repo) == ["2:7", "3:5"])
        #expect(try repo.fetch(Tally.self, predicate: nil).map(\.id) == [2, 3])
        // Committed, the saves stand: nothing is inserted twice.
        let committed = try repo.store.beginWrite()
        try repo.beginWrite()
        let fourth = try repo.addEntity(Tally.self)
        fourth.id = 4
        try repo.endWrite()
        try committed.commit()
        try repo.beginWrite()
        fourth.n = 1
        try repo.endWrite()
        #expect(try Self.rows(repo) == ["2:7", "3:5", "4:1"])
    }

    /// A save in a `write` closure that then fails is taken back with the write; saves are
    /// taken back the latest first, so an entity inserted by the first and updated by the second
    /// is new again.
    @Test func aSaveInAFailedWriteIsTakenBackWithIt() throws {
        let repo = try Self.tallies()
        struct Abandoned: Error {}
        var first: Tally?
        #expect(throws: Abandoned.self) {
            try repo.store.write { _ in
                try repo.beginWrite()
                first = try repo.addEntity(Tally.self)
                first?.id = 1
                try repo.endWrite()
                try repo.beginWrite()
                first?.n = 2
                try repo.endWrite()
                throw Abandoned()
            }
        }
        #expect(try Self.rows(repo).isEmpty)
        try repo.beginWrite()
        first?.n = 4
        try repo.endWrite()
        #expect(try Self.rows(repo) == ["1:4"])
        #expect(try repo.fetch(Tally.self, predicate: nil).map(\.n) == [4])
    }

    /// A save made before an outer rollback's transaction began, and fetched entities, keep
    /// their saved values: only what the rolled-back save recorded is taken back.
    @Test func aRollbackTakesBackOnlyItsOwnSave() throws {
        let repo = try Self.tallies()
        try repo.beginWrite()
        let one = try repo.addEntity(Tally.self)
        one.id = 1
        try repo.endWrite()
        let fetched = try #require(try repo.fetch(Tally.self, predicate: nil).first)
        let tx = try repo.store.beginWrite()
        try repo.beginWrite()
        fetched.n = 9
        try repo.endWrite()
        try tx.rollback()
        #expect(try Self.rows(repo) == ["1:0"])
        // The update is pending again: an empty save writes it.
        try repo.beginWrite()
        try repo.endWrite()
        #expect(try Self.rows(repo) == ["1:9"])
    }

    /// Only the entity a rolled-back save inserted is new again: another one tracked for its
    /// row since (a fetch inside the transaction sees its rows, in both repositories) is no
    /// longer followed, so the next save inserts the row once.
    @Test func anEntityTrackedForARolledBackInsertIsNotInsertedAgain() throws {
        let tracker = EntityTracker<Int>()
        try tracker.beginWrite()
        let added = try tracker.addEntity(Tally.self)
        added.id = 2
        let undo = tracker.saved(try tracker.pending(), insertedIDs: [ObjectIdentifier(added): 2], durable: false)
        try tracker.endWrite()
        let fetched = Tally()
        fetched.id = 2
        tracker.track(fetched, id: 2, saved: try ValueEncoder.encode(fetched))
        tracker.undo(undo)
        fetched.n = 8
        let pending = try tracker.pending()
        #expect(pending.inserts.map(\.entry) == [ObjectIdentifier(added)])
        #expect(pending.updates.isEmpty)
        #expect(pending.deletes.isEmpty)
    }

    /// A removal, not yet saved, of a row whose insert rolled back is dropped: the row does
    /// not exist, and the next save deletes nothing.
    @Test func aPendingRemovalOfARolledBackInsertIsDropped() throws {
        let tracker = EntityTracker<Int>()
        try tracker.beginWrite()
        let added = try tracker.addEntity(Tally.self)
        added.id = 2
        let undo = tracker.saved(try tracker.pending(), insertedIDs: [ObjectIdentifier(added): 2], durable: false)
        try tracker.removeEntity(added)
        tracker.undo(undo)
        let pending = try tracker.pending()
        #expect(pending.deletes.isEmpty)
        #expect(pending.inserts.isEmpty)
    }
}

/// An entity with a primary key and one scalar.
final class Tally: EntityType {
    var id = 0
    var n = 0
    init() {}
}
