import BenchSupport
import CSQLite
import Foundation
import GRDB
import Trove
import TroveModels

@Model("Team") final class TeamObject {
    @Attribute(.primaryKey) var id: String
    var name: String

    init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// A class model whose instances all link one ``TeamObject`` instance, as an app holds them.
@Model("Player") final class PlayerObject {
    @Attribute(.primaryKey) var id: Int64
    var name: String
    var age: Int64
    var score: Double
    var team: TeamObject?

    init(id: Int64, name: String, age: Int64, score: Double, team: TeamObject?) {
        self.id = id
        self.name = name
        self.age = age
        self.score = score
        self.team = team
    }
}

/// Class models written through Trove's typed API (`Player` instances all linking one `Team`
/// instance) against its dynamic API (a dictionary per player, the team by primary key),
/// SQLite's C API and GRDB's Codable records, each on a store of its own holding the team:
/// players `0..<count` in one transaction, then players `count..<2 * count` in batches of
/// ``batch``, each a background write that hands back the primary keys its API gave the batch's
/// players (the caller waits for each batch), as the reference RealmStore helper's background
/// add hands back its objects' keys; that add is a get-or-create, these are inserts.
///
/// The typed writer does more than the others, as an app using the typed API does: it upserts
/// the team again in the first write of each transaction (the record of instances written
/// starts empty in each), builds the team instance's values and compares them with those
/// written for every player (the instance may have changed), and reads the batch's keys back
/// through `PlayerObject.primaryKeys(of:as:)`.
struct PlayerWrites {
    let count: Int
    let data: ObjectDataset
    let directory: String
    let durable: Bool
    static let batch = 100

    /// One API's two writes and what its store holds after them.
    struct Writer {
        var name: String
        var all: (Range<Int>) throws -> Void
        var batch: (Range<Int>) throws -> [Int64]
        /// "players, players of the team, sum of scores".
        var stored: () throws -> String
        var close: () -> Void = {}
    }

    var teamID: String { data.teamIDs[0] }
    var teamName: String { data.teamNames[0] }
    func user(_ i: Int) -> ObjectDataset.User { data.users[i % data.users.count] }

    /// Runs `write` for each batch of `range`, one after another, on a background queue,
    /// waiting for each; returns the primary keys handed back.
    static func inBackground(_ range: Range<Int>, _ write: (Range<Int>, @escaping @Sendable (Result<[Int64], Error>) -> Void) -> Void) throws -> [Int64] {
        let done = DispatchSemaphore(value: 0)
        let handed = HandedBack()
        for start in stride(from: range.lowerBound, to: range.upperBound, by: batch) {
            write(start..<min(start + batch, range.upperBound)) { result in
                handed.add(result)
                done.signal()
            }
            done.wait()
        }
        return try handed.keys()
    }

    final class HandedBack: @unchecked Sendable {
        private let lock = NSLock()
        private var all: [Int64] = []
        private var error: Error?
        func add(_ result: Result<[Int64], Error>) {
            lock.lock(); defer { lock.unlock() }
            switch result {
            case .success(let keys): all += keys
            case .failure(let e): error = error ?? e
            }
        }
        func keys() throws -> [Int64] {
            lock.lock(); defer { lock.unlock() }
            if let error { throw error }
            return all
        }
    }

    func openTrove(_ name: String) throws -> Store {
        var configuration = StoreConfiguration(path: "\(directory)/\(name).trove", schema: try Schema(PlayerObject.self, schemaVersion: 1))
        configuration.durability = durable ? .durable : .noSync
        let store = try Store(configuration: configuration)
        try store.write { tx in try tx.insert("Team", ["id": .string(teamID), "name": .string(teamName)]) }
        return store
    }

    func troveStored(_ store: Store) throws -> String {
        try store.read { s in
            "\(try s.count("Player")), \(try s.objects("Player", where: "team.id == $0", .string(teamID)).count), "
                + String(format: "%.6e", try Self.double(s.aggregate("sum Player.score")))
        }
    }

    static func double(_ value: Value) throws -> Double {
        guard case .double(let d) = value else { throw BenchError("players: a sum of scores of \(value)") }
        return d
    }

    func dynamicWriter() throws -> Writer {
        let store = try openTrove("players-dynamic")
        let (data, teamID) = (data, teamID)
        @Sendable func values(_ i: Int) -> [String: Value] {
            let u = data.users[i % data.users.count]
            return ["id": .int(Int64(i)), "name": .string(u.name), "age": .int(u.age), "score": .double(u.score), "team": .string(teamID)]
        }
        return Writer(name: "dynamic", all: { range in
            try store.write { tx in for i in range { try tx.insert("Player", values(i)) } }
        }, batch: { range in
            try Self.inBackground(range) { batch, completion in
                store.write({ tx in
                    var added: [Int64] = []
                    for i in batch {
                        guard case .int(let key)? = try tx.insert("Player", values(i)).primaryKey else {
                            throw BenchError("dynamic: player \(i) was given no integer key")
                        }
                        added.append(key)
                    }
                    return added
                }, queue: .global(), completion: completion)
            }
        }, stored: { try troveStored(store) })
    }

