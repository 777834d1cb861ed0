import Foundation
import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// Random predicates over decimals, dates, links and lists (a second fixture beside the
/// Person one of `PostgresDifferentialTests`) run against a store and against PostgreSQL
/// holding the same objects: the same objects, in the same order where SORT makes one.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresLedgerDifferentialTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [
          {"name": "Account", "primaryKey": "id", "properties": {
            "id": "string", "opened": "date?", "limit": "decimal?", "rate": "double?", "owner": "Account?",
            "tags": "string[]", "amounts": "decimal[]", "days": "date[]", "entries": "Entry[]"}},
          {"name": "Entry", "primaryKey": "id", "properties": {
            "id": "int", "amount": "decimal", "at": "date?", "memo": "string?",
            "accounts": {"type": "linkingObjects", "objectType": "Account", "property": "entries"}}}
        ]}
        """#.utf8), fileName: "ledger")

    static let decimals = ["0", "1", "1.5", "-2.25", "0.1", "0.2", "100.125", "3", "-0.001", "12345678901234567890.5", "0.3333333333333333333333"]
    static let dates = ["1999-12-31T23:59:59Z", "2000-01-01T00:00:00Z", "2010-06-15T12:00:00Z", "2024-02-29T00:00:00Z"]
    /// `é` in NFC and in NFD, which a store compares equal.
    static let tags = ["a", "B", "ab", "\u{E9}", "x y", "e\u{301}"]

    static func decimal(_ text: String) -> Value { .decimal(Decimal(string: text)!) }
    static func date(_ text: String) -> Value { .date(ISO8601DateFormatter().date(from: text)!) }

    /// The same objects for both: entries, then accounts (each linking to an earlier one).
    static func data(seed: UInt64) -> (entries: [[String: Value]], accounts: [[String: Value]]) {
        var random = PostgresFixtures.Random(state: seed)
        var entries: [[String: Value]] = []
        for id in 1...30 {
            entries.append(["id": .int(Int64(id)), "amount": decimal(random.pick(decimals)),
                            "at": random.chance(20) ? .null : date(random.pick(dates)),
                            "memo": random.chance(30) ? .null : .string(random.pick(tags))])
        }
        var accounts: [[String: Value]] = []
        for index in 0..<40 {
            var values: [String: Value] = ["id": .string("a\(index)")]
            values["opened"] = random.chance(20) ? .null : date(random.pick(dates))
            values["limit"] = random.chance(20) ? .null : decimal(random.pick(decimals))
            values["rate"] = random.chance(20) ? .null : .double(random.pick([0.5, 2, -1.25, 1e300, 0.1]))
            values["owner"] = index == 0 || random.chance(30) ? .null : .string("a\(random.int(0...(index - 1)))")
            values["tags"] = .list((0..<random.int(0...3)).map { _ in .string(random.pick(tags)) })
            values["amounts"] = .list((0..<random.int(0...4)).map { _ in decimal(random.pick(decimals)) })
            values["days"] = .list((0..<random.int(0...2)).map { _ in date(random.pick(dates)) })
            values["entries"] = .list((0..<random.int(0...3)).map { _ in .int(Int64(random.int(1...30))) })
            accounts.append(values)
        }
        return (entries, accounts)
    }

    static func load(seed: UInt64) throws -> (Store, PostgresStore) {
        let store = try Store(configuration: .inMemory(schema: schema))
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let (entries, accounts) = data(seed: seed)
        try store.write { tx in
            for entry in entries { _ = try tx.insert("Entry", entry) }
            for account in accounts { _ = try tx.insert("Account", account) }
        }
        try postgres.begin()
        for entry in entries { try postgres.insert("Entry", entry) }
        for account in accounts { try postgres.insert("Account", account) }
        try postgres.commit()
        return (store, postgres)
    }

    struct Generator {
        var random: PostgresFixtures.Random
        var arguments: [Value] = []

        mutating func number() -> String {
            let numbers = PostgresLedgerDifferentialTests.decimals + ["1e200", "-1e200", "2.5", "7"]
            if random.chance(15) {
                arguments.append(random.chance(50) ? .double(Double(random.pick(numbers))!) : PostgresLedgerDifferentialTests.decimal(random.pick(PostgresLedgerDifferentialTests.decimals)))
                return "$\(arguments.count - 1)"
            }
            return random.pick(numbers)
        }

        mutating func date() -> String {
            "'\(random.pick(PostgresLedgerDifferentialTests.dates))'"
        }

        mutating func comparison() -> String {
            let order = ["==", "!=", "<", "<=", ">", ">="]
            let quantifier = random.pick(["ANY", "ALL", "NONE", ""])
            switch random.int(0...19) {
            case 0: return "limit \(random.pick(order)) \(random.chance(10) ? "nil" : number())"
            case 1: return "rate \(random.pick(order)) \(random.chance(10) ? "nil" : number())"
            case 2: return "opened \(random.pick(order)) \(random.chance(10) ? "nil" : date())"
            case 3: return "owner.limit \(random.pick(order)) \(number())"
            case 4: return "owner \(random.pick(["==", "!="])) \(random.chance(50) ? "nil" : "'a\(random.int(0...39))'")"
            case 5: return "owner.owner.opened \(random.pick(order)) \(date())"
            case 6: return "\(quantifier) amounts \(random.pick(order)) \(number())"
            case 7: return "amounts.@\(random.pick(["sum", "avg", "min", "max"])) \(random.pick(order)) \(number())"
            case 8: return "\(random.pick(["amounts", "days", "entries", "tags"])).@count \(random.pick(order)) \(random.int(0...3))"
            case 9: return "\(quantifier) days \(random.pick(order)) \(date())"
            case 10: return "days.@\(random.pick(["min", "max"])) \(random.pick(order)) \(date())"
            case 11: return "\(quantifier) entries.amount \(random.pick(order)) \(number())"
            case 12: return "entries.@\(random.pick(["sum", "avg", "min", "max"])).amount \(random.pick(order)) \(number())"
            case 13: return "SUBQUERY(entries, $e, $e.amount > \(number()) AND $e.memo != nil).@count \(random.pick(order)) \(random.int(0...2))"
            case 14: return "\(quantifier) entries.at \(random.pick(order)) \(date())"
            case 15: return "\(quantifier) tags \(random.pick(["==", "!=", "BEGINSWITH"]))\(random.pick(["", "[c]", "[d]"])) '\(random.pick(PostgresLedgerDifferentialTests.tags))'"
            case 16: return "limit BETWEEN {\(number()), \(number())}"
            case 17: return "limit IN {\(number()), \(number()), nil}"
            case 18: return "limit \(random.pick(order)) owner.limit"
            default: return "ANY entries.accounts.limit \(random.pick(order)) \(number())"
            }
        }

        mutating func predicate(depth: Int = 0) -> String {
            guard depth < 3, random.chance(40) else { return comparison() }
            switch random.int(0...2) {
            case 0: return "(\(predicate(depth: depth + 1)) AND \(predicate(depth: depth + 1)))"
            case 1: return "(\(predicate(depth: depth + 1)) OR \(predicate(depth: depth + 1)))"
            default: return "NOT (\(predicate(depth: depth + 1)))"
            }
        }

        mutating func clauses() -> String {
            var text = ""
            if random.chance(60) {
                let keys = ["limit", "rate", "opened", "owner.limit", "owner.opened", "id", "amounts.@sum", "amounts.@avg", "entries.@count"]
                text += " SORT(" + (0..<random.int(1...2)).map { _ in "\(random.pick(keys)) \(random.pick(["ASC", "DESC"]))" }.joined(separator: ", ") + ", id)"
            }
            if random.chance(20) { text += " OFFSET(\(random.int(0...5)))" }
            if random.chance(25) { text += " LIMIT(\(random.int(0...10)))" }
            return text
        }
    }

    static func ids(_ results: Results) throws -> [String] {
        try results.map { object in
            guard case .string(let id)? = try object.json()["id"] else { throw PostgresError("no id") }
            return id
        }
    }

    static func ids(_ objects: PostgresObjects) -> [String] {
        objects.objects.map { if case .string(let id) = $0[0] { id } else { "" } }
    }

    @Test(arguments: [UInt64(11), 12])
    func randomQueriesOverDecimalsDatesLinksAndListsAgreeWithAStore(seed: UInt64) throws {
        let (store, postgres) = try Self.load(seed: seed)
        var failures = 0, compared = 0, selective = 0
        for round in 0..<300 {
            var generator = Generator(random: PostgresFixtures.Random(state: seed &* 104_729 &+ UInt64(round)))
            let text = "Account where \(generator.predicate())\(generator.clauses())"
            let expected: [String]
            do {
                expected = try store.read { try Self.ids($0.query(text, arguments: generator.arguments)) }
            } catch {
                PostgresDifferentialTests.expectRefusal(error, text) { _ = try postgres.objects(text, arguments: generator.arguments) }
                continue
            }
            compared += 1
            if !expected.isEmpty && expected.count < 30 { selective += 1 }
            do {
                let got = Self.ids(try postgres.objects(text, arguments: generator.arguments))
                // With SORT the order is the store's (ties broken by id); without, only the set.
                let sorted = text.contains("SORT")
                if sorted ? got != expected : got.sorted() != expected.sorted() || (text.contains("LIMIT") || text.contains("OFFSET")) && got.count != expected.count {
                    Issue.record("\(text) \(generator.arguments)\n  got \(got)\n  expected \(expected)")
                    failures += 1
                }
            } catch {
                Issue.record("\(text) \(generator.arguments) threw \(error)")
                failures += 1
            }
            if failures > 10 { break }
        }
        #expect(compared > 180)
        #expect(selective > 80)
    }

    /// Aggregate statements and SELECT/GROUP over the same objects print the store's values.
    @Test func aggregatesOverDecimalsAndDatesAgreeWithAStore() throws {
        let (store, postgres) = try Self.load(seed: 13)
        for text in ["sum Entry.amount", "avg Entry.amount", "min Entry.at", "max Account.opened", "avg Account.limit where owner != nil",
                     "sum Account.limit where limit > 0", "avg Entry.amount where memo == 'a'",
                     "Account SORT(id) SELECT(id, amounts.@avg, amounts.@sum, entries.@avg.amount, days.@max, owner.limit)",
                     "Entry GROUP(memo) SELECT(memo, @avg.amount, @sum.amount, @min.at, @count) SORT(memo)",
                     "Account GROUP(owner) SELECT(owner, @avg.limit, @max.opened) SORT(owner)"] {
            if text.contains(" SELECT(") {
                let expected = try PostgresDifferentialTests.storeRows(store, text, [])
                guard case .rows(let got) = try postgres.run(text) else { Issue.record("\(text): not rows"); continue }
                #expect(got.columns == expected.columns && got.json == expected.rows, "\(text)\n  got \(got.json)\n  expected \(expected.rows)")
            } else {
                let expected = try store.read { try $0.aggregate(text) }
                guard case .value(_, let got) = try postgres.run(text) else { Issue.record("\(text): no value"); continue }
                #expect(got == expected, "\(text): got \(got), expected \(expected)")
            }
        }
    }
}
