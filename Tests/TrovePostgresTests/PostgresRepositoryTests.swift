import Foundation
import RepositoryContract
import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresRepositoryTests {
    static func repository(_ schema: Schema) throws -> PostgresRepository {
        PostgresRepository(store: try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema))
    }

    @Test(arguments: RepositoryContract.allCases)
    func keepsTheRepositoryContract(clause: RepositoryContract) throws {
        try clause.check(try Self.repository(try RepositoryContract.userSchema()))
    }

    @Test(arguments: QueryLanguageContract.allCases)
    func keepsTheQueryLanguageContract(clause: QueryLanguageContract) throws {
        try clause.check(try Self.repository(try RepositoryContract.userSchema()))
    }

    /// In a transaction that rolls back, and in a unit that throws inside one that commits.
    @Test(arguments: RollbackContract.allCases, [false, true])
    func keepsTheRollbackContract(clause: RollbackContract, inUnit: Bool) throws {
        let url = try PostgresTestServer.freshURL()
        let schema = try RepositoryContract.userSchema()
        let repo = PostgresRepository(store: try PostgresStore(url: url, schema: schema))
        struct Abandoned: Error {}
        try clause.check(repo, rollingBack: { body in
            try repo.store.begin()
            guard inUnit else {
                defer { try? repo.store.rollback() }
                return try body()
            }
            #expect(throws: Abandoned.self) {
                try repo.store.atomically {
                    try body()
                    throw Abandoned()
                }
            }
            try repo.store.commit()
        }, reopened: { PostgresRepository(store: try PostgresStore(url: url, schema: schema)) })
    }

    /// In a transaction that commits, and in a unit inside one.
    @Test(arguments: TransactionReadContract.allCases, [false, true])
    func keepsTheTransactionReadContract(clause: TransactionReadContract, inUnit: Bool) throws {
        let url = try PostgresTestServer.freshURL()
        let schema = try RepositoryContract.userSchema()
        let repo = PostgresRepository(store: try PostgresStore(url: url, schema: schema))
        try clause.check(repo, committing: { body in
            try repo.store.begin()
            do {
                if inUnit { try repo.store.atomically { try body() } } else { try body() }
            } catch {
                try? repo.store.rollback()
                throw error
            }
            try repo.store.commit()
        }, reopened: { PostgresRepository(store: try PostgresStore(url: url, schema: schema)) })
    }

    @Test func queryLanguagePredicatesRunOnTheServer() throws {
        let repo = try Self.repository(try RepositoryContract.userSchema())
        try RepositoryContract.addUsers(repo, ["Ann", "Bob", "Cid"])
        #expect(try repo.fetch(User.self, where: "isVerified == true AND name != $0", "Ann").map(\.name) == ["Cid"])
        let cid = try #require(try repo.fetch(User.self, where: "name == 'Cid'").first)
        try repo.beginWrite()
        cid.age = 40
        try repo.endWrite()
        #expect(try repo.fetch(User.self, where: "age == 40").map(\.uid) == ["u2"])
        try repo.beginWrite()
        cid.roles = ["admin", "ops"]
        try repo.endWrite()
        #expect(try repo.fetch(User.self, where: "uid == 'u2'").first?.roles == ["admin", "ops"])
        #expect(try repo.fetch(User.self, predicate: nil).count == 3)
    }

    /// A save sends the primary key it last saved as no change: the changed entity's row is
    /// read as often as by an update not giving the key, not again to check a key that
    /// cannot differ.
    @Test func aSaveKeepingTheKeyReadsTheRowNoMoreThanAnUpdateWithoutIt() throws {
        let repo = try Self.repository(try Schema(jsonData: Array(#"""
            {"models": [{"name": "Tally", "primaryKey": "id", "properties": {"id": "int", "n": "int"}}]}
            """#.utf8), fileName: "tally"))
        try repo.beginWrite()
        let tally = try repo.addEntity(Tally.self)
        tally.id = 7
        try repo.endWrite()
        // A transaction's own counts of scans are exact and at once.
        func scans() throws -> Int {
            let row = try repo.store.connection.execute(
                "SELECT (seq_scan + coalesce(idx_scan, 0))::text FROM pg_stat_xact_user_tables WHERE schemaname = current_schema() AND relname = 'Tally'").rows.first
            return Int((row?.first ?? nil) ?? "0") ?? 0
        }
        try repo.store.begin()
        let before = try scans()
        try repo.beginWrite()
        tally.n = 1
        try repo.endWrite()
        let saved = try scans()
        try repo.store.update("Tally", where: "n == 1", set: ["n": 2])
        let updated = try scans()
        try repo.store.rollback()
        #expect(saved - before == updated - saved)
    }

    @Test func aFailedSaveWritesNothingAndKeepsTheChangesPending() throws {
        let repo = try Self.repository(try RepositoryContract.userSchema())
        try RepositoryContract.addUsers(repo, ["Ann"])
        try repo.beginWrite()
        let ann = try #require(try repo.fetch(User.self, predicate: nil).first)
        ann.name = "Anne"
        let dup = try repo.addEntity(User.self)
        dup.uid = "u0"
        #expect(throws: StoreError.duplicatePrimaryKey(model: "User", value: "\"u0\"")) { try repo.endWrite() }
        #expect(try repo.fetch(User.self, predicate: nil).map(\.name) == ["Ann"])
        try repo.beginWrite()
        dup.uid = "u9"
        try repo.endWrite()
        #expect(try repo.fetch(User.self, predicate: nil).map(\.uid) == ["u0", "u9"])
        #expect(try repo.fetch(User.self, where: "uid == 'u0'").first?.name == "Anne")
    }

    /// Owners and their pets, with links, lists of links and linkingObjects, as nested values.
    final class Owner: EntityType {
        var id = 0
        var name = ""
        var best: Pet?
        var pets: [Pet] = []
        init() {}
    }

    struct Pet: Codable, Equatable {
        var id: Int
        var name: String
        var keepers: [Keeper]?
    }

    struct Keeper: Codable, Equatable {
        var id: Int
        var name: String
    }

    static let petSchema = """
        {"models": [
          {"name": "Owner", "primaryKey": "id", "properties": {"id": "int", "name": "string", "best": "Pet?", "pets": "Pet[]"}},
          {"name": "Pet", "primaryKey": "id", "properties": {"id": "int", "name": "string",
            "keepers": {"type": "linkingObjects", "objectType": "Owner", "property": "pets"}}}
        ]}
        """

    /// Saves Ann (pets Rex and Tom, and `annsBest`) and Bob (Tom).
    static func addOwners(_ repo: PostgresRepository, annsBest: Pet? = nil) throws {
        try repo.beginWrite()
        let ann = try repo.addEntity(Owner.self)
        ann.id = 1
        ann.name = "Ann"
        ann.best = annsBest
        ann.pets = [Pet(id: 10, name: "Rex"), Pet(id: 11, name: "Tom")]
        let bob = try repo.addEntity(Owner.self)
        bob.id = 2
        bob.name = "Bob"
        bob.pets = [Pet(id: 11, name: "Tom")]
        try repo.endWrite()
    }

    /// Canonically equivalent keys (`é` as U+00E9, or `e` + U+0301) name two objects, each
    /// fetched with its own values.
    @Test func canonicallyEquivalentKeysAreTwoEntities() throws {
        let repo = try Self.repository(try RepositoryContract.userSchema())
        let date = Value.date(Date(timeIntervalSince1970: 0))
        try repo.store.insert("User", ["uid": .string("\u{E9}"), "name": "NFC", "signedUpAt": date])
        try repo.store.insert("User", ["uid": .string("e\u{301}"), "name": "NFD", "signedUpAt": date])
        let users = try repo.fetch(User.self, predicate: nil)
        #expect(users.map { Array($0.uid.utf8) } == [Array("\u{E9}".utf8), Array("e\u{301}".utf8)])
        #expect(users.map(\.name) == ["NFC", "NFD"])
    }

    @Test func linksDecodeAsNestedValuesAndSaveAsUpserts() throws {
        let repo = try Self.repository(try Schema(jsonData: Array(Self.petSchema.utf8), fileName: "pets"))
        try Self.addOwners(repo, annsBest: Pet(id: 10, name: "Rex"))
        let owners = try repo.fetch(Owner.self, predicate: nil)
        #expect(owners.map(\.name) == ["Ann", "Bob"])
        #expect(owners[0].best?.name == "Rex")
        #expect(owners[0].pets.map(\.name) == ["Rex", "Tom"])
        #expect(owners[0].pets[1].keepers?.map(\.name) == ["Ann", "Bob"])
        #expect(owners[1].best == nil)
        #expect(try repo.fetch(Owner.self, where: "ANY pets.name == 'Rex'").map(\.id) == [1])
        // A changed nested value is written to the object the link reaches.
        try repo.beginWrite()
        owners[1].pets[0].name = "Thomas"
        try repo.endWrite()
        #expect(try repo.fetch(Owner.self, predicate: nil)[0].pets.map(\.name) == ["Rex", "Thomas"])
    }

    /// A save writes what changed since the fetch, alone: neither another client's change to
    /// another property nor a linked object changed through another entity is written back
    /// as it was.
    @Test func aSaveWritesOnlyTheChangedProperties() throws {
        let url = try PostgresTestServer.freshURL(), schema = try Schema(jsonData: Array(Self.petSchema.utf8), fileName: "pets")
        let repo = PostgresRepository(store: try PostgresStore(url: url, schema: schema))
        try Self.addOwners(repo)
        let owners = try repo.fetch(Owner.self, predicate: nil)
        try repo.beginWrite()
        owners[1].pets[0].name = "Thomas"
        try repo.endWrite()
        // Another client renames Ann; this one, still holding her fetched name, sets her best pet.
        #expect(try PostgresStore(url: url, schema: schema).update("Owner", where: "id == 1", set: ["name": "Anne"]) == 1)
        try repo.beginWrite()
        owners[0].best = Pet(id: 10, name: "Rex")
        try repo.endWrite()
        let saved = try repo.fetch(Owner.self, where: "id == 1")
        #expect(saved.map(\.name) == ["Anne"])
        #expect(saved.first?.best?.name == "Rex")
        #expect(saved.first?.pets.map(\.name) == ["Rex", "Thomas"])
    }

    /// What a save wrote in an outer transaction that rolled back is sent again by the next.
    @Test func aSaveInARolledBackTransactionIsSentAgain() throws {
        let repo = try Self.repository(try RepositoryContract.userSchema())
        try RepositoryContract.addUsers(repo, ["Ann"])
        let ann = try #require(try repo.fetch(User.self, predicate: nil).first)
        try repo.store.begin()
        try repo.beginWrite()
        ann.name = "Anne"
        try repo.endWrite()
        try repo.store.rollback()
        #expect(try repo.fetch(User.self, predicate: nil).map(\.name) == ["Ann"])
        try repo.beginWrite()
        ann.age = 5
        try repo.endWrite()
        let saved = try repo.fetch(User.self, predicate: nil)
        #expect(saved.map(\.name) == ["Anne"])
        #expect(saved.map(\.age) == [5])
    }

    /// A save in a transaction that commits is recorded as saved: the next save sends only
    /// what changed since, so another client's change to another property stays.
    @Test func aSaveInACommittedTransactionKeepsAnotherClientsLaterChange() throws {
        let url = try PostgresTestServer.freshURL()
        let repo = PostgresRepository(store: try PostgresStore(url: url, schema: try RepositoryContract.userSchema()))
        try RepositoryContract.addUsers(repo, ["Ann"])
        let ann = try #require(try repo.fetch(User.self, predicate: nil).first)
        try repo.store.begin()
        try repo.beginWrite()
        ann.age = 1
        try repo.endWrite()
        try repo.store.commit()
        #expect(try PostgresStore(url: url).update("User", where: "name == 'Ann'", set: ["name": "Anne"]) == 1)
        try repo.beginWrite()
        ann.age = 2
        try repo.endWrite()
        let saved = try repo.fetch(User.self, predicate: nil)
        #expect(saved.map(\.name) == ["Anne"])
        #expect(saved.map(\.age) == [2])
    }

    /// A repository of tallies, in a schema of its own at `url` (a fresh one when nil).
    /// Tally 1, saved through `repo` in a write of its own.
    static func savedTally(in repo: PostgresRepository) throws -> Tally {
        try repo.beginWrite()
        let tally = try repo.addEntity(Tally.self)
        tally.id = 1
        try repo.endWrite()
        return tally
    }

    static func tallies(url: String? = nil) throws -> PostgresRepository {
        let schema = try Schema(jsonData: Array(#"""
            {"models": [{"name": "Tally", "primaryKey": "id", "properties": {"id": "int", "n": "int"}}]}
            """#.utf8), fileName: "tally")
        return PostgresRepository(store: try PostgresStore(url: try url ?? PostgresTestServer.freshURL(), schema: schema))
    }

    static func rows(_ repo: PostgresRepository) throws -> [String] {
        try repo.store.connection.execute(#"SELECT id || ':' || n FROM "Tally" ORDER BY id"#).rows.map { $0[0] ?? "" }
    }

    /// After a rollback the repository knows what the database holds: an entity whose insert
    /// was rolled back is new again (the next save inserts it), and one whose delete was
    /// rolled back is followed again (the next save writes its changes, and it can be removed).
    @Test func aRolledBackInsertOrDeleteLeavesTheEntitiesAsTheDatabaseHoldsThem() throws {
        let repo = try Self.tallies()
        let kept = try Self.savedTally(in: repo)
        try repo.store.begin()
        try repo.beginWrite()
        let added = try repo.addEntity(Tally.self)
        added.id = 2
        try repo.removeEntity(kept)
        try repo.endWrite()
        try repo.beginWrite()
        added.n = 5
        try repo.endWrite()
        #expect(try Self.rows(repo) == ["2:5"])
        try repo.store.rollback()
        #expect(try Self.rows(repo) == ["1:0"])
        try repo.beginWrite()
        kept.n = 3
        try repo.endWrite()
        #expect(try Self.rows(repo) == ["1:3", "2:5"])
        try repo.beginWrite()
        try repo.removeEntity(kept)
        try repo.endWrite()
        #expect(try Self.rows(repo) == ["2:5"])
        // Committed, the saves stand: nothing is inserted twice.
        try repo.store.begin()
        try repo.beginWrite()
        let third = try repo.addEntity(Tally.self)
        third.id = 3
        try repo.endWrite()
        try repo.store.commit()
        try repo.beginWrite()
        third.n = 1
        try repo.endWrite()
        #expect(try Self.rows(repo) == ["2:5", "3:1"])
    }

    /// Only the entity a rolled-back save inserted is new again: another one fetched for its
    /// row in the transaction is no longer followed, so the next save inserts the row once.
    @Test func anEntityFetchedForARolledBackInsertIsNotInsertedAgain() throws {
        let repo = try Self.tallies()
        try repo.store.begin()
        try repo.beginWrite()
        let added = try repo.addEntity(Tally.self)
        added.id = 2
        try repo.endWrite()
        let fetched = try #require(try repo.fetch(Tally.self, predicate: nil).first { $0.id == 2 })
        #expect(fetched !== added)
        try repo.store.rollback()
        try repo.beginWrite()
        try repo.endWrite()
        #expect(try Self.rows(repo) == ["2:0"])
        try repo.beginWrite()
        fetched.n = 8
        added.n = 3
        try repo.endWrite()
        #expect(try Self.rows(repo) == ["2:3"])
    }

    /// A commit that fails (a conflict PostgreSQL finds only then) rolls the transaction back,
    /// and the saves in it are taken back as by a rollback: the entity inserted is new again.
    @Test func aSaveInATransactionWhoseCommitFailsIsTakenBack() throws {
        let url = try PostgresTestServer.freshURL()
        let repo = try Self.tallies(url: url)
        let other = try PostgresStore(url: url)
        _ = try Self.savedTally(in: repo)
        try repo.store.begin()
        try other.begin()
        // Write skew: each reads what the other writes.
        _ = try repo.store.run("sum Tally.n")
        _ = try other.run("sum Tally.n")
        try repo.beginWrite()
        let added = try repo.addEntity(Tally.self)
        added.id = 2
        try repo.endWrite()
        try other.update("Tally", where: "id == 1", set: ["n": 9])
        try other.commit()
        #expect(throws: PostgresError.self) { try repo.store.commit() }
        #expect(try Self.rows(repo) == ["1:9"])
        try repo.beginWrite()
        added.n = 2
        try repo.endWrite()
        #expect(try Self.rows(repo) == ["1:9", "2:2"])
    }

    /// A save in a unit of work that fails (`atomically` under a savepoint) is taken back with
    /// the unit, and only it: a save before the unit stands when the transaction commits.
    @Test func aSaveInAFailedUnitIsTakenBackWithIt() throws {
        let repo = try Self.tallies()
        try repo.store.begin()
        let first = try Self.savedTally(in: repo)
        struct Abandoned: Error {}
        var second: Tally?
        #expect(throws: Abandoned.self) {
            try repo.store.atomically {
                try repo.beginWrite()
                second = try repo.addEntity(Tally.self)
                second?.id = 2
                try repo.removeEntity(first)
                try repo.endWrite()
                throw Abandoned()
            }
        }
        try repo.store.commit()
        #expect(try Self.rows(repo) == ["1:0"])
        try repo.beginWrite()
        first.n = 4
        second?.n = 6
        try repo.endWrite()
        #expect(try Self.rows(repo) == ["1:4", "2:6"])
        #expect(try repo.fetch(Tally.self, predicate: nil).map(\.n) == [4, 6])
    }

    /// A unit inside another has a savepoint of its own: when it throws, only its writes are
    /// undone (the outer unit catches the error and goes on, and its own writes commit), and
    /// the entities it saved are again what the database holds. Both in a transaction the
    /// caller opened and in one the outer unit opens.
    @Test(arguments: [true, false])
    func aFailedUnitInsideAnotherUndoesOnlyItsOwnWrites(inOpenTransaction: Bool) throws {
        let repo = try Self.tallies()
        let kept = try Self.savedTally(in: repo)
        struct Abandoned: Error {}
        if inOpenTransaction { try repo.store.begin() }
        var inner: Tally?
        try repo.store.atomically {
            try repo.beginWrite()
            let outer = try repo.addEntity(Tally.self)
            outer.id = 2
            kept.n = 1
            try repo.endWrite()
            #expect(throws: Abandoned.self) {
                try repo.store.atomically {
                    try repo.beginWrite()
                    inner = try repo.addEntity(Tally.self)
                    inner?.id = 3
                    kept.n = 7
                    try repo.endWrite()
                    #expect(try Self.rows(repo) == ["1:7", "2:0", "3:0"])
                    throw Abandoned()
                }
            }
            #expect(try Self.rows(repo) == ["1:1", "2:0"])
            try repo.store.insert("Tally", ["id": 4, "n": 4])
        }
        if inOpenTransaction { try repo.store.commit() }
        #expect(try Self.rows(repo) == ["1:1", "2:0", "4:4"])
        // The inner unit's entity is new again, and its change to `kept` pending again.
        try repo.beginWrite()
        try repo.endWrite()
        #expect(try Self.rows(repo) == ["1:7", "2:0", "3:0", "4:4"])
    }

    /// An outer unit that throws after catching an inner unit's failure undoes its own writes
    /// too: its rollback returns to its own savepoint, not to the inner one's. After the commit
    /// none of its rows exist, and the next save inserts each of them once.
    @Test func aUnitThatThrowsAfterCatchingAnInnerFailureUndoesItsOwnWrites() throws {
        let repo = try Self.tallies()
        let kept = try Self.savedTally(in: repo)
        struct Abandoned: Error {}
        // The repository follows only the entities its client holds.
        var held: [Tally] = []
        try repo.store.begin()
        do {
            try repo.store.atomically {
                try repo.beginWrite()
                let outer = try repo.addEntity(Tally.self)
                outer.id = 2
                kept.n = 1
                try repo.endWrite()
                held.append(outer)
                #expect(throws: Abandoned.self) {
                    try repo.store.atomically {
                        try repo.beginWrite()
                        let inner = try repo.addEntity(Tally.self)
                        inner.id = 3
                        try repo.endWrite()
                        held.append(inner)
                        throw Abandoned()
                    }
                }
                throw Abandoned()
            }
            Issue.record("the outer unit returned")
        } catch is Abandoned {}
        try repo.store.commit()
        #expect(try Self.rows(repo) == ["1:0"])
        try repo.beginWrite()
        try repo.endWrite()
        #expect(try Self.rows(repo) == ["1:1", "2:0", "3:0"])
        #expect(held.count == 2)
    }

    /// Three units nested in a transaction the outermost opens: the middle one catches the
    /// innermost's failure and throws, the outermost catches that and goes on. Only the
    /// outermost's rows commit, and the next save inserts the others once.
    @Test func aMiddleUnitThatThrowsAfterCatchingTheInnermostsFailureUndoesItsOwnWrites() throws {
        let repo = try Self.tallies()
        struct Abandoned: Error {}
        // The repository follows only the entities its client holds.
        var held: [Tally] = []
        func save(_ id: Int) throws {
            try repo.beginWrite()
            let tally = try repo.addEntity(Tally.self)
            tally.id = id
            try repo.endWrite()
            held.append(tally)
        }
        try repo.store.atomically {
            try save(1)
            do {
                try repo.store.atomically {
                    try save(2)
                    #expect(throws: Abandoned.self) {
                        try repo.store.atomically {
                            try save(3)
                            throw Abandoned()
                        }
                    }
                    throw Abandoned()
                }
                Issue.record("the middle unit returned")
            } catch is Abandoned {}
        }
        #expect(try Self.rows(repo) == ["1:0"])
        try repo.beginWrite()
        try repo.endWrite()
        #expect(try Self.rows(repo) == ["1:0", "2:0", "3:0"])
        #expect(held.count == 3)
    }

    /// A statement the server refuses inside a unit, whose error the body catches, fails the
    /// unit: later statements are refused, the unit throws the error when the body returns,
    /// nothing of it is written, and the entities it saved are new again. The transaction
    /// around it goes on and commits what was written before the unit.
    @Test(arguments: [true, false])
    func aCaughtStatementFailureInAUnitFailsTheUnit(inOpenTransaction: Bool) throws {
        let repo = try Self.tallies()
        try repo.store.insert("Tally", ["id": 1, "n": 1])
        if inOpenTransaction {
            try repo.store.begin()
            try repo.store.insert("Tally", ["id": 5, "n": 5])
        }
        var saved: Tally?
        var thrown: (any Error)?
        do {
            try repo.store.atomically {
                try repo.beginWrite()
                saved = try repo.addEntity(Tally.self)
                saved?.id = 2
                try repo.endWrite()
                for id in [3, 1, 4] { _ = try? repo.store.insert("Tally", ["id": .int(Int64(id)), "n": 0]) }
                let refused = try #require(throws: PostgresError.self) { try repo.store.insert("Tally", ["id": 6, "n": 0]) }
                #expect(refused.message.hasPrefix("the transaction failed (") && refused.message.hasSuffix("statements are refused until rollback"), "\(refused)")
            }
        } catch {
            thrown = error
        }
        let error = try #require(thrown as? StoreError)
        #expect(error == StoreError.duplicatePrimaryKey(model: "Tally", value: "1"), "\(error)")
        if inOpenTransaction { try repo.store.commit() }
        #expect(try Self.rows(repo) == (inOpenTransaction ? ["1:1", "5:5"] : ["1:1"]))
        try repo.beginWrite()
        try repo.endWrite()
        #expect(try Self.rows(repo) == (inOpenTransaction ? ["1:1", "2:0", "5:5"] : ["1:1", "2:0"]))
    }

    /// The server ends the session right before the commit of a transaction holding a save:
    /// the commit's outcome is unknown, and says so; the entities the save wrote are neither
    /// new again nor saved, and a change to one is refused until it is fetched again.
    @Test func aCommitThatLosesTheConnectionLeavesTheOutcomeUnknown() throws {
        let url = try PostgresTestServer.freshURL()
        let repo = try Self.tallies(url: url)
        let observer = try PostgresConnection(url: url)
        let kept = try Self.savedTally(in: repo)
        let pid = try #require(try repo.store.connection.execute("SELECT pg_backend_pid()").rows.first?.first ?? nil)
        try repo.store.begin()
        try repo.beginWrite()
        let added = try repo.addEntity(Tally.self)
        added.id = 2
        kept.n = 5
        try repo.endWrite()
        // Waits (on the server) until the session has ended.
        #expect(try observer.execute("SELECT pg_terminate_backend($1::int, 600000)::text", [pid]).rows == [["true"]])
        let error = try #require(throws: PostgresError.self) { try repo.store.commit() }
        #expect(error.isOutcomeUnknown && error.isConnectionLost && !error.isSerializationFailure, "\(error)")
        #expect(error.message.contains("whether the transaction was committed is unknown"), "\(error)")
        try Self.expectUncertain(repo, [added, kept])
        #expect(try observer.execute(#"SELECT id || ':' || n FROM "Tally" ORDER BY id"#).rows == [["1:0"]])
    }

    /// A save's own transaction whose commit loses the connection (the session ended while the
    /// commit waits, here on a lock a deferred trigger takes): the outcome is unknown, as above.
    @Test func aSavesOwnCommitThatLosesTheConnectionLeavesTheOutcomeUnknown() throws {
        let url = try PostgresTestServer.freshURL()
        let repo = try Self.tallies(url: url)
        let kept = try Self.savedTally(in: repo)
        let blocker = try PostgresConnection(url: url)
        try blocker.execute("""
            CREATE FUNCTION "waitsAtCommit"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_catalog.pg_advisory_xact_lock(7303, 1); RETURN NULL; END $$
            """)
        try blocker.execute(#"CREATE CONSTRAINT TRIGGER "waitsAtCommit" AFTER INSERT OR UPDATE ON "Tally" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "waitsAtCommit"()"#)
        try blocker.execute("SELECT pg_advisory_lock(7303, 1)")
        let blockerPID = try #require(try blocker.execute("SELECT pg_backend_pid()").rows.first?.first ?? nil)
        // Handed to the saving thread, and back once it has finished.
        let saving = Unchecked((repo: repo, kept: kept, added: Slot<Tally>()))
        let outcome = Outcome.running {
            let (repo, kept, added) = saving.value
            try repo.beginWrite()
            added.value = try repo.addEntity(Tally.self)
            added.value?.id = 2
            kept.n = 5
            try repo.endWrite()
        }
        let observer = try PostgresConnection(url: url)
        let waiting = try ServerCondition.waitFor(on: observer, "SELECT pid FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))", [blockerPID])
        #expect(try observer.execute("SELECT pg_terminate_backend($1::int, 600000)::text", [waiting]).rows == [["true"]])
        let error = try #require(outcome.wait() as? PostgresError)
        #expect(error.isOutcomeUnknown && error.isConnectionLost, "\(error)")
        try blocker.execute("SELECT pg_advisory_unlock(7303, 1)")
        try Self.expectUncertain(repo, [kept, try #require(saving.value.added.value)])
        #expect(try observer.execute(#"SELECT id || ':' || n FROM "Tally" ORDER BY id"#).rows == [["1:0"]])
    }

    /// Each of `entities`, changed, is refused by the next save as uncertain.
    static func expectUncertain(_ repo: PostgresRepository, _ entities: [Tally]) throws {
        for entity in entities {
            try repo.beginWrite()
            entity.n += 1
            #expect(throws: RepositoryError.outcomeUnknown("Tally")) { try repo.endWrite() }
            entity.n -= 1
        }
    }
}

/// A value one thread sets for another to read once it has finished.
final class Slot<Value> {
    var value: Value?
}

/// An entity with a primary key and one scalar.
final class Tally: EntityType {
    var id = 0
    var n = 0
    init() {}
}