    func typedWriter() throws -> Writer {
        let store = try openTrove("players-typed")
        let (data, teamID, teamName) = (data, teamID, teamName)
        @Sendable func player(_ i: Int, _ team: TeamObject) -> PlayerObject {
            let u = data.users[i % data.users.count]
            return PlayerObject(id: Int64(i), name: u.name, age: u.age, score: u.score, team: team)
        }
        return Writer(name: "typed", all: { range in
            try store.write { tx in
                let team = TeamObject(id: teamID, name: teamName)
                for i in range { try tx.insert(player(i, team)) }
            }
        }, batch: { range in
            try Self.inBackground(range) { batch, completion in
                store.write({ tx in
                    let team = TeamObject(id: teamID, name: teamName)
                    var added: [PlayerObject] = []
                    for i in batch {
                        let p = player(i, team)
                        try tx.insert(p)
                        added.append(p)
                    }
                    return try PlayerObject.primaryKeys(of: added, as: Int64.self)
                }, queue: .global(), completion: completion)
            }
        }, stored: { try troveStored(store) })
    }

    /// The tables of both SQLite peers: the counterpart of Trove's backlink index on `teamId`,
    /// foreign keys enforced.
    static let sqliteSchema = """
        CREATE TABLE team(id TEXT NOT NULL PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE player(id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL,
                            score REAL NOT NULL, teamId TEXT REFERENCES team(id));
        CREATE INDEX player_teamId ON player(teamId);
        """

    func sqliteWriter() throws -> Writer {
        let connection = try SQLitePlayers(path: "\(directory)/players.sqlite", durable: durable, teamID: teamID, teamName: teamName)
        let queue = DispatchQueue(label: "players.sqlite")
        let data = data
        return Writer(name: "SQLite", all: { range in
            _ = try connection.insert(data, range)
        }, batch: { range in
            try Self.inBackground(range) { batch, completion in
                queue.async { completion(Result { try connection.insert(data, batch, handingKeys: true) }) }
            }
        }, stored: { try connection.stored() }, close: { connection.close() })
    }

    struct PlayerRecord: Codable, PersistableRecord {
        static let databaseTableName = "player"
        var id: Int64
        var name: String
        var age: Int64
        var score: Double
        var teamId: String?
    }

    func grdbWriter() throws -> Writer {
        var configuration = Configuration()
        let durable = durable
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous=\(durable ? "FULL" : "OFF")")
        }
        let pool = try DatabasePool(path: "\(directory)/players-grdb.sqlite", configuration: configuration)
        // As in GRDBObjectEngine: the writer is set to flush every commit again after it chose WAL.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous=\(durable ? "FULL" : "OFF")") }
        let (data, teamID, teamName) = (data, teamID, teamName)
        try pool.write { db in
            try db.execute(sql: Self.sqliteSchema)
            try db.execute(sql: "INSERT INTO team(id, name) VALUES (?, ?)", arguments: [teamID, teamName])
        }
        @Sendable func insert(_ range: Range<Int>, _ db: Database) throws -> [Int64] {
            var added: [Int64] = []
            for i in range {
                let u = data.users[i % data.users.count]
                let record = PlayerRecord(id: Int64(i), name: u.name, age: u.age, score: u.score, teamId: teamID)
                try record.insert(db)
                added.append(db.lastInsertedRowID)
            }
            return added
        }
        return Writer(name: "GRDB", all: { range in
            _ = try pool.write { db in try insert(range, db) }
        }, batch: { range in
            try Self.inBackground(range) { batch, completion in
                pool.asyncWrite({ db in try insert(batch, db) }) { _, result in completion(result) }
            }
        }, stored: {
            try pool.read { db in
                let row = try Row.fetchOne(db, sql: "SELECT count(*), (SELECT count(*) FROM player WHERE teamId = ?), sum(score) FROM player", arguments: [teamID])!
                return "\(row[0] as Int), \(row[1] as Int), " + String(format: "%.6e", row[2] as Double)
            }
        })
    }

