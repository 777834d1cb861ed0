import Foundation
import Testing
@testable import Trove

/// Queries an index answers alone (its keys decide the comparison, so no record is read) give
/// what a scan gives, and entries the keys cannot decide (truncated strings, strings that are
/// not ASCII, other conjuncts) are still checked against the object.
@Suite struct IndexDecidedQueryTests {
    /// Runs `statement` on the indexed store (with every index preferred, too) and on the plain
    /// one; all must agree. Returns the plan with every index preferred (the stores are small).
    @discardableResult
    static func agree(_ statement: String, _ arguments: [Value] = [], indexed: Store, plain: Store,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> QueryPlan {
        let viaScan = try plain.read { try $0.query(statement, arguments: arguments).ids }
        let viaIndex = try indexed.read { try $0.query(statement, arguments: arguments).ids }
        let (preferred, plan) = try indexed.read { s in
            let (results, plan) = try QueryExecutor(snapshot: s, prefersIndexes: true).run(statement, arguments: arguments)
            return (results.ids, plan)
        }
        #expect(viaIndex == viaScan, "\(statement)\n\(plan)", sourceLocation: sourceLocation)
        #expect(preferred == viaScan, "\(statement) (every index)", sourceLocation: sourceLocation)
        // The convenience API takes the same path.
        if let whereRange = statement.range(of: " where ") {
            let predicate = String(statement[whereRange.upperBound...])
            let viaObjects = try indexed.read { try $0.objects("Person", where: predicate, arguments: arguments).ids }
            #expect(viaObjects == viaScan, "\(statement) (objects(where:))", sourceLocation: sourceLocation)
        }
        return plan
    }

    static func stores(_ fill: (Transaction) throws -> Void) throws -> (indexed: Store, plain: Store) {
        let indexed = try Store(configuration: .inMemory(schema: try QueryFixtures.schema(indexed: true)))
        let plain = try Store(configuration: .inMemory(schema: try QueryFixtures.schema(indexed: false)))
        try indexed.write(fill)
        try plain.write(fill)
        return (indexed, plain)
    }

    static let long = String(repeating: "L", count: 450)

    /// People with names that challenge keys: NFC and NFD spellings, strings longer than a
    /// key holds, nulls, and deleted objects.
    static func unicodeStores() throws -> (indexed: Store, plain: Store) {
        let names = ["Smith", "Smithy", "Smit", "Smita\u{301}", "Smit\u{E1}", "Smiu", "Smi", "e\u{301}cole", "\u{E9}cole",
                     "ecole", "Ecole", long + "1", long + "2", long, "Bob", "bob", "Bo", "", "Zo\u{EB}", "Zoe\u{308}", "f"]
        return try stores { tx in
            for (i, name) in names.enumerated() {
                try tx.insert("Person", ["id": .int(Int64(i + 1)), "name": .string(name),
                                         "nick": i % 3 == 0 ? .null : .string(names[(i * 7) % names.count]),
                                         "age": i % 4 == 0 ? .null : .int(Int64(i % 5)), "level": .int(Int64(i % 3)),
                                         "active": .bool(i % 2 == 0)])
            }
            for id in [3, 14] { _ = try tx.delete("Person", primaryKey: .int(Int64(id))) }
        }
    }

    @Test func equalityOnAnIndexIsDecidedByItsKeys() throws {
        let (indexed, plain) = try Self.unicodeStores()
        for statement in ["Person where name == 'Bob'", "Person where name == 'Smith'", "Person where level == 1",
                          "Person where age == 2", "Person where age == nil", "Person where nick == nil",
                          "Person where name == '\u{E9}cole'", "Person where name == 'e\u{301}cole'", "Person where name == 'Smit'",
                          "Person where name IN {'Bob', 'Smiu', 'Zo\u{EB}'}", "Person where age IN {1, 3, nil}"] {
            let plan = try Self.agree(statement, indexed: indexed, plain: plain)
            #expect(!plan.isScan, "\(plan)")
            #expect(plan.description.contains("(decided by the index)"), "\(plan)")
            #expect(plan.examinedRows == plan.actualRows, "\(plan)")
        }
    }

    @Test func deletedObjectsLeaveTheIndexAnswer() throws {
        let (indexed, plain) = try Self.unicodeStores()
        // "Smit" (id 3) was deleted: the index no longer holds it.
        let plan = try Self.agree("Person where name == 'Smit'", indexed: indexed, plain: plain)
        #expect(plan.actualRows == 0)
        try indexed.write { tx in _ = try tx.delete("Person", primaryKey: .int(1)) }
        try plain.write { tx in _ = try tx.delete("Person", primaryKey: .int(1)) }
        #expect(try Self.agree("Person where name == 'Smith'", indexed: indexed, plain: plain).actualRows == 0)
        #expect(try indexed.read { try $0.objects("Person", where: "name == $0", "Smithy").count } == 1)
    }

    @Test func stringsLongerThanAKeyAreCheckedOnTheObject() throws {
        let (indexed, plain) = try Self.unicodeStores()
        for argument in [Self.long + "1", Self.long + "2", Self.long, Self.long + "3"] {
            let plan = try Self.agree("Person where name == $0", [.string(argument)], indexed: indexed, plain: plain)
            #expect(!plan.isScan)
            if argument == Self.long + "1" { #expect(plan.actualRows == 1) }
            // A constant longer than a key: the key range holds every string sharing its first bytes.
            if argument.utf8.count > IndexKey.maxValueBytes {
                #expect(!plan.description.contains("(decided by the index)"), "\(plan)")
                #expect(plan.examinedRows > plan.actualRows, "\(plan)")
            }
        }
    }

    @Test func modifiersAreNeverDecidedByTheIndex() throws {
        let (indexed, plain) = try Self.unicodeStores()
        for statement in ["Person where name ==[c] 'bob'", "Person where name ==[d] 'ecole'", "Person where name ==[cd] 'ECOLE'",
                          "Person where name BEGINSWITH[c] 'sm'", "Person where name IN[c] {'bob', 'smith'}"] {
            let plan = try Self.agree(statement, indexed: indexed, plain: plain)
            #expect(!plan.description.contains("(decided by the index)"), "\(plan)")
        }
    }

    @Test func unionsOfOrOperandsAreDecidedWhenEveryOperandIs() throws {
        let (indexed, plain) = try Self.unicodeStores()
        let decided = try Self.agree("Person where name == 'Bob' OR age == 2 OR name == 'Bob' OR id == 5",
                                     indexed: indexed, plain: plain)
        #expect(decided.description.contains("UNION OF 4 LOOKUPS"), "\(decided)")
        #expect(decided.description.contains("(decided by the index)"), "\(decided)")
        // An operand with a conjunct the index does not decide: its candidates are checked.
        let mixed = try Self.agree("Person where name == 'Bob' OR (age == 2 AND active == true) OR name BEGINSWITH 'Sm'",
                                   indexed: indexed, plain: plain)
        #expect(!mixed.isScan, "\(mixed)")
        #expect(!mixed.description.contains("(decided by the index)"), "\(mixed)")
    }

    @Test func otherConjunctsAreCheckedOnTheObject() throws {
        let (indexed, plain) = try Self.unicodeStores()
        let plan = try Self.agree("Person where name == 'Bob' AND active == false", indexed: indexed, plain: plain)
        #expect(plan.access == .index(property: "name"))
        #expect(!plan.description.contains("(decided by the index)"))
    }

    @Test func rangesOnOneIndexedPropertyAreOneScan() throws {
        let (indexed, plain) = try Self.unicodeStores()
        let plan = try Self.agree("Person where name >= 'Smith' AND name < 'Smiu'", indexed: indexed, plain: plain)
        #expect(plan.access == .index(property: "name"), "\(plan)")
        #expect(plan.description.contains("name >= \"Smith\" AND name < \"Smiu\""), "\(plan)")
        // "Smita" + U+0301 sorts below "Smith" by its bytes, but its NFC form "Smitá" is in range.
        let names = try indexed.read { try $0.objects("Person", where: "name >= 'Smith' AND name < 'Smiu'").map { try $0.string("name")! } }
        #expect(names.contains("Smita\u{301}"))
        #expect(names.contains("Smithy"))
        #expect(!names.contains("Smiu"))
        for statement in ["Person where name >= 'Bo' AND name < 'Bob'", "Person where name > 'Bo' AND name <= 'Bob'",
                          "Person where name BETWEEN {'Bob', 'Smit'}", "Person where name >= 'e' AND name < 'f'",
                          "Person where name > 'Smit' AND name < 'Smith' AND name != 'x'", "Person where name < 'Smi'",
                          "Person where name >= 'Smit' AND name < 'Smiu' AND name > 'Smita'", "Person where name > 'z'",
                          "Person where name >= 'Z' AND name < 'a'", "Person where name >= '\(Self.long)' AND name < 'M'",
                          "Person where name >= 'b' AND name < 'a'", "Person where name BEGINSWITH 'Smit'",
                          "Person where name BEGINSWITH 'e'", "Person where name BEGINSWITH '\u{E9}'",
                          "Person where age >= 1 AND age < 3", "Person where age > 0.5 AND age <= 3.5 AND level == 1",
                          "Person where level BETWEEN {1, 2} AND level < 2"] {
            try Self.agree(statement, indexed: indexed, plain: plain)
        }
        let decided = try Self.agree("Person where age >= 1 AND age < 3", indexed: indexed, plain: plain)
        #expect(decided.description.contains("(decided by the index)"), "\(decided)")
    }

    @Test func nonASCIIBoundsDoNotUseTheIndexForRanges() throws {
        let (indexed, plain) = try Self.unicodeStores()
        let plan = try Self.agree("Person where name >= '\u{E9}' AND name < '\u{FF}'", indexed: indexed, plain: plain)
        #expect(plan.isScan)
    }

    @Test func boundArgumentsAreReadAfreshOnEachRun() throws {
        let (indexed, plain) = try Self.unicodeStores()
        for name in ["Bob", "Smith", "nobody", "e\u{301}cole"] {
            try Self.agree("Person where name == $0", [.string(name)], indexed: indexed, plain: plain)
        }
        for (lower, upper) in [("Bo", "Bp"), ("Smit", "Smiu"), ("a", "z")] {
            try Self.agree("Person where name >= $0 AND name < $1", [.string(lower), .string(upper)], indexed: indexed, plain: plain)
        }
    }
}

/// `objects(_:where:)` binds a predicate once per model and types only the arguments on later
/// calls: the answers and the errors are those of binding afresh.
@Suite struct BoundQueryTemplateTests {
    static func error(_ body: () throws -> Void) -> String? {
        do { try body() } catch { return "\(error)" }
        return nil
    }

    @Test func newArgumentsGiveTheAnswersAndErrorsOfAFreshBinding() throws {
        let store = try QueryFixtures.store(indexed: true, seed: 3)
        // A text no other test uses, so that the first call binds it afresh.
        let text = "age == $0 AND name != $1 AND level BETWEEN {$2, 4}  "
        try store.read { s in
            let fresh = Self.error { _ = try s.objects("Person", where: text, 3, "x", "not a number") }
            #expect(fresh != nil)
            for (age, level) in [(3, 0), (5, -2), (7, 1)] {
                let cached = try s.objects("Person", where: text, .int(Int64(age)), "Bob", .int(Int64(level))).ids
                let expected = try s.query("Person where age == \(age) AND name != 'Bob' AND level BETWEEN {\(level), 4}").ids
                #expect(cached == expected)
            }
            #expect(Self.error { _ = try s.objects("Person", where: text, 3, "x", "not a number") } == fresh)
            let missing = Self.error { _ = try s.objects("Person", where: text, 3) }
            #expect(missing?.contains("no value for $1") == true, "\(missing ?? "")")
            #expect(Self.error { _ = try s.objects("Person", where: text, nil, "x", nil) } != nil)
        }
    }

    @Test func theSameTextOnAnotherModelIsBoundForThatModel() throws {
        let store = try QueryFixtures.store(indexed: true, seed: 3)
        try store.read { s in
            for name in ["Ada", "Bob", "Rex"] {
                let people = try s.objects("Person", where: "name == $0 ", .string(name)).ids
                #expect(people == (try s.query("Person where name == $0", arguments: [.string(name)]).ids))
                let dogs = try s.objects("Dog", where: "name == $0 ", .string(name)).map { try $0.int("id")! }
                #expect(dogs == (try s.query("Dog where name == $0", arguments: [.string(name)]).map { try $0.int("id")! }))
            }
        }
    }

    @Test func listArgumentsAndFilteredResultsAreTypedAgain() throws {
        let store = try QueryFixtures.store(indexed: true, seed: 3)
        try store.read { s in
            for names in [["Ada", "Bob"], ["école", "Zoë", "nobody"], []] {
                let list = Value.list(names.map { .string($0) })
                let got = try s.objects("Person", where: "name IN $0 OR nick IN $0", list).ids
                #expect(got == (try s.query("Person where name IN $0 OR nick IN $0", arguments: [list]).ids))
                let filtered = try s.objects("Person").filter("name IN $0", list).ids
                #expect(filtered == (try s.query("Person where name IN $0", arguments: [list]).ids))
            }
        }
    }
}
