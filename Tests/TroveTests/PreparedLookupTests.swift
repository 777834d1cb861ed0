import Foundation
import Testing
@testable import Trove

/// A predicate run again with new arguments is answered from its cached template: one indexed
/// equality (`PointLookup`) or one indexed range (`RangeLookup`) reads the index directly.
/// Those answers must be the general path's, for every argument, including the ones they hand
/// back to it (keys that cannot decide, matches past the planner's threshold).
@Suite struct PreparedLookupTests {
    /// Runs `predicate` on the indexed store twice per argument list (the first run may bind;
    /// the second takes the template) and once on the plain store; all must agree.
    private func agree(_ predicate: String, _ argumentLists: [[Value]], indexed: Store, plain: Store,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        for arguments in argumentLists {
            let expected = try plain.read { try $0.objects("Person", where: predicate, arguments: arguments).ids }
            for run in 1...2 {
                let found = try indexed.read { try $0.objects("Person", where: predicate, arguments: arguments).ids }
                #expect(found == expected, "\(predicate) \(arguments) (run \(run))", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func aTemplateOfOneIndexedEqualityAnswersEveryArgumentAsAScanDoes() throws {
        let (indexed, plain) = try IndexDecidedQueryTests.unicodeStores()
        let long = IndexDecidedQueryTests.long
        // ASCII strings the keys decide; others the general path checks: not ASCII, NFD,
        // longer than a key holds, null, and a value no one has.
        let names: [Value] = ["Bob", "bob", "Smith", "", "Smit\u{E1}", "Smita\u{301}", "\u{E9}cole", "e\u{301}cole",
                              .string(long), .string(long + "1"), .null, "nobody"]
        try agree("name == $0", names.map { [$0] }, indexed: indexed, plain: plain)
        try agree("nick == $0", names.map { [$0] }, indexed: indexed, plain: plain)
        // Integers, with doubles that are whole, fractional or out of range, and nulls.
        let numbers: [Value] = [.int(0), .int(2), .int(4), .double(2.0), .double(2.5), .double(1e30), .null, .string("3")]
        try agree("age == $0", numbers.map { [$0] }, indexed: indexed, plain: plain)
        try agree("level == $0", [[.int(1)], [.int(2)], [.double(1)], [.int(300)]], indexed: indexed, plain: plain)
        // The primary key is a point lookup too.
        try agree("id == $0", [[.int(1)], [.int(3)], [.int(14)], [.int(99)], [.double(2)]], indexed: indexed, plain: plain)
        try agree("active == $0", [[.bool(true)], [.bool(false)]], indexed: indexed, plain: plain)
    }

    @Test func aTemplateOfOneIndexedRangeAnswersEveryArgumentAsAScanDoes() throws {
        let (indexed, plain) = try IndexDecidedQueryTests.unicodeStores()
        let bounds: [[Value]] = [["Bo", "Bp"], ["A", "Z"], ["Smi", "Smj"], ["", "~"], ["b", "c"], ["Z", "A"],
                                 ["Smit\u{E1}", "Z"], ["e", "\u{E9}d"], ["Smith", "Smith"]]
        try agree("name >= $0 AND name < $1", bounds, indexed: indexed, plain: plain)
        try agree("name > $0 AND name <= $1", bounds, indexed: indexed, plain: plain)
        try agree("name BETWEEN {$0, $1}", bounds, indexed: indexed, plain: plain)
        try agree("name >= $0", bounds.map { [$0[0]] }, indexed: indexed, plain: plain)
        try agree("age >= $0 AND age < $1", [[.int(1), .int(3)], [.int(0), .int(9)], [.double(0.5), .double(2.5)], [.int(3), .int(1)]],
                  indexed: indexed, plain: plain)
        try agree("level > $0", [[.int(0)], [.int(-1)], [.double(1.5)]], indexed: indexed, plain: plain)
    }

    @Test func asciiEntriesBelowTheLowerBoundAreSkippedNotReturned() throws {
        // A string range is read from a shorter prefix of its lower bound (where decomposed
        // strings may sort); the ASCII entries met before the bound are not matches.
        let names = ["Sm", "Smi", "Smia", "Smit", "Smith", "Smithy", "Smiz", "Smj", "Sn", "a\u{0}b", "a"]
            + (0..<40).map { "Zz\($0)" }
        let (indexed, plain) = try IndexDecidedQueryTests.stores { tx in
            for (i, name) in names.enumerated() {
                try tx.insert("Person", ["id": .int(Int64(i)), "name": .string(name), "level": .int(0), "active": .bool(true)])
            }
        }
        let bounds: [[Value]] = [["Smith", "Smj"], ["Smit", "Smiz"], ["Smia", "Smit"], ["Smj", "Sn"], ["Sm", "Smith"], ["a", "b"]]
        try agree("name >= $0 AND name < $1", bounds, indexed: indexed, plain: plain)
        try agree("name > $0 AND name <= $1", bounds, indexed: indexed, plain: plain)
    }

    @Test func aRangeFoundInStringOrderCountsAtOnceAndReadsInKeyOrder() throws {
        // Inserted against the names' order, so the index hands the keys back reversed. 200
        // objects keep 20 matches under the planner's threshold: the lookup answers them.
        let names = (0..<200).map { "Name\(String(format: "%03d", 199 - $0))" }
        let (indexed, _) = try IndexDecidedQueryTests.stores { tx in
            for (i, name) in names.enumerated() {
                try tx.insert("Person", ["id": .int(Int64(i)), "name": .string(name), "level": .int(0), "active": .bool(true)])
            }
        }
        try indexed.read { s in
            for run in 1...2 {   // the second run takes the cached template's RangeLookup
                let results = try s.objects("Person", where: "name >= $0 AND name < $1", "Name050", "Name070")
                #expect(results.count == 20, "run \(run)")
                #expect(!results.isEmpty)
                let copy = results
                #expect(results.ids == Array(130...149), "run \(run)")
                #expect(copy.ids == results.ids)
                #expect(results.count == 20)
                #expect(try results.last?.int("id") == 149)
            }
        }
    }

    @Test func aStringPrimaryKeyAnswersEqualitiesAndRangesAsTheGeneralPathDoes() throws {
        let schema = try Schema(jsonData: Array("""
            {"schemaVersion": 1, "models": [{"name": "Tag", "primaryKey": "code", "properties": {"code": "string", "n": "int"}}]}
            """.utf8))
        let store = try Store(configuration: .inMemory(schema: schema))
        let codes = ["a", "ab", "abc", "abd", "b", "ba", "B", "e\u{301}t\u{E9}", "\u{E9}t\u{E9}", "ez", "f", "zz", "a\u{0}b", ""]
        try store.write { tx in
            for (i, code) in codes.enumerated() { try tx.insert("Tag", ["code": .string(code), "n": .int(Int64(i))]) }
        }
        for (lo, hi) in [("a", "b"), ("ab", "abd"), ("", "~"), ("e", "f"), ("b", "a"), ("a", "a\u{0}c"), ("A", "C")] {
            for predicate in ["code >= $0 AND code < $1", "code > $0 AND code <= $1", "code BETWEEN {$0, $1}"] {
                let expected = try store.read { s in
                    try s.query("Tag where \(predicate)", arguments: [.string(lo), .string(hi)]).map { try $0.string("code") ?? "" }
                }
                for run in 1...2 {
                    let found = try store.read { s in
                        try s.objects("Tag", where: predicate, .string(lo), .string(hi)).map { try $0.string("code") ?? "" }
                    }
                    #expect(found == expected, "\(predicate) \(lo) \(hi) (run \(run))")
                }
            }
        }
        for code in codes + ["zzz", "\u{E9}t\u{E9}"] {
            let expected = try store.read { try $0.query("Tag where code == $0", arguments: [.string(code)]).map { try $0.int("n") } }
            let found = try store.read { try $0.objects("Tag", where: "code == $0", .string(code)).map { try $0.int("n") } }
            #expect(found == expected, "\(code)")
        }
    }

    @Test func manyMatchesFallBackToTheScanThePlannerWouldChoose() throws {
        let fill: (Transaction) throws -> Void = { tx in
            for i in 0..<200 {
                try tx.insert("Person", ["id": .int(Int64(i)), "name": .string(i % 10 == 0 ? "Rare" : "Common"),
                                         "age": .int(Int64(i % 3)), "level": .int(0), "active": .bool(true)])
            }
        }
        let (indexed, plain) = try IndexDecidedQueryTests.stores(fill)
        try agree("name == $0", [["Common"], ["Rare"], ["Common"]], indexed: indexed, plain: plain)
        try agree("age >= $0 AND age < $1", [[.int(0), .int(3)], [.int(1), .int(2)]], indexed: indexed, plain: plain)
        // The plan names the access the lookups take.
        let common = try indexed.read { try $0.explain("Person where name == 'Common'").access }
        let rare = try indexed.read { try $0.explain("Person where name == 'Rare'").access }
        #expect(common == .scan)
        #expect(rare == .index(property: "name"))
    }

    @Test func aBadArgumentToACachedTemplateThrowsAsTheFirstRunDid() throws {
        let (indexed, _) = try IndexDecidedQueryTests.unicodeStores()
        try indexed.read { s in
            _ = try s.objects("Person", where: "age >= $0 AND age < $1", .int(1), .int(2))
            #expect(throws: QueryError.self) { try s.objects("Person", where: "age >= $0 AND age < $1", .null, .int(2)) }
            #expect(throws: QueryError.self) { try s.objects("Person", where: "age >= $0 AND age < $1", .int(1)) }
            // The second bound fails after the first was typed: the lookup releases the first.
            #expect(throws: QueryError.self) { try s.objects("Person", where: "age >= $0 AND age < $1", .int(1), "x") }
            _ = try s.objects("Person", where: "name >= $0 AND name < $1", "A", "C")
            #expect(throws: QueryError.self) { try s.objects("Person", where: "name >= $0 AND name < $1", "A", .int(3)) }
            #expect(try s.objects("Person", where: "name >= $0 AND name < $1", "A", "C").count
                == s.objects("Person", where: "name >= 'A' AND name < 'C'").count)
            _ = try s.objects("Person", where: "name == $0", "Bob")
            #expect(throws: QueryError.self) { try s.objects("Person", where: "name == $0", .int(3)) }
            #expect(throws: QueryError.self) { try s.objects("Person", where: "name == $0") }
        }
    }

    @Test func lookupsSeeOnlyTheirSnapshot() throws {
        let (indexed, _) = try IndexDecidedQueryTests.unicodeStores()
        let before = try indexed.beginRead()
        _ = try before.objects("Person", where: "name == $0", "Bob").ids
        try indexed.write { tx in
            try tx.insert("Person", ["id": .int(500), "name": "Bob", "level": .int(0), "active": .bool(true)])
            // A write transaction sees its own insert.
            #expect(try tx.objects("Person", where: "name == $0", "Bob").ids.last == 500)
            #expect(try tx.objects("Person", where: "id >= $0 AND id < $1", .int(500), .int(501)).ids == [500])
        }
        let after = try indexed.read { try $0.objects("Person", where: "name == $0", "Bob").ids }
        let still = try before.objects("Person", where: "name == $0", "Bob").ids
        #expect(after == still + [500])
    }
}