    /// Writes through every API, checks that their stores agree, and prints the table.
    func run() throws {
        let writers = [try dynamicWriter(), try typedWriter(), try sqliteWriter(), try grdbWriter()]
        defer { for w in writers { w.close() } }
        let all = 0..<count, batches = count..<(2 * count)
        // An untimed write through each API first, so that the first timed one (the dynamic
        // API's) does not pay the process's warm-up: the allocator, runtime metadata made
        // lazily, the page cache. Its players count in every store alike.
        let warmUp = (2 * count)..<(2 * count + Swift.min(count, 1_000))
        for w in writers { try w.all(warmUp) }
        var samples: [(all: Sample, batches: Sample)] = []
        for w in writers {
            let (_, one) = try Measure.run("\(w.name): insert \(count.grouped) players linking one team, 1 txn", log: log) { try w.all(all) }
            let (keys, each) = try Measure.run("\(w.name): insert \(count.grouped) players linking one team, background writes of \(Self.batch)", log: log) {
                try w.batch(batches)
            }
            guard keys == batches.map(Int64.init) else { throw BenchError("\(w.name): the batches handed back \(keys.count) keys, not players \(batches)") }
            samples.append((one, each))
        }
        let stored = try writers.map { try $0.stored() }
        for (w, s) in zip(writers, stored) where s != stored[0] {
            throw BenchError("players: \(w.name) holds \(s) (players, of the team, score sum), \(writers[0].name) \(stored[0])")
        }
        func row(_ label: String, _ sample: (Int) -> Sample) -> [String] {
            let cpu = writers.indices.map { sample($0).cpu }
            return [label] + writers.indices.map { formatTime(sample($0).wall) } + cpu.map(formatTime)
                + [0, 2, 3].map { String(format: "%.2fx", cpu[1] / cpu[$0]) }
        }
        print("Class models: Player instances all linking one Team instance (typed) against the dynamic API, SQLite's C API and GRDB, same run:")
        print("")
        print(renderTable(["workload"] + writers.map { "\($0.name) wall" } + writers.map { "\($0.name) CPU" }
                          + ["typed/dynamic CPU", "typed/SQLite CPU", "typed/GRDB CPU"], [
            row("insert \(count.grouped) players, 1 txn", { samples[$0].all }),
            row("insert \(count.grouped) players, background writes of \(Self.batch)", { samples[$0].batches }),
        ]))
        print("")
        print("checks: every API's store holds the team and \(stored[0]) (players, players of the team, sum of scores); each API's batches handed back the keys it gave their players")
    }
}

/// SQLite's C API for the players: one prepared insert, WAL, `synchronous=FULL` when durable,
/// foreign keys on. Used by one thread at a time.
final class SQLitePlayers: @unchecked Sendable {
    private var db: OpaquePointer?
    private var insertPlayer: OpaquePointer?
    private let teamID: String

    init(path: String, durable: Bool, teamID: String, teamName: String) throws {
        self.teamID = teamID
        try SQLiteCalls.check(db, sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil), "open")
        for sql in ["PRAGMA journal_mode=WAL", "PRAGMA synchronous=\(durable ? "FULL" : "OFF")", "PRAGMA foreign_keys=ON", PlayerWrites.sqliteSchema] {
            try SQLiteCalls.execute(db, sql)
        }
        try SQLiteCalls.execute(db, "INSERT INTO team(id, name) VALUES ('\(teamID)', '\(teamName)')")
        try SQLiteCalls.check(db, sqlite3_prepare_v3(db, "INSERT INTO player(id, name, age, score, teamId) VALUES (?1, ?2, ?3, ?4, ?5)", -1,
                                                     UInt32(SQLITE_PREPARE_PERSISTENT), &insertPlayer, nil), "prepare")
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func bind(_ i: Int32, _ text: String) throws {
        var t = text
        try t.withUTF8 { try SQLiteCalls.check(db, sqlite3_bind_text(insertPlayer, i, $0.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                                                                     Int32($0.count), Self.transient), "bind") }
    }

    /// Inserts players `range` in one transaction; with `handingKeys`, returns the rowid SQLite
    /// gave each.
    @discardableResult
    func insert(_ data: ObjectDataset, _ range: Range<Int>, handingKeys: Bool = false) throws -> [Int64] {
        var keys: [Int64] = []
        try SQLiteCalls.transaction(db, "BEGIN IMMEDIATE") {
            for i in range {
                let u = data.users[i % data.users.count]
                sqlite3_bind_int64(insertPlayer, 1, Int64(i)); try bind(2, u.name)
                sqlite3_bind_int64(insertPlayer, 3, u.age); sqlite3_bind_double(insertPlayer, 4, u.score); try bind(5, teamID)
                defer { sqlite3_reset(insertPlayer) }
                try SQLiteCalls.check(db, sqlite3_step(insertPlayer), "insert player")
                if handingKeys { keys.append(sqlite3_last_insert_rowid(db)) }
            }
        }
        return keys
    }

    func stored() throws -> String {
        var s: OpaquePointer?
        try SQLiteCalls.check(db, sqlite3_prepare_v2(db, "SELECT count(*), (SELECT count(*) FROM player WHERE teamId = '\(teamID)'), sum(score) FROM player", -1, &s, nil), "prepare")
        defer { sqlite3_finalize(s) }
        guard sqlite3_step(s) == SQLITE_ROW else { throw BenchError("SQLite: no row") }
        return "\(sqlite3_column_int64(s, 0)), \(sqlite3_column_int64(s, 1)), " + String(format: "%.6e", sqlite3_column_double(s, 2))
    }

    func close() {
        sqlite3_finalize(insertPlayer)
        sqlite3_close(db)
    }
}
