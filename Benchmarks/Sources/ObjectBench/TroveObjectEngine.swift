import BenchSupport
import Foundation
import Trove

/// Trove's object layer through its public API, as an app would use it: `[String: Value]`
/// dictionaries in, object accessors (`withObject` views for lookups) and query strings out.
final class TroveObjectEngine: ObjectEngine {
    static let name = "Trove"
    let path: String
    private var store: Store?
    /// `StoreConfiguration.compactsAutomatically` for every store made (`--no-auto-vacuum`).
    nonisolated(unsafe) static var compactsAutomatically = true

    static let schemaJSON = """
        {
          "schemaVersion": 1,
          "models": [
            { "name": "Team", "primaryKey": "id",
              "properties": { "id": "string", "name": "string" } },
            { "name": "User", "primaryKey": "uid",
              "properties": {
                "uid": "string",
                "name": { "type": "string", "indexed": true },
                "age": "int",
                "score": "double",
                "signedUpAt": "date",
                "email": "string?",
                "team": "Team?"
              } },
            { "name": "Sale", "primaryKey": "id",
              "properties": {
                "id": "int",
                "region": { "type": "string", "indexed": true },
                "amount": { "type": "int?", "indexed": true },
                "price": "double",
                "channel": "string"
              } }
          ]
        }
        """

    init(directory: String, durable: Bool) throws {
        path = directory + "/bench.trove"
        var configuration = StoreConfiguration(path: path, schema: try Schema(jsonData: Array(Self.schemaJSON.utf8)))
        configuration.durability = durable ? .durable : .noSync
        configuration.compactsAutomatically = Self.compactsAutomatically
        store = try Store(configuration: configuration)
    }

    private var s: Store { store! }

    func insertTeams(_ data: ObjectDataset) throws {
        try s.write { tx in
            for i in 0..<ObjectDataset.teamCount {
                try tx.insert("Team", ["id": .string(data.teamIDs[i]), "name": .string(data.teamNames[i])])
            }
        }
    }

    static func values(_ u: ObjectDataset.User, _ data: ObjectDataset?) -> [String: Value] {
        [
            "uid": .string(u.uid), "name": .string(u.name), "age": .int(u.age), "score": .double(u.score),
            "signedUpAt": .date(Date(timeIntervalSinceReferenceDate: u.signedUpAt)),
            "email": u.email.map(Value.string) ?? .null, "team": data.map { .string($0.teamIDs[u.team]) } ?? .null,
        ]
    }

    func insertUsers(_ data: ObjectDataset, _ range: Range<Int>) throws {
        try s.write { tx in
            for i in range { try tx.insert("User", Self.values(data.users[i], data)) }
        }
    }

    /// Inserts users 0..<count generated on the fly (for runs too large to hold as a data set).
    func insertGenerated(_ count: Int, seed: UInt64, teamIDs: [String]) throws {
        try s.write { tx in
            for i in 0..<count {
                let u = ObjectDataset.user(i, seed: seed)
                var values = Self.values(u, nil)
                values["team"] = .string(teamIDs[u.team])
                try tx.insert("User", values)
            }
        }
    }

    func lookup(_ data: ObjectDataset, _ indices: [Int]) throws -> UInt64 {
        try s.read { snapshot in
            var sum: UInt64 = 0
            // Read in place, as the C API reads columns: `object(_:primaryKey:)` would copy the
            // record into a `DynamicObject` that outlives the loop body.
            for i in indices {
                let found = try snapshot.withObject("User", primaryKey: .string(data.users[i].uid)) { o -> Bool in
                    foldUser(&sum, name: try o.string("name") ?? "", age: try o.int("age") ?? 0, score: try o.double("score") ?? 0)
                    return true
                }
                guard found != nil else { throw BenchError("Trove: user \(i) not found") }
            }
            return sum
        }
    }

    func countByName(_ names: [String]) throws -> Int {
        try s.read { snapshot in
            try names.reduce(0) { $0 + (try snapshot.objects("User", where: "name == $0", .string($1)).count) }
        }
    }

    func countByNameRange(_ ranges: [(lower: String, upper: String)]) throws -> Int {
        try s.read { snapshot in
            try ranges.reduce(0) {
                $0 + (try snapshot.objects("User", where: "name >= $0 AND name < $1", .string($1.lower), .string($1.upper)).count)
            }
        }
    }

    func countCompound(ageFrom lo: Int64, ageBelow hi: Int64, scoreAbove minScore: Double) throws -> Int {
        try s.read { snapshot in
            try snapshot.objects("User", where: "age >= $0 AND age < $1 AND score > $2", .int(lo), .int(hi), .double(minScore)).count
        }
    }

    func countNameContains(_ needle: String) throws -> Int {
        try s.read { snapshot in
            try snapshot.objects("User", where: "name CONTAINS[c] $0", .string(needle)).count
        }
    }

