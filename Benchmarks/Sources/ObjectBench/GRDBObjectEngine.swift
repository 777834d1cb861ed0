import BenchSupport
import Foundation
import GRDB

/// GRDB's Codable records: a `DatabasePool` (WAL), `synchronous=FULL` when durable, the same
/// 1 GiB page cache and schema as the C API peer, and the query interface an app would write.
final class GRDBObjectEngine: ObjectEngine {
    static let name = "GRDB"

    struct Team: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "team"
        var id: String
        var name: String
    }

    struct User: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "user"
        static let team = belongsTo(Team.self, using: ForeignKey(["teamId"]))
        var uid: String
        var name: String
        var age: Int64
        var score: Double
        var signedUpAt: Date
        var email: String?
        var teamId: String?
    }

    private let path: String
    private var pool: DatabasePool?

    init(directory: String, durable: Bool) throws {
        path = directory + "/bench.sqlite"
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous=\(durable ? "FULL" : "OFF")")
            try db.execute(sql: "PRAGMA cache_size=-1048576")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        // The pool's writer switches itself to WAL with `synchronous=NORMAL` after
        // prepareDatabase ran (commits then reach the disk only at checkpoints); set it again on
        // the writer so that every commit is flushed, as in the other engines.
        let synchronous = try pool!.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous=\(durable ? "FULL" : "OFF")")
            return try Int.fetchOne(db, sql: "PRAGMA synchronous")
        }
        guard synchronous == (durable ? 2 : 0) else { throw BenchError("GRDB: synchronous is \(synchronous ?? -1)") }
        try pool!.write { db in try db.execute(sql: sqliteSchema) }
    }

    private var p: DatabasePool { pool! }

    func insertTeams(_ data: ObjectDataset) throws {
        try p.write { db in
            for i in 0..<ObjectDataset.teamCount { try Team(id: data.teamIDs[i], name: data.teamNames[i]).insert(db) }
        }
    }

    func insertUsers(_ data: ObjectDataset, _ range: Range<Int>) throws {
        try p.write { db in
            for i in range {
                let u = data.users[i]
                try User(uid: u.uid, name: u.name, age: u.age, score: u.score,
                         signedUpAt: Date(timeIntervalSinceReferenceDate: u.signedUpAt), email: u.email,
                         teamId: data.teamIDs[u.team]).insert(db)
            }
        }
    }

    func lookup(_ data: ObjectDataset, _ indices: [Int]) throws -> UInt64 {
        try p.read { db in
            var sum: UInt64 = 0
            for i in indices {
                guard let u = try User.fetchOne(db, key: data.users[i].uid) else { throw BenchError("GRDB: user \(i) not found") }
                foldUser(&sum, name: u.name, age: u.age, score: u.score)
            }
            return sum
        }
    }

    func countByName(_ names: [String]) throws -> Int {
        try p.read { db in
            try names.reduce(0) { $0 + (try User.filter(Column("name") == $1).fetchCount(db)) }
        }
    }

    func countByNameRange(_ ranges: [(lower: String, upper: String)]) throws -> Int {
        try p.read { db in
            try ranges.reduce(0) { $0 + (try User.filter(Column("name") >= $1.lower && Column("name") < $1.upper).fetchCount(db)) }
        }
    }

    func countCompound(ageFrom lo: Int64, ageBelow hi: Int64, scoreAbove minScore: Double) throws -> Int {
        try p.read { db in
            try User.filter(Column("age") >= lo && Column("age") < hi && Column("score") > minScore).fetchCount(db)
        }
    }

    func countNameContains(_ needle: String) throws -> Int {
        try p.read { db in try User.filter(Column("name").like("%\(needle)%")).fetchCount(db) }
    }

    func countByTeamName(_ teamNames: [String]) throws -> Int {
        try p.read { db in
            try teamNames.reduce(0) { $0 + (try User.joining(required: User.team.filter(Column("name") == $1)).fetchCount(db)) }
        }
    }

    func topByScore(_ k: Int) throws -> [String] {
        try p.read { db in try User.order(Column("score").desc).limit(k).fetchAll(db).map(\.uid) }
    }

    func updateScores(_ data: ObjectDataset, _ indices: [Int], _ newScore: (Int) -> Double) throws {
        try p.write { db in
            for i in indices {
                guard var u = try User.fetchOne(db, key: data.users[i].uid) else { throw BenchError("GRDB: user \(i) not found") }
                try u.updateChanges(db) { $0.score = newScore(i) }
            }
        }
    }

    func delete(_ data: ObjectDataset, _ indices: [Int]) throws -> Int {
        try p.write { db in
            var n = 0
            for i in indices where try User.deleteOne(db, key: data.users[i].uid) { n += 1 }
            return n
        }
    }

    func vacuum() throws {
        try p.vacuum()
        try p.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    }

    struct Sale: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "sale"
        var id: Int64
        var region: String
        var amount: Int64?
        var price: Double
        var channel: String
    }

    func insertSales(_ data: SalesDataset) throws {
        try p.write { db in
            for sale in data.sales { try Sale(id: sale.id, region: sale.region, amount: sale.amount, price: sale.price, channel: sale.channel).insert(db) }
        }
    }

    func countSalesByRegion(_ regions: [String]) throws -> Int {
        try p.read { db in
            try regions.reduce(0) { $0 + (try Sale.filter(Column("region") == $1).fetchCount(db)) }
        }
    }

    func averageAmountByRegion(_ regions: [String]) throws -> Double {
        try p.read { db in
            try regions.reduce(0) { total, region in
                total + (try Sale.filter(Column("region") == region).select(average(Column("amount")), as: Double.self).fetchOne(db) ?? 0)
            }
        }
    }

    func averageAmount(times: Int) throws -> Double {
        try p.read { db in
            var last = 0.0
            for _ in 0..<times { last = try Sale.select(average(Column("amount")), as: Double.self).fetchOne(db) ?? 0 }
            return last
        }
    }

    func amountExtremes(times: Int) throws -> Int64 {
        try p.read { db in
            var total: Int64 = 0
            for _ in 0..<times {
                total += (try Sale.select(GRDB.min(Column("amount")), as: Int64.self).fetchOne(db) ?? 0)
                    + (try Sale.select(GRDB.max(Column("amount")), as: Int64.self).fetchOne(db) ?? 0)
            }
            return total
        }
    }

    func sumOfPricesOver50(times: Int) throws -> Double {
        try p.read { db in
            var last = 0.0
            for _ in 0..<times {
                last = try Sale.filter(Column("price") > 50.0).select(GRDB.sum(Column("price")), as: Double.self).fetchOne(db) ?? 0
            }
            return last
        }
    }

    func salePage(times: Int) throws -> [String] {
        try p.read { db in
            var page: [String] = []
            for _ in 0..<times {
                let request = Sale.select(Column("region"), Column("amount")).order(Column("id")).limit(20, offset: 500)
                    .asRequest(of: Row.self)
                page = try request.fetchAll(db).map { row in
                    "\(row[0] as String) \((row[1] as Int64?).map(String.init) ?? "nil")"
                }
            }
            return page
        }
    }

    func salesByRegion() throws -> [String] { try groupRows(by: "region") }

    func salesByChannel() throws -> [String] { try groupRows(by: "channel") }

    /// One row per value of `key` in its order, "key count sum max".
    private func groupRows(by key: String) throws -> [String] {
        try p.read { db in
            let request = Sale.select(Column(key), GRDB.count(Column("id")), GRDB.sum(Column("amount")), GRDB.max(Column("amount")))
                .group(Column(key)).order(Column(key)).asRequest(of: Row.self)
            return try request.fetchAll(db).map { row in
                "\(row[0] as String) \(row[1] as Int64) \(row[2] as Int64) \(row[3] as Int64)"
            }
        }
    }

    func salesCountByRegion() throws -> [String] {
        try p.read { db in
            let request = Sale.select(Column("region"), GRDB.count(Column("id"))).group(Column("region")).order(Column("region"))
                .asRequest(of: Row.self)
            return try request.fetchAll(db).map { row in "\(row[0] as String) \(row[1] as Int64)" }
        }
    }

    func count() throws -> Int { try p.read { db in try User.fetchCount(db) } }

    func fileSize() throws -> UInt64 { try FileSize.of([path, path + "-wal"]) }

    func close() { pool = nil }
}
