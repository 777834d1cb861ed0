import Foundation
import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// Random predicates and clauses run against a store and against PostgreSQL holding the same
/// objects: the same objects, in the same order where SORT makes one.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresDifferentialTests {
    static func literal(_ s: String) -> String {
        "'" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    /// Generates predicates over the fixture schema as query text.
    struct Generator {
        var random: PostgresFixtures.Random
        var arguments: [Value] = []

        mutating func string() -> String {
            if random.chance(15) {
                arguments.append(.string(random.pick(PostgresFixtures.strings)))
                return "$\(arguments.count - 1)"
            }
            return PostgresDifferentialTests.literal(random.pick(PostgresFixtures.strings))
        }

        mutating func int(_ range: ClosedRange<Int>) -> String {
            if random.chance(15) {
                arguments.append(.int(Int64(random.int(range))))
                return "$\(arguments.count - 1)"
            }
            return String(random.int(range))
        }

        mutating func comparison() -> String {
            let order = ["==", "!=", "<", "<=", ">", ">="]
            let stringOps = ["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"]
            let modifiers = ["", "", "[c]", "[d]", "[cd]"]
            switch random.int(0...23) {
            case 0: return "name \(random.pick(order)) \(string())"
            case 1:
                let op = random.pick(stringOps)
                let modifier = random.pick(modifiers)
                if op == "LIKE" {
                    return "name LIKE\(modifier) \(PostgresDifferentialTests.literal(random.pick(["*a*", "a?", "?", "*", "*ü*", "Ü*", "x*y", "*%*", "a_b", "*c*", "?b*"])))"
                }
                return "name \(op)\(modifier) \(string())"
            case 2: return "age \(random.pick(order)) \(random.chance(10) ? "nil" : int(0...60))"
            case 3:
                if random.chance(15) {
                    // NaN and the infinities have no literal: they come as arguments.
                    arguments.append(.double(random.pick([.nan, .infinity, -.infinity, -0.0])))
                    return "score \(random.pick(order)) $\(arguments.count - 1)"
                }
                return "score \(random.pick(order)) \(random.pick(["-2.5", "0", "1.25", "3", "nil"]))"
            case 4: return "flag == \(random.pick(["true", "false", "nil"]))"
            case 5: return "flag != \(random.pick(["true", "false", "nil"]))"
            case 6: return "born \(random.pick(order)) \(random.chance(10) ? "nil" : "'\(random.pick(["1970-01-05T00:00:00Z", "1990-06-01T12:00:00Z", "2010-01-01T00:00:00Z"]))'")"
            case 7: return "friend.age \(random.pick(order)) \(int(0...60))"
            case 8: return "friend.name \(random.pick(stringOps.filter { $0 != "LIKE" }))\(random.pick(modifiers)) \(string())"
            case 9: return "friend \(random.pick(["==", "!="])) nil"
            case 10: return "\(random.pick(["ANY", "ALL", "NONE", ""])) dogs.age \(random.pick(order)) \(int(0...15))"
            case 11: return "\(random.pick(["ANY", "ALL", "NONE", ""])) tags \(random.pick(["==", "!=", "BEGINSWITH"]))\(random.pick(modifiers)) \(string())"
            case 12: return "\(string()) IN tags"
            case 13: return "\(random.pick(["nums", "dogs", "tags"])).@count \(random.pick(order)) \(int(0...4))"
            case 14: return "dogs.@\(random.pick(["sum", "max", "min"])).age \(random.pick(order)) \(int(0...20))"
            case 15: return "SUBQUERY(dogs, $d, $d.age > \(int(0...15)) AND $d.name != nil).@count \(random.pick(order)) \(int(0...2))"
            case 16: return "age IN {\(int(0...60)), \(int(0...60)), nil}"
            case 17: return "age BETWEEN {\(int(0...30)), \(int(20...60))}"
            case 18: return "age \(random.pick(order)) friend.age"
            case 19: return "ANY dogs.owners.age > \(int(0...60))"
            case 20: return "nums.@sum \(random.pick(order)) \(int(0...20))"
            case 21:
                // A constant subject: the key path's values are the needle or the pattern.
                let op = random.pick(["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"])
                return "\(string()) \(op)\(random.pick(modifiers)) \(random.pick(["name", "name", "friend.name", "tags", "dogs.name"]))"
            case 22:
                // A pattern read from the objects.
                let (subject, pattern) = random.pick([("name", "friend.name"), ("friend.name", "name"), ("name", "tags"),
                                                     ("ANY tags", "name"), ("name", "dogs.name"), ("name", "name")])
                return "\(subject) LIKE\(random.pick(modifiers)) \(pattern)"
            default: return "\(random.pick(["ANY", "ALL", "NONE"])) nums \(random.pick(order)) \(int(0...9))"
            }
        }

        mutating func predicate(depth: Int = 0) -> String {
            guard depth < 3, random.chance(45) else { return comparison() }
            switch random.int(0...2) {
            case 0: return "(\(predicate(depth: depth + 1)) AND \(predicate(depth: depth + 1)))"
            case 1: return "(\(predicate(depth: depth + 1)) OR \(predicate(depth: depth + 1)))"
            default: return "NOT (\(predicate(depth: depth + 1)))"
            }
        }

        mutating func clauses() -> String {
            var text = ""
            if random.chance(50) {
                let keys = ["age", "name", "score", "flag", "born", "friend.age", "friend.name"]
                let count = random.int(1...2)
                text += " SORT(" + (0..<count).map { _ in "\(random.pick(keys)) \(random.pick(["ASC", "DESC"]))" }.joined(separator: ", ") + ")"
            }
            // `score` holds NaN (one value to DISTINCT) and -0 (the same value as 0).
            if random.chance(20) { text += " DISTINCT(\(random.pick(["age", "flag", "name", "friend.age", "score"])))" }
            if random.chance(25) { text += " OFFSET(\(random.int(0...5)))" }
            if random.chance(30) { text += " LIMIT(\(random.int(0...10)))" }
            return text
        }
    }

    /// Generates SELECT and GROUP statements over `Person`, some of them refused by a store.
    struct QuestionGenerator {
        var generator: Generator
        var random: PostgresFixtures.Random {
            get { generator.random }
            set { generator.random = newValue }
        }

        static let selectable = ["id", "name", "age", "score", "flag", "born", "friend", "friend.name", "friend.age",
                                 "friend.friend.name", "tags", "nums", "dogs", "dogs.name", "dogs.age", "friend.dogs.age",
                                 "dogs.@count", "tags.@count", "nums.@sum", "nums.@avg", "nums.@min", "nums.@max",
                                 "dogs.@sum.age", "dogs.@avg.age", "dogs.@min.age", "dogs.@max.age", "name.@size", "nums.@size",
                                 "dogs.owners.id", "friend.nums"]
        /// `score` holds NaN, -0 and the infinities: every NaN is one group on both backends,
        /// and -0 is 0.
        static let groupable = ["age", "flag", "name", "friend.age", "friend", "friend.flag", "born", "score"]
        static let groupAggregates = ["@count", "@sum.age", "@avg.age", "@avg.score", "@sum.score", "@min.age", "@max.age",
                                      "@min.born", "@max.score", "@min.friend.age", "@avg.friend.age", "@sum.friend.score"]
        /// Items a store refuses somewhere: in SELECT without GROUP, or with it.
        static let refused = ["@count", "@sum.age", "tags", "dogs.@count", "@sum.name", "@avg.friend", "nosuch", "name.@count", "dogs.@sum"]

        mutating func named(_ item: String, _ index: Int) -> (text: String, name: String) {
            guard random.chance(25) else { return (item, item) }
            return ("\(item) AS c\(index)", "c\(index)")
        }

        mutating func paging() -> String {
            var text = ""
            if random.chance(30) { text += " OFFSET(\(random.int(0...4)))" }
            if random.chance(35) { text += " LIMIT(\(random.int(0...6)))" }
            return text
        }

        mutating func projection() -> String {
            var items: [(text: String, name: String)] = []
            for index in 0..<random.int(1...4) {
                items.append(named(random.chance(4) ? random.pick(Self.refused) : random.pick(Self.selectable), index))
            }
            var text = "Person"
            if random.chance(70) { text += " where \(generator.predicate())" }
            if random.chance(60) {
                let keys = ["age", "name", "score", "born", "friend.age"] + items.map(\.name)
                text += " SORT(" + (0..<random.int(1...2)).map { _ in "\(random.pick(keys)) \(random.pick(["ASC", "DESC"]))" }.joined(separator: ", ") + ")"
            }
            if random.chance(15) { text += " DISTINCT(\(random.pick(["age", "flag", "friend", "score"])))" }
            return text + paging() + " SELECT(\(items.map(\.text).joined(separator: ", ")))"
        }

        mutating func grouping() -> String {
            var keys: [String] = []
            for _ in 0..<random.int(1...2) {
                let key = random.chance(4) ? random.pick(["tags", "dogs.age", "nosuch"]) : random.pick(Self.groupable)
                if !keys.contains(key) { keys.append(key) }
            }
            var text = "Person"
            if random.chance(60) { text += " where \(generator.predicate())" }
            text += " GROUP(\(keys.joined(separator: ", ")))"
            var names = keys + ["@count"]
            if random.chance(75) {
                var items: [(text: String, name: String)] = []
                for index in 0..<random.int(1...4) {
                    let item = random.chance(5) ? random.pick(Self.refused + ["dogs.@count", "id"])
                        : random.chance(40) ? random.pick(keys) : random.pick(Self.groupAggregates)
                    items.append(named(item, index))
                }
                text += " SELECT(\(items.map(\.text).joined(separator: ", ")))"
                names = items.map(\.name) + items.map { $0.text.components(separatedBy: " AS ")[0] } + keys
            }
            if random.chance(60) {
                text += " SORT(" + (0..<random.int(1...2)).map { _ in "\(random.pick(names)) \(random.pick(["ASC", "DESC"]))" }.joined(separator: ", ") + ")"
            }
            return text + paging()
        }
    }

    /// The rows a store answers, as JSON.
    /// What a store refuses, PostgreSQL refuses too: a query error with the store's kind,
    /// message and position (`shift` columns further on when the store was given part of the
    /// statement), anything else with an error of its own.
    static func expectRefusal(_ storeError: any Error, _ text: String, shift: Int = 0, _ body: () throws -> Void) {
        guard let expected = storeError as? QueryError else {
            #expect(throws: PostgresError.self, "\(text)", performing: body)
            return
        }
        do {
            try body()
            Issue.record("\(text): PostgreSQL answers; a store refuses it: \(expected.message)")
        } catch let error as QueryError {
            #expect(error.kind == expected.kind && error.message == expected.message && error.column == expected.column + shift,
                    "\(text)\n  got \(error.message) at column \(error.column)\n  expected \(expected.message) at column \(expected.column + shift)")
        } catch {
            Issue.record("\(text): \(error); a store refuses it with \(expected.message)")
        }
    }

    static func storeRows(_ store: Store, _ text: String, _ arguments: [Value]) throws -> (columns: [String], rows: [JSONObject]) {
        try store.read { snapshot in
            let rows = try snapshot.rows(text, arguments: arguments)
            return (rows.columns, rows.map(\.json))
        }
    }

    static func load(seed: UInt64) throws -> (Store, PostgresStore) {
        let schema = PostgresFixtures.schema
        let store = try Store(configuration: .inMemory(schema: schema))
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let (dogs, people) = PostgresFixtures.data(seed: seed)
        try store.write { tx in
            for dog in dogs { _ = try tx.insert("Dog", dog) }
            for person in people {
                var values = person
                values["friend"] = nil
                values["dogs"] = nil
                _ = try tx.insert("Person", values)
            }
            for person in people {
                _ = try tx.update("Person", primaryKey: person["id"]!, ["friend": person["friend"]!, "dogs": person["dogs"]!])
            }
        }
        try postgres.begin()
        for dog in dogs { try postgres.insert("Dog", dog) }
        for person in people { try postgres.insert("Person", person) }
        try postgres.commit()
        return (store, postgres)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func randomQueriesAgreeWithAStore(seed: UInt64) throws {
        let (store, postgres) = try Self.load(seed: seed)
        var failures = 0, selective = 0, compared = 0
        for round in 0..<400 {
            var generator = Generator(random: PostgresFixtures.Random(state: seed &* 7919 &+ UInt64(round)))
            let predicate = generator.predicate()
            let clauses = generator.clauses()
            let text = "Person where \(predicate)\(clauses)"
            let sorted = clauses.contains("SORT")
            let expected: [Int64]
            do {
                expected = try store.read { try PostgresFixtures.ids($0.query(text, arguments: generator.arguments)) }
            } catch {
                Self.expectRefusal(error, text) { _ = try postgres.objects(text, arguments: generator.arguments) }
                continue
            }
            compared += 1
            if !expected.isEmpty && expected.count < 40 { selective += 1 }
            let got: [Int64]
            do {
                got = PostgresFixtures.ids(try postgres.objects(text, arguments: generator.arguments))
            } catch {
                Issue.record("\(text) \(generator.arguments) threw \(error)")
                failures += 1
                if failures > 10 { break }
                continue
            }
            // Without SORT a store gives no particular order; with LIMIT or OFFSET and no SORT
            // the objects chosen are the store's business too.
            if !sorted && (clauses.contains("LIMIT") || clauses.contains("OFFSET") || clauses.contains("DISTINCT")) {
                if got.count != expected.count { Issue.record("\(text) \(generator.arguments)\n  got \(got)\n  expected \(expected)"); failures += 1 }
            } else if sorted ? got != expected : got.sorted() != expected.sorted() {
                Issue.record("\(text) \(generator.arguments)\n  got \(got)\n  expected \(expected)")
                failures += 1
            }
            if failures > 10 { break }
        }
        #expect(compared > 350)
        #expect(selective > 150)
    }

    /// A value IN a list reached by a key path gives a store's answers; what PostgreSQL cannot
    /// run the store's way is a `QueryError` at the construct, not a wrong answer.
    @Test func keyPathsInListsAgreeAndWhatIsNotTranslatedIsRefusedAtItsPlace() throws {
        let (store, postgres) = try Self.load(seed: 9)
        var matched = 0
        for predicate in ["name IN tags", "name IN[c] tags", "NOT (name IN tags)", "friend.name IN tags", "name IN friend.tags", "age IN nums"] {
            let text = "Person where \(predicate) SORT(id)"
            let expected = try store.read { try PostgresFixtures.ids($0.query(text)) }
            if !expected.isEmpty { matched += 1 }
            #expect(PostgresFixtures.ids(try postgres.objects(text)) == expected, "\(text)")
        }
        #expect(matched >= 4)
        let refused = [("Person where name MATCHES '(?i)a.*'", 19), ("Person where age > 1 AND name MATCHES friend.name", 31),
                       ("Person where 'abc' MATCHES name", 20), ("Person where ANY tags ENDSWITH[c] 'b' OR 'x*y' MATCHES name", 48)]
        for (text, column) in refused {
            // A store runs each: a pattern read from the objects may be no regular expression.
            do {
                _ = try store.read { try $0.query(text).count }
            } catch let error as QueryError where error.message.hasPrefix("invalid regular expression") {}
            do {
                _ = try postgres.objects(text)
                Issue.record("\(text): PostgreSQL answers")
            } catch let error as QueryError {
                #expect(error.kind == .unsupported && error.column == column && error.statement == text, "\(text): \(error)")
            }
        }
    }

    /// A constant on the left of BEGINSWITH, ENDSWITH, CONTAINS and LIKE, and LIKE with a
    /// pattern read from the objects, with each modifier: PostgreSQL's own `%`, `_` and `\`
    /// are themselves in a pattern, `*` and `?` its wildcards; a null needle or pattern matches
    /// nothing.
    @Test func constantSubjectsAndPatternsFromObjectsAgreeWithAStore() throws {
        let (store, postgres) = try Self.load(seed: 10)
        let constants = ["", "abc", "ABC", "a_b", "a%b", "100%", "100% sure", "back\\slash", "a\\b", "x*y", "xzy",
                         "über", "ÜBER", "uber", "Ünïcode", "*", "?", "'; DROP TABLE \"Person\"; --"]
        var predicates: [(String, [Value])] = []
        for op in ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"] {
            for modifier in ["", "[c]", "[d]", "[cd]"] {
                for constant in constants {
                    predicates.append(("\(Self.literal(constant)) \(op)\(modifier) name", []))
                    predicates.append(("NOT (\(Self.literal(constant)) \(op)\(modifier) friend.name)", []))
                }
                predicates.append(("$0 \(op)\(modifier) name", [.string("Über 100%_x")]))
                predicates.append(("$0 \(op)\(modifier) tags", [.string("ab")]))
                predicates.append(("NOT ('abc' \(op)\(modifier) tags)", []))
            }
        }
        for modifier in ["", "[c]", "[d]", "[cd]"] {
            for (subject, pattern) in [("name", "friend.name"), ("friend.name", "name"), ("name", "name"), ("name", "tags"),
                                       ("ANY tags", "name"), ("NONE dogs.name", "name"), ("name", "dogs.name")] {
                predicates.append(("\(subject) LIKE\(modifier) \(pattern)", []))
            }
        }
        var matched = 0
        for (predicate, arguments) in predicates {
            let text = "Person where \(predicate) SORT(id)"
            let expected: [Int64]
            expected = try store.read { try PostgresFixtures.ids($0.query(text, arguments: arguments)) }
            if !expected.isEmpty { matched += 1 }
            #expect(PostgresFixtures.ids(try postgres.objects(text, arguments: arguments)) == expected, "\(text) \(arguments)")
        }
        #expect(matched > predicates.count / 3)
    }

    @Test(arguments: [UInt64(4), 5])
    func aggregateStatementsAgreeWithAStore(seed: UInt64) throws {
        let (store, postgres) = try Self.load(seed: seed)
        var compared = 0
        for round in 0..<120 {
            var generator = Generator(random: PostgresFixtures.Random(state: seed &* 104_729 &+ UInt64(round)))
            let function = generator.random.pick(["sum", "avg", "min", "max"])
            let paths = function == "min" || function == "max" ? ["age", "score", "born", "friend.age"] : ["age", "score", "friend.age"]
            let path = generator.random.pick(paths)
            let predicate = generator.random.chance(20) ? "TRUEPREDICATE" : generator.predicate()
            let text = "\(function) Person.\(path) where \(predicate)"
            let storeAnswer = Result { try store.read { snapshot -> Value in
                let results = try snapshot.objects("Person", where: predicate, arguments: generator.arguments)
                switch function {
                case "sum": return try results.sum(of: path)
                case "avg": return try results.average(of: path)
                case "min": return try results.min(of: path)
                default: return try results.max(of: path)
                }
            } }
            if case .failure(let error) = storeAnswer {
                // The store's error points into the predicate; the statement's into the statement.
                Self.expectRefusal(error, text, shift: text.unicodeScalars.count - predicate.unicodeScalars.count) { _ = try postgres.run(text, arguments: generator.arguments) }
                continue
            }
            guard case .success(let expected) = storeAnswer else { continue }
            guard case .value(let name, let got) = try postgres.run(text, arguments: generator.arguments) else {
                Issue.record("\(text): no value")
                continue
            }
            #expect(name == function)
            compared += 1
            switch (got, expected) {
            case (.double(let a), .double(let b)):
                #expect(a == b || (a.isNaN && b.isNaN) || abs(a - b) <= 1e-9 * Swift.max(1, abs(b)), "\(text) \(generator.arguments): got \(got), expected \(expected)")
            default:
                #expect(got == expected, "\(text) \(generator.arguments): got \(got), expected \(expected)")
            }
        }
        #expect(compared > 80)
    }

    @Test(arguments: [UInt64(6), 7, 8])
    func randomQuestionsAgreeWithAStore(seed: UInt64) throws {
        let (store, postgres) = try Self.load(seed: seed)
        var compared = 0, refused = 0, nonEmpty = 0, failures = 0
        for round in 0..<300 {
            var questions = QuestionGenerator(generator: Generator(random: PostgresFixtures.Random(state: seed &* 15_485_863 &+ UInt64(round))))
            let text = questions.random.chance(50) ? questions.projection() : questions.grouping()
            let arguments = questions.generator.arguments
            let expected: (columns: [String], rows: [JSONObject])
            do {
                expected = try Self.storeRows(store, text, arguments)
            } catch {
                refused += 1
                Self.expectRefusal(error, text) { _ = try postgres.run(text, arguments: arguments) }
                continue
            }
            compared += 1
            guard case .rows(let got) = try postgres.run(text, arguments: arguments) else {
                Issue.record("\(text): not rows")
                continue
            }
            if !expected.rows.isEmpty { nonEmpty += 1 }
            #expect(got.columns == expected.columns, "\(text)")
            let grouped = text.contains("GROUP(")
            let ordered = grouped || text.contains("SORT(")
            let paged = text.contains("LIMIT(") || text.contains("OFFSET(") || text.contains("DISTINCT(")
            let same: Bool
            if ordered {
                same = got.json == expected.rows
            } else if paged {
                // Which objects a page without SORT holds is the store's business.
                same = got.json.count == expected.rows.count
            } else {
                same = got.json.map { JSONValue.object($0).jsonText }.sorted() == expected.rows.map { JSONValue.object($0).jsonText }.sorted()
            }
            if !same {
                Issue.record("\(text) \(arguments)\n  got      \(got.json)\n  expected \(expected.rows)")
                failures += 1
                if failures > 10 { break }
            }
        }
        #expect(compared > 200)
        #expect(nonEmpty > 150)
        #expect(refused > 10)
    }
}
