import Foundation
import Testing

/// Questions through the built binary: aggregates print a bare value and SELECT or GROUP
/// queries print objects keyed by their items, as the shell contract's "Questions" says.
@Suite struct QuestionOutputTests {
    let w: Workspace
    init() throws { w = try Workspace() }

    /// A People store with three people (one without an age or a birthdate) and three dogs.
    func people() throws {
        let r = try w.run(["db", "-s", Workspace.schema("People"), """
            insert Person [{"id": 1, "name": "Ann", "birthdate": "1990-05-01T00:00:00Z", "age": 31},
                           {"id": 2, "name": "Bob"},
                           {"id": 3, "name": "Cy", "birthdate": "1985-01-02T00:00:00Z", "age": 40}]
            """])
        #expect(r.status == 0, "\(r.err)")
        let dogs = try w.run(["db", #"insert Dog [{"name": "Rex", "age": 3}, {"name": "Fido", "age": 3}, {"name": "Max", "age": 5}]"#])
        #expect(dogs.status == 0, "\(dogs.err)")
    }

    @Test func anAggregatePrintsABareValueInJSONJSONLinesAndCSV() throws {
        try people()
        for mode in ["--json", "--jsonl", "--csv"] {
            #expect(try w.run(["db", mode, "sum Person.age"]).out == "71\n", "\(mode)")
            #expect(try w.run(["db", mode, "avg Person.age"]).out == "35.5\n", "\(mode)")
            #expect(try w.run(["db", mode, "max Person.age where name == 'Ann'"]).out == "31\n", "\(mode)")
            #expect(try w.run(["db", mode, "min Person.age where age == nil"]).out == "null\n", "\(mode)")
            #expect(try w.run(["db", mode, "avg Dog.age where age > 10"]).out == "null\n", "\(mode)")
        }
        // A date is its ISO 8601 string: a JSON string in json and jsonl, a bare field in csv.
        #expect(try w.run(["db", "--json", "max Person.birthdate"]).out == "\"1990-05-01T00:00:00Z\"\n")
        #expect(try w.run(["db", "--jsonl", "min Person.birthdate"]).out == "\"1985-01-02T00:00:00Z\"\n")
        #expect(try w.run(["db", "--csv", "max Person.birthdate"]).out == "1990-05-01T00:00:00Z\n")
    }

    @Test func aSelectPrintsItsItemsInOrderWithACSVHeader() throws {
        try people()
        let query = "Person where age != nil SORT(age DESC) SELECT(age AS years, name)"
        let jsonl = try w.run(["db", "--jsonl", query])
        #expect(jsonl.status == 0, "\(jsonl.err)")
        #expect(jsonl.out == """
            {"years": 40, "name": "Cy"}
            {"years": 31, "name": "Ann"}

            """)
        #expect(try w.run(["db", "--csv", query]).out == "years,name\n40,Cy\n31,Ann\n")
    }

    @Test func aGroupPrintsItsItemsInOrderWithACSVHeader() throws {
        try people()
        let query = "Dog GROUP(age) SELECT(@count AS n, age) SORT(n DESC)"
        let jsonl = try w.run(["db", "--jsonl", query])
        #expect(jsonl.status == 0, "\(jsonl.err)")
        #expect(jsonl.out == """
            {"n": 2, "age": 3}
            {"n": 1, "age": 5}

            """)
        #expect(try w.run(["db", "--csv", query]).out == "n,age\n2,3\n1,5\n")
        // Without SELECT a group holds its key paths and @count.
        #expect(try w.run(["db", "--csv", "Person GROUP(age)"]).out == "age,@count\n,1\n31,1\n40,1\n")
    }

    @Test func aWrongQuestionExitsOneWithTheColumnOfItsMistake() throws {
        try people()
        let cases: [(String, String)] = [
            ("Person SELECT(nme)", "error: column 15: 'Person' has no property 'nme'"),
            ("Person GROUP(agee)", "error: column 14: 'Person' has no property 'agee'"),
            ("Person GROUP(age) SORT(nope)", "error: column 24: SORT of groups takes a SELECT item's name or text or a GROUP key path; 'nope' is neither"),
            ("Person GROUP(age) SELECT(@avg.name)", "error: column 31: @avg applies to numbers; 'name' is string"),
            ("sum Person.birthdate", "error: column 12: sum applies to numbers; 'birthdate' is date"),
            ("Person OFFSET(-1)", "error: column 15: OFFSET takes an integer from 0 to 9223372036854775807"),
            ("Person SELECT(@count)", "error: column 15: @count is a group aggregate: it needs GROUP(...) before SELECT"),
            ("Person SORT(age) SELECT(name) LIMIT(1)", "error: column 31: LIMIT cannot come here: SELECT comes last"),
            ("Person GROUP(age) SORT(age) SELECT(age)", "error: column 29: SELECT cannot come here: under GROUP it comes right after GROUP(...)"),
            ("Person SELECT(name AS \"n\")", "error: column 23: expected a name after 'AS', found a string literal"),
            ("avg Person", "error: column 11: expected '.' and a key path (avg MODEL.KEYPATH) after 'Person', found the end of the statement"),
        ]
        for (statement, message) in cases {
            let r = try w.run(["db", statement])
            #expect(r.status == 1, "\(statement)")
            #expect(r.out.isEmpty, "\(statement)")
            #expect(r.err.hasPrefix(message), "\(statement): \(r.err)")
        }
    }

    @Test func anIntegerSumBeyondTheRangeOfIntExitsOneInsteadOfPrintingAWrappedTotal() throws {
        let big = Int64.max
        let r = try w.run(["db", "-s", Workspace.schema("People"), """
            insert Person [{"id": 1, "name": "Ann", "age": \(big)}, {"id": 2, "name": "Bob", "age": 1}, {"id": 3, "name": "Cy", "age": -2}]
            """])
        #expect(r.status == 0, "\(r.err)")
        let sum = try w.run(["db", "sum Person.age where id < 3"])
        #expect(sum.status == 1)
        #expect(sum.out.isEmpty, "\(sum.out)")
        #expect(sum.err.hasPrefix("error: column 12: the sum of 'age' is out of the range of int"), "\(sum.err)")
        let grouped = try w.run(["db", "--csv", "Person where id < 3 GROUP(bestFriend) SELECT(@sum.age)"])
        #expect(grouped.status == 1)
        #expect(grouped.err.hasPrefix("error: column 51: the sum of 'age' is out of the range of int"), "\(grouped.err)")
        // Past the end and back: the total is exact.
        #expect(try w.run(["db", "sum Person.age"]).out == "\(big - 1)\n")
    }
    /// An aggregate of decimals is a JSON number with every digit (no Double on the way);
    /// in rows, a decimal (property or group aggregate) is a string, as objects carry it.
    @Test func anAggregateOfDecimalsPrintsEveryDigitAsANumber() throws {
        let r = try w.run(["db", "-s", Workspace.schema("AllTypes"), """
            insert AllTypes [{"id": 1, "optDecimal": "12.345678901234567890123", "optString": "a"},
                             {"id": 2, "optDecimal": "0.1", "optString": "a"}, {"id": 3, "optString": "b"}]
            """])
        #expect(r.status == 0, "\(r.err)")
        for mode in ["--json", "--jsonl", "--csv"] {
            #expect(try w.run(["db", mode, "sum AllTypes.optDecimal"]).out == "12.445678901234567890123\n", "\(mode)")
            #expect(try w.run(["db", mode, "max AllTypes.optDecimal"]).out == "12.345678901234567890123\n", "\(mode)")
            #expect(try w.run(["db", mode, "min AllTypes.optDecimal where id == 3"]).out == "null\n", "\(mode)")
            #expect(try w.run(["db", mode, "sum AllTypes.optDecimal where id == 3"]).out == "0\n", "\(mode)")
        }
        let group = "AllTypes GROUP(optString) SELECT(optString, @sum.optDecimal AS total)"
        #expect(try w.run(["db", "--jsonl", group]).out == """
            {"optString": "a", "total": "12.445678901234567890123"}
            {"optString": "b", "total": "0"}

            """)
    }
}
