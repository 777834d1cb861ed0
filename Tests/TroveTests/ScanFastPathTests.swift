import Foundation
import Testing
@testable import Trove

/// The scan's fast paths give the general paths' answers: `AND`s of fixed-width comparisons
/// tested as slot ranges, ASCII `CONTAINS`/`BEGINSWITH`/... on raw bytes, and `SORT` on raw
/// slot words (nulls first ascending, -0 equal to 0, NaN after every number, ties by key).
@Suite struct ScanFastPathTests {
    // MARK: Sorting on raw slots

    /// The keys `sort` orders the people of `snapshot` into, through the raw-slot rows and
    /// through the general rows of values; and whether the raw rows were used.
    static func bothOrders(_ snapshot: Snapshot, _ sort: [(String, Bool)], limit: Int?) throws
        -> (raw: [UInt64], general: [UInt64], usedRaw: Bool) {
        let m = try snapshot.model("Person")
        let binder = QueryBinder(layout: snapshot.layout, arguments: [], statement: nil)
        let paths = try sort.map {
            (try binder.orderingKeyPath(QueryKeyPath($0.0), model: m, clause: "SORT", allowsLinks: false), $0.1)
        }
        let reader = KeyPathReader(snapshot: snapshot)
        let raw = try ResultsOrdering.make(reader, sort: paths, distinct: [], limit: limit)
        let general = ResultsOrdering(sort: try paths.map { (try reader.valueReader($0.0), $0.1) }, distinct: [], limit: limit)
        try snapshot.scan(m) { key, record in
            _ = try raw.accept(record, key)
            _ = try general.accept(record, key)
            return true
        }
        return (raw.finish(), general.finish(), raw.usesRawRows)
    }

    static let rawKeys = ["score", "age", "level", "weight", "born", "active"]

    @Test(arguments: [UInt64(1), 2, 3])
    func rawSortKeysOrderLikeTheGeneralPath(seed: UInt64) throws {
        let store = try QueryFixtures.store(indexed: false, seed: seed)
        try store.read { (s: Snapshot) throws in
            let everyone = try s.count("Person")
            var sorts: [[(String, Bool)]] = []
            for key in Self.rawKeys { sorts += [[(key, true)], [(key, false)]] }
            sorts += [[("active", false), ("score", true)], [("age", true), ("score", false), ("weight", true)],
                      [("level", false), ("born", true)], [("score", false), ("score", true)]]
            for sort in sorts {
                for limit in [nil, 0, 1, 3, 17, everyone - 1, everyone, everyone + 1, 10_000] as [Int?] {
                    let (raw, general, usedRaw) = try Self.bothOrders(s, sort, limit: limit)
                    #expect(usedRaw)
                    #expect(raw == general, "SORT \(sort) LIMIT \(String(describing: limit))")
                    #expect(raw.count == min(limit ?? everyone, everyone))
                }
            }
        }
    }

    @Test func sortKeysThatAreNotFixedWidthUseTheGeneralPath() throws {
        let store = try QueryFixtures.store(indexed: false)
        try store.read { (s: Snapshot) throws in
            for sort in [[("name", true)], [("score", true), ("name", false)], [("balance", true)]] {
                let (raw, general, usedRaw) = try Self.bothOrders(s, sort, limit: 10)
                #expect(!usedRaw)
                #expect(raw == general)
            }
        }
    }

    @Test func topKPutsNullsFirstAscendingLastDescendingAndBreaksTiesByKey() throws {
        let store = try QueryFixtures.smallStore(indexed: false)
        try store.read { (s: Snapshot) throws in
            // Scores: 1: 1.5, 2: null, 3: 3, 4: null. Ages: 1: 36, 2: null, 3: 20, 4: 36.
            #expect(try s.query("Person SORT(score DESC) LIMIT(10)").ids == [3, 1, 2, 4])
            #expect(try s.query("Person SORT(score) LIMIT(3)").ids == [2, 4, 1])
            #expect(try s.query("Person SORT(score DESC) LIMIT(1)").ids == [3])
            #expect(try s.query("Person SORT(age DESC) LIMIT(2)").ids == [1, 4])
            #expect(try s.query("Person SORT(age DESC, level) LIMIT(2)").ids == [1, 4])
            #expect(try s.query("Person SORT(age DESC, level DESC) LIMIT(2)").ids == [4, 1])
            #expect(try s.query("Person SORT(age) LIMIT(100)").ids == [2, 3, 1, 4])
            #expect(try s.query("Person where active == true SORT(score DESC) LIMIT(5)").ids == [3, 1])
            #expect(try s.objects("Person").sorted(by: .descending("score")).ids == [3, 1, 2, 4])
        }
    }