    func countByTeamName(_ teamNames: [String]) throws -> Int {
        try s.read { snapshot in
            try teamNames.reduce(0) { $0 + (try snapshot.objects("User", where: "team.name == $0", .string($1)).count) }
        }
    }

    func topByScore(_ k: Int) throws -> [String] {
        try s.read { snapshot in
            let results = try snapshot.query("User SORT(score DESC) LIMIT(\(k))")
            return try results.map { try $0.string("uid") ?? "" }
        }
    }

    func updateScores(_ data: ObjectDataset, _ indices: [Int], _ newScore: (Int) -> Double) throws {
        try s.write { tx in
            for i in indices { try tx.update("User", primaryKey: .string(data.users[i].uid), ["score": .double(newScore(i))]) }
        }
    }

    func delete(_ data: ObjectDataset, _ indices: [Int]) throws -> Int {
        try s.write { tx in
            var n = 0
            for i in indices where try tx.delete("User", primaryKey: .string(data.users[i].uid)) { n += 1 }
            return n
        }
    }

    func vacuum() throws { try s.vacuum() }

    func insertSales(_ data: SalesDataset) throws {
        try s.write { tx in
            for sale in data.sales {
                try tx.insert("Sale", ["id": .int(sale.id), "region": .string(sale.region),
                                       "amount": sale.amount.map(Value.int) ?? .null, "price": .double(sale.price),
                                       "channel": .string(sale.channel)])
            }
        }
    }

    func countSalesByRegion(_ regions: [String]) throws -> Int {
        try s.read { snapshot in
            try regions.reduce(0) { $0 + (try snapshot.objects("Sale", where: "region == $0", .string($1)).count) }
        }
    }

    private static func double(_ value: Value) throws -> Double {
        switch value {
        case .double(let d): return d
        case .int(let i): return Double(i)
        default: throw BenchError("Trove: \(value) is not a number")
        }
    }

    func averageAmountByRegion(_ regions: [String]) throws -> Double {
        try s.read { snapshot in
            try regions.reduce(0) { $0 + (try Self.double(try snapshot.aggregate("avg Sale.amount where region == $0", arguments: [.string($1)]))) }
        }
    }

    func averageAmount(times: Int) throws -> Double {
        try s.read { snapshot in
            var last = 0.0
            for _ in 0..<times { last = try Self.double(try snapshot.aggregate("avg Sale.amount")) }
            return last
        }
    }

    func amountExtremes(times: Int) throws -> Int64 {
        try s.read { snapshot in
            var total: Int64 = 0
            for _ in 0..<times {
                guard case .int(let least) = try snapshot.aggregate("min Sale.amount"),
                      case .int(let greatest) = try snapshot.aggregate("max Sale.amount") else { throw BenchError("Trove: no amounts") }
                total += least + greatest
            }
            return total
        }
    }

    func sumOfPricesOver50(times: Int) throws -> Double {
        try s.read { snapshot in
            var last = 0.0
            for _ in 0..<times { last = try Self.double(try snapshot.aggregate("sum Sale.price where price > 50.0")) }
            return last
        }
    }

    func salePage(times: Int) throws -> [String] {
        try s.read { snapshot in
            var page: [[Value]] = []
            for _ in 0..<times {
                page = try snapshot.rows("Sale SORT(id) OFFSET(500) LIMIT(20) SELECT(region, amount)").map(\.values)
            }
            return page.map { values in
                guard case .string(let region) = values[0] else { return "" }
                if case .int(let amount) = values[1] { return "\(region) \(amount)" }
                return "\(region) nil"
            }
        }
    }

    func salesByRegion() throws -> [String] {
        try groupRows("Sale GROUP(region) SELECT(region, @count, @sum.amount, @max.amount)")
    }

    func salesByChannel() throws -> [String] {
        try groupRows("Sale GROUP(channel) SELECT(channel, @count, @sum.amount, @max.amount)")
    }

    /// The rows of a grouped statement, a line each: its values separated by spaces.
    private func groupRows(_ statement: String) throws -> [String] {
        try s.read { snapshot in
            try snapshot.rows(statement).map { row in
                row.values.map { value -> String in
                    switch value {
                    case .string(let text): text
                    case .int(let i): String(i)
                    default: "\(value)"
                    }
                }.joined(separator: " ")
            }
        }
    }

    func salesCountByRegion() throws -> [String] {
        try s.read { snapshot in
            try snapshot.rows("Sale GROUP(region) SELECT(region, @count)").map { row in
                guard case .string(let region) = row.values[0], case .int(let count) = row.values[1] else { return "" }
                return "\(region) \(count)"
            }
        }
    }

    func count() throws -> Int {
        try s.read { try $0.count("User") }
    }

    /// The store and its commit log, as SQLite's counts its `-wal`.
    func fileSize() throws -> UInt64 { try FileSize.of([path, path + "-log"]) }

    func close() { store = nil }

    /// Explains a query, for the log (which access path the planner chose).
    func explain(_ text: String) throws -> String {
        try s.read { try $0.explain(text).description }
    }
}

