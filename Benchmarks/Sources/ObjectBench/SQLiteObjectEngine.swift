import BenchSupport
import CSQLite
import Foundation

/// The schema both SQLite peers use: rowid tables with a unique text primary key (what GRDB's
/// Codable records get by default), an index on `user.name`, and one on `user.teamId` (the
/// counterpart of Trove's backlink index, which key paths through the link can use); sales
/// keyed by their integer id (the rowid), with the indexes Trove's `Sale` has.
/// Foreign keys are enforced, as Trove checks that a link's target exists.
let sqliteSchema = """
    CREATE TABLE team(id TEXT NOT NULL PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE user(uid TEXT NOT NULL PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL,
                      score REAL NOT NULL, signedUpAt REAL NOT NULL, email TEXT,
                      teamId TEXT REFERENCES team(id));
    CREATE INDEX user_name ON user(name);
    CREATE INDEX user_teamId ON user(teamId);
    CREATE TABLE sale(id INTEGER NOT NULL PRIMARY KEY, region TEXT NOT NULL, amount INTEGER, price REAL NOT NULL,
                      channel TEXT NOT NULL);
    CREATE INDEX sale_region ON sale(region);
    CREATE INDEX sale_amount ON sale(amount);
    """

/// SQLite through its C API: prepared statements (prepared once), WAL, `synchronous=FULL` when
/// durable (`OFF` otherwise), a 1 GiB page cache, foreign keys on.
final class SQLiteObjectEngine: ObjectEngine {
    static let name = "SQLite"
    private let path: String
    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]

    init(directory: String, durable: Bool) throws {
        path = directory + "/bench.sqlite"
        try check(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil), "open")
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=\(durable ? "FULL" : "OFF")")
        try execute("PRAGMA cache_size=-1048576")
        try execute("PRAGMA foreign_keys=ON")
        try execute(sqliteSchema)
    }

    private func check(_ rc: Int32, _ what: String) throws { try SQLiteCalls.check(db, rc, what) }

    private func execute(_ sql: String) throws { try SQLiteCalls.execute(db, sql) }

    /// The prepared statement for `sql`, prepared on first use and reset after each use.
    private func statement(_ sql: String) throws -> OpaquePointer {
        if let s = statements[sql] { return s }
        var s: OpaquePointer?
        try check(sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &s, nil), sql)
        statements[sql] = s!
        return s!
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func bind(_ s: OpaquePointer, _ i: Int32, _ text: String?) throws {
        guard let text else { try check(sqlite3_bind_null(s, i), "bind"); return }
        var t = text
        try t.withUTF8 { try check(sqlite3_bind_text(s, i, $0.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, Int32($0.count), Self.transient), "bind") }
    }

    private func text(_ s: OpaquePointer, _ column: Int32) -> String {
        guard let p = sqlite3_column_text(s, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(s, column))), as: UTF8.self)
    }

    /// Steps a statement that returns no rows, then resets it.
    private func run(_ s: OpaquePointer) throws {
        defer { sqlite3_reset(s) }
        try check(sqlite3_step(s), "step")
    }

    /// The single integer a `count(*)` statement returns, then resets it.
    private func scalar(_ s: OpaquePointer) throws -> Int {
        defer { sqlite3_reset(s) }
        guard sqlite3_step(s) == SQLITE_ROW else { throw BenchError("SQLite: no row: \(String(cString: sqlite3_errmsg(db)))") }
        return Int(sqlite3_column_int64(s, 0))
    }

    private func transaction<R>(_ begin: String, _ body: () throws -> R) throws -> R {
        try SQLiteCalls.transaction(db, begin, body)
    }

    func insertTeams(_ data: ObjectDataset) throws {
        let s = try statement("INSERT INTO team(id, name) VALUES (?1, ?2)")
        try transaction("BEGIN IMMEDIATE") {
            for i in 0..<ObjectDataset.teamCount {
                try bind(s, 1, data.teamIDs[i]); try bind(s, 2, data.teamNames[i])
                try run(s)
            }
        }
    }

    func insertUsers(_ data: ObjectDataset, _ range: Range<Int>) throws {
        let s = try statement("INSERT INTO user(uid, name, age, score, signedUpAt, email, teamId) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
        try transaction("BEGIN IMMEDIATE") {
            for i in range {
                let u = data.users[i]
                try bind(s, 1, u.uid); try bind(s, 2, u.name)
                sqlite3_bind_int64(s, 3, u.age); sqlite3_bind_double(s, 4, u.score); sqlite3_bind_double(s, 5, u.signedUpAt)
                try bind(s, 6, u.email); try bind(s, 7, data.teamIDs[u.team])
                try run(s)
            }
        }
    }

    func lookup(_ data: ObjectDataset, _ indices: [Int]) throws -> UInt64 {
        let s = try statement("SELECT name, age, score FROM user WHERE uid = ?1")
        return try transaction("BEGIN") {
            var sum: UInt64 = 0
            for i in indices {
                try bind(s, 1, data.users[i].uid)
                guard sqlite3_step(s) == SQLITE_ROW else { sqlite3_reset(s); throw BenchError("SQLite: user \(i) not found") }
                foldUser(&sum, name: text(s, 0), age: sqlite3_column_int64(s, 1), score: sqlite3_column_double(s, 2))
                sqlite3_reset(s)
            }
            return sum
        }
    }

    func countByName(_ names: [String]) throws -> Int {
        let s = try statement("SELECT count(*) FROM user WHERE name = ?1")
        return try transaction("BEGIN") {
            try names.reduce(0) { total, name in try bind(s, 1, name); return total + (try scalar(s)) }
        }
    }

    func countByNameRange(_ ranges: [(lower: String, upper: String)]) throws -> Int {
        let s = try statement("SELECT count(*) FROM user WHERE name >= ?1 AND name < ?2")
        return try transaction("BEGIN") {
            try ranges.reduce(0) { total, range in
                try bind(s, 1, range.lower); try bind(s, 2, range.upper)
                return total + (try scalar(s))
            }
        }
    }

    func countCompound(ageFrom lo: Int64, ageBelow hi: Int64, scoreAbove minScore: Double) throws -> Int {
        let s = try statement("SELECT count(*) FROM user WHERE age >= ?1 AND age < ?2 AND score > ?3")
        sqlite3_bind_int64(s, 1, lo); sqlite3_bind_int64(s, 2, hi); sqlite3_bind_double(s, 3, minScore)
        return try transaction("BEGIN") { try scalar(s) }
    }

    func countNameContains(_ needle: String) throws -> Int {
        // LIKE is case-insensitive for ASCII, as CONTAINS[c] is for these names.
        let s = try statement("SELECT count(*) FROM user WHERE name LIKE ?1")
        try bind(s, 1, "%\(needle)%")
        return try transaction("BEGIN") { try scalar(s) }
    }

    func countByTeamName(_ teamNames: [String]) throws -> Int {
        let s = try statement("SELECT count(*) FROM user JOIN team ON team.id = user.teamId WHERE team.name = ?1")
        return try transaction("BEGIN") {
            try teamNames.reduce(0) { total, name in try bind(s, 1, name); return total + (try scalar(s)) }
        }
    }

    func topByScore(_ k: Int) throws -> [String] {
        let s = try statement("SELECT uid FROM user ORDER BY score DESC LIMIT ?1")
        sqlite3_bind_int64(s, 1, Int64(k))
        return try transaction("BEGIN") {
            defer { sqlite3_reset(s) }
            var out: [String] = []
            while sqlite3_step(s) == SQLITE_ROW { out.append(text(s, 0)) }
            return out
        }
    }

    func updateScores(_ data: ObjectDataset, _ indices: [Int], _ newScore: (Int) -> Double) throws {
        let s = try statement("UPDATE user SET score = ?1 WHERE uid = ?2")
        try transaction("BEGIN IMMEDIATE") {
            for i in indices {
                sqlite3_bind_double(s, 1, newScore(i)); try bind(s, 2, data.users[i].uid)
                try run(s)
                guard sqlite3_changes(db) == 1 else { throw BenchError("SQLite: user \(i) not updated") }
            }
        }
    }

    func delete(_ data: ObjectDataset, _ indices: [Int]) throws -> Int {
        let s = try statement("DELETE FROM user WHERE uid = ?1")
        return try transaction("BEGIN IMMEDIATE") {
            var n = 0
            for i in indices {
                try bind(s, 1, data.users[i].uid)
                try run(s)
                n += Int(sqlite3_changes(db))
            }
            return n
        }
    }

    func vacuum() throws {
        try execute("VACUUM")
        try execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    func insertSales(_ data: SalesDataset) throws {
        let s = try statement("INSERT INTO sale(id, region, amount, price, channel) VALUES (?1, ?2, ?3, ?4, ?5)")
        try transaction("BEGIN IMMEDIATE") {
            for sale in data.sales {
                sqlite3_bind_int64(s, 1, sale.id); try bind(s, 2, sale.region)
                if let amount = sale.amount { sqlite3_bind_int64(s, 3, amount) } else { sqlite3_bind_null(s, 3) }
                sqlite3_bind_double(s, 4, sale.price); try bind(s, 5, sale.channel)
                try run(s)
            }
        }
    }

    func countSalesByRegion(_ regions: [String]) throws -> Int {
        let s = try statement("SELECT count(*) FROM sale WHERE region = ?1")
        return try transaction("BEGIN") {
            try regions.reduce(0) { total, region in try bind(s, 1, region); return total + (try scalar(s)) }
        }
    }

    /// The single double a statement returns, then resets it.
    private func real(_ s: OpaquePointer) throws -> Double {
        defer { sqlite3_reset(s) }
        guard sqlite3_step(s) == SQLITE_ROW else { throw BenchError("SQLite: no row: \(String(cString: sqlite3_errmsg(db)))") }
        return sqlite3_column_double(s, 0)
    }

    func averageAmountByRegion(_ regions: [String]) throws -> Double {
        let s = try statement("SELECT avg(amount) FROM sale WHERE region = ?1")
        return try transaction("BEGIN") {
            try regions.reduce(0) { total, region in try bind(s, 1, region); return total + (try real(s)) }
        }
    }

    func averageAmount(times: Int) throws -> Double {
        let s = try statement("SELECT avg(amount) FROM sale")
        return try transaction("BEGIN") {
            var last = 0.0
            for _ in 0..<times { last = try real(s) }
            return last
        }
    }

    func amountExtremes(times: Int) throws -> Int64 {
        let least = try statement("SELECT min(amount) FROM sale"), greatest = try statement("SELECT max(amount) FROM sale")
        return try transaction("BEGIN") {
            var total: Int64 = 0
            for _ in 0..<times { total += Int64(try scalar(least)) + Int64(try scalar(greatest)) }
            return total
        }
    }

    func sumOfPricesOver50(times: Int) throws -> Double {
        let s = try statement("SELECT sum(price) FROM sale WHERE price > 50.0")
        return try transaction("BEGIN") {
            var last = 0.0
            for _ in 0..<times { last = try real(s) }
            return last
        }
    }

    func salePage(times: Int) throws -> [String] {
        let s = try statement("SELECT region, amount FROM sale ORDER BY id LIMIT 20 OFFSET 500")
        return try transaction("BEGIN") {
            var page: [String] = []
            for _ in 0..<times {
                defer { sqlite3_reset(s) }
                page = []
                while sqlite3_step(s) == SQLITE_ROW {
                    let amount = sqlite3_column_type(s, 1) == SQLITE_NULL ? "nil" : String(sqlite3_column_int64(s, 1))
                    page.append("\(text(s, 0)) \(amount)")
                }
            }
            return page
        }
    }

    func salesByRegion() throws -> [String] {
        try groupRows("SELECT region, count(*), sum(amount), max(amount) FROM sale GROUP BY region ORDER BY region")
    }

    func salesByChannel() throws -> [String] {
        try groupRows("SELECT channel, count(*), sum(amount), max(amount) FROM sale GROUP BY channel ORDER BY channel")
    }

    /// The rows of a "key count sum max" statement, a line each.
    private func groupRows(_ sql: String) throws -> [String] {
        let s = try statement(sql)
        return try transaction("BEGIN") {
            defer { sqlite3_reset(s) }
            var rows: [String] = []
            while sqlite3_step(s) == SQLITE_ROW {
                rows.append("\(text(s, 0)) \(sqlite3_column_int64(s, 1)) \(sqlite3_column_int64(s, 2)) \(sqlite3_column_int64(s, 3))")
            }
            return rows
        }
    }

    func salesCountByRegion() throws -> [String] {
        let s = try statement("SELECT region, count(*) FROM sale GROUP BY region ORDER BY region")
        return try transaction("BEGIN") {
            defer { sqlite3_reset(s) }
            var rows: [String] = []
            while sqlite3_step(s) == SQLITE_ROW { rows.append("\(text(s, 0)) \(sqlite3_column_int64(s, 1))") }
            return rows
        }
    }

    func count() throws -> Int {
        try transaction("BEGIN") { try scalar(try statement("SELECT count(*) FROM user")) }
    }

    func fileSize() throws -> UInt64 { try FileSize.of([path, path + "-wal"]) }

    func close() {
        for s in statements.values { sqlite3_finalize(s) }
        statements = [:]
        if db != nil { sqlite3_close_v2(db) }
        db = nil
    }

    deinit { close() }

    static var version: String { String(cString: sqlite3_libversion()) }
}