    @Test func negativeZeroTiesWithZeroAndNaNSortsAfterEveryNumber() throws {
        let store = try Store(configuration: .inMemory(schema: try QueryFixtures.schema(indexed: false)))
        let scores: [Value] = [.double(0), .double(.nan), .double(-0.0), .double(-.infinity), .null, .double(.infinity), .double(-1)]
        try store.write { tx in
            for (i, score) in scores.enumerated() {
                try tx.insert("Person", ["id": .int(Int64(i + 1)), "name": "p", "active": true, "level": 0, "score": score,
                                         "weight": score.isNull ? .null : .float(i == 1 ? .nan : Float(i))])
            }
        }
        try store.read { (s: Snapshot) throws in
            #expect(try s.query("Person SORT(score) LIMIT(7)").ids == [5, 4, 7, 1, 3, 6, 2])
            #expect(try s.query("Person SORT(score DESC) LIMIT(7)").ids == [2, 6, 1, 3, 7, 4, 5])
            #expect(try s.query("Person SORT(score DESC) LIMIT(3)").ids == [2, 6, 1])
            for sort in [[("score", true)], [("score", false)], [("weight", true)], [("weight", false), ("score", true)]] {
                for limit in [nil, 1, 2, 4, 7, 8] as [Int?] {
                    let (raw, general, usedRaw) = try Self.bothOrders(s, sort, limit: limit)
                    #expect(usedRaw)
                    #expect(raw == general, "SORT \(sort) LIMIT \(String(describing: limit))")
                }
            }
        }
    }

    // MARK: Fixed-width conjunctions

    struct Person {
        var id: Int64, age: Int64?, level: Int64?, score: Double?, weight: Double?, name: String, born: Date?, active: Bool?
    }

    @Test func rangesOfFixedWidthSlotsMatchTheDecodedValues() throws {
        let store = try QueryFixtures.store(indexed: false, seed: 5, people: 300)
        try store.read { (s: Snapshot) throws in
            let people = try s.objects("Person").map { o in
                Person(id: try o.int("id") ?? -1, age: try o.int("age"), level: try o.int("level"), score: try o.double("score"),
                       weight: try o.double("weight"), name: try o.string("name") ?? "", born: try o.date("born"),
                       active: try o.bool("active"))
            }
            func ids(_ predicate: String, _ arguments: Value...) throws -> [Int64] {
                try s.objects("Person", where: predicate, arguments: arguments).ids
            }
            func expected(_ test: (Person) -> Bool) -> [Int64] { people.filter(test).map(\.id) }
            #expect(try ids("age >= 10 AND age < 30 AND score > 0.5") == expected { p in
                guard let a = p.age, let sc = p.score else { return false }
                return a >= 10 && a < 30 && sc > 0.5
            })
            #expect(try ids("age > 20 AND age > 40 AND age <= 50") == expected { p in p.age.map { $0 > 40 && $0 <= 50 } ?? false })
            #expect(try ids("age BETWEEN {10, 20} AND level == 2") == expected { p in
                (p.age.map { (10...20).contains($0) } ?? false) && p.level == 2
            })
            // -0.0 and 0 are equal; NaN matches no comparison.
            #expect(try ids("score >= 0 AND score <= 0") == expected { p in p.score == 0 })
            #expect(try ids("score == $0", .double(-0.0)) == expected { p in p.score == 0 })
            #expect(try ids("score > $0", .double(.nan)).isEmpty)
            #expect(try ids("score < $0 AND score > -100", .double(.nan)).isEmpty)
            #expect(try ids("age < $0", .int(.min)).isEmpty)
            #expect(try ids("age > $0", .int(.max)).isEmpty)
            #expect(try ids("age >= $0", .int(.min)) == expected { p in p.age != nil })
            // A contradiction, and a conjunction mixing slot ranges with other comparisons.
            #expect(try ids("age > 30 AND age < 20").isEmpty)
            #expect(try ids("age > 30 AND name BEGINSWITH 'A' AND weight < 1") == expected { p in
                guard let a = p.age, let w = p.weight else { return false }
                return a > 30 && w < 1 && p.name.hasPrefix("A")
            })
            let born = Date(timeIntervalSince1970: 86_400.5)
            #expect(try ids("born > $0 AND active == true", .date(born)) == expected { p in
                guard let b = p.born else { return false }
                return b > born && p.active == true
            })
            #expect(try ids("NOT (age >= 10 AND score < 3)") == expected { p in
                !((p.age.map { $0 >= 10 } ?? false) && (p.score.map { $0 < 3 } ?? false))
            })
        }
    }

    @Test func aPropertyAddedLaterReadsAsItsDefaultInRangesStringTestsAndSorts() throws {
        let dir = NSTemporaryDirectory() + "trove-scan-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/store.trove"
        let before = try schemaFromJSON("""
        {"schemaVersion": 0, "models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int"}}]}
        """)
        let after = try schemaFromJSON("""
        {"schemaVersion": 0, "models": [{"name": "Item", "primaryKey": "id", "properties": {
          "id": "int", "rank": {"type": "int", "default": 5}, "weight": "double?",
          "label": {"type": "string", "default": "plain"}, "note": "string?"}}]}
        """)
        do {
            let store = try Store(configuration: .init(path: path, schema: before))
            try store.write { tx in for i in 1...3 { try tx.insert("Item", ["id": .int(Int64(i))]) } }
        }
        let store = try Store(configuration: .init(path: path, schema: after))
        try store.write { tx in
            try tx.insert("Item", ["id": 4, "rank": 7, "weight": 2.5, "label": "fancy", "note": "x"])
            try tx.insert("Item", ["id": 5, "rank": 1, "weight": -1, "label": "PLAIN"])
        }
        try store.read { (s: Snapshot) throws in
            #expect(try s.objects("Item", where: "rank >= 5 AND rank < 6").ids == [1, 2, 3])
            #expect(try s.objects("Item", where: "rank > 4").ids == [1, 2, 3, 4])
            #expect(try s.objects("Item", where: "weight > -5").ids == [4, 5])
            #expect(try s.query("Item SORT(rank DESC) LIMIT(2)").ids == [4, 1])
            #expect(try s.query("Item SORT(rank) LIMIT(5)").ids == [5, 1, 2, 3, 4])
            #expect(try s.query("Item SORT(weight) LIMIT(5)").ids == [1, 2, 3, 5, 4])
            // One string comparison is tested in the scan loop: old records read the default.
            #expect(try s.objects("Item", where: "label CONTAINS[c] 'lai'").ids == [1, 2, 3, 5])
            #expect(try s.objects("Item", where: "label == 'plain'").ids == [1, 2, 3])
            #expect(try s.objects("Item", where: "label != 'plain'").ids == [4, 5])
            #expect(try s.objects("Item", where: "note != 'x'").ids == [1, 2, 3, 5])
            #expect(try s.objects("Item", where: "note BEGINSWITH 'x'").ids == [4])
        }
    }

    // MARK: ASCII string matching

    @Test func asciiContainsAndPrefixesMatchTheFoldingPath() throws {
        let store = try QueryFixtures.store(indexed: false, seed: 9, people: 300)
        try store.read { (s: Snapshot) throws in
            for needle in ["a", "A", "ar", "ADA", "str", "ine", "bob", "e", "Mary Ann", "ry A", "LL", "L1", "LLLLLLLLL2", "", "x?y", "é",
                           "Straße", "break", "smile", "\n"] {
                for op in ["CONTAINS", "BEGINSWITH", "ENDSWITH", "==", "!="] {
                    for options in ["", "[c]", "[cd]"] {
                        let got = try s.objects("Person", where: "name \(op)\(options) $0", .string(needle)).ids
                        let expected = try s.objects("Person").filter { o in
                            let name = try o.string("name") ?? ""
                            let opts: StringComparisonOptions = options == "" ? [] : options == "[c]" ? [.caseInsensitive]
                                : [.caseInsensitive, .diacriticInsensitive]
                            switch op {
                            case "CONTAINS": return StringComparison.contains(name, needle, options: opts)
                            case "BEGINSWITH": return StringComparison.beginsWith(name, needle, options: opts)
                            case "ENDSWITH": return StringComparison.endsWith(name, needle, options: opts)
                            case "==": return StringComparison.equals(name, needle, options: opts)
                            default: return !StringComparison.equals(name, needle, options: opts)
                            }
                        }
                        #expect(got == expected.map { ((try? $0.int("id")) ?? nil) ?? -1 }, "name \(op)\(options) '\(needle)'")
                    }
                }
            }
        }
    }

    /// An in-memory store of `Item`s whose `text` is `texts[id]`.
    static func items(_ texts: [String]) throws -> Store {
        let schema = try schemaFromJSON("""
        {"schemaVersion": 0, "models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int", "text": "string"}}]}
        """)
        let store = try Store(configuration: .inMemory(schema: schema))
        try store.write { tx in
            for (i, text) in texts.enumerated() { try tx.insert("Item", ["id": .int(Int64(i)), "text": .string(text)]) }
        }
        return store
    }

    @Test func aByteOneAboveTheFirstLetterAfterItIsNotAMatch() throws {
        let store = try Self.items(["statue of liberty", "TUESDAY EVENING", "hiatus and more", "a stated fact"])
        try store.read { (s: Snapshot) throws in
            // "tu" and "TU" put 't' + 1 = 'u' right after a 't': neither is "te".
            #expect(try s.objects("Item", where: "text CONTAINS 'te'").ids == [3])
            #expect(try s.objects("Item", where: "text CONTAINS[c] 'te'").ids == [3])
            // The same test inside a compiled predicate (not the scan's own loop).
            #expect(try s.objects("Item", where: "text CONTAINS 'ha' OR id < 0").ids == [])
        }
    }

    @Test func caseInsensitiveSearchesDoNotFoldPunctuationLikeLetters() throws {
        // '@' and '`', '[' and '{', '^' and '~' differ only in 0x20, like 'A' and 'a'.
        let store = try Self.items(["long text x@y here", "long text x`y here", "long text a[b here", "long text a{b here",
                                    "long text p^q here", "long text p~q here", "LONG TEXT QRS HERE"])
        try store.read { (s: Snapshot) throws in
            #expect(try s.objects("Item", where: "text CONTAINS[c] '@y'").ids == [0])
            #expect(try s.objects("Item", where: "text CONTAINS[c] 'x@'").ids == [0])
            #expect(try s.objects("Item", where: "text CONTAINS[c] '`Y'").ids == [1])
            #expect(try s.objects("Item", where: "text CONTAINS[c] '{b'").ids == [3])
            #expect(try s.objects("Item", where: "text CONTAINS[c] 'a['").ids == [2])
            #expect(try s.objects("Item", where: "text CONTAINS[c] '~q'").ids == [5])
            #expect(try s.objects("Item", where: "text CONTAINS[c] 'qrs'").ids == [6])
            #expect(try s.objects("Item", where: "text CONTAINS 'qrs'").ids == [])
        }
    }

    @Test func randomASCIITextsMatchAtEveryPositionLikeTheFoldingPath() throws {
        var rng = QueryFixtures.Random(seed: 77)
        // "c" is "b" with its low bit flipped: a byte a borrow-based zero test confuses with it.
        let alphabet: [Character] = ["a", "A", "b", "B", " ", "c", "C", "z", "\r", "\n", "é"]
        let texts = (0..<400).map { _ in
            let length = Int(rng.next() % 24)
            return String((0..<length).map { _ in
                // Mostly ASCII letters, sometimes CR, LF or a non-ASCII letter.
                let r = Int(rng.next() % 40)
                return r < 35 ? alphabet[r % 7] : alphabet[7 + r % 4]
            })
        }
        let store = try Self.items(texts)
        try store.read { (s: Snapshot) throws in
            for round in 0..<150 {
                let length = round % 6
                let needle = String((0..<length).map { _ in alphabet[Int(rng.next() % 7)] })
                for (op, options) in [("CONTAINS", ""), ("CONTAINS", "[c]"), ("BEGINSWITH", "[c]"), ("ENDSWITH", "[c]"), ("==", "[c]")] {
                    let opts: StringComparisonOptions = options.isEmpty ? [] : [.caseInsensitive]
                    let got = try s.objects("Item", where: "text \(op)\(options) $0", .string(needle))
                        .map { ((try? $0.int("id")) ?? nil) ?? -1 }
                    let expected = texts.indices.filter { i in
                        switch op {
                        case "CONTAINS": StringComparison.contains(texts[i], needle, options: opts)
                        case "BEGINSWITH": StringComparison.beginsWith(texts[i], needle, options: opts)
                        case "ENDSWITH": StringComparison.endsWith(texts[i], needle, options: opts)
                        default: StringComparison.equals(texts[i], needle, options: opts)
                        }
                    }.map { Int64($0) }
                    #expect(got == expected, "text \(op)\(options) '\(needle)'")
                }
            }
        }
    }
}
