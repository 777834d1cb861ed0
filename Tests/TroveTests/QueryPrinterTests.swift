import Testing
@testable import Trove

@Suite("Query printer")
struct QueryPrinterTests {
    @Test(arguments: [
        ("age>3", "age > 3"),
        ("age = 3", "age == 3"),
        ("age <> 3", "age != 3"),
        ("age =< 3 && age => 1", "age <= 3 AND age >= 1"),
        ("name beginswith[cd] 'x'", #"name BEGINSWITH[cd] "x""#),
        ("name like[DC] 'a*'", #"name LIKE[cd] "a*""#),
        ("a == 1 || b == 2 && c == 3", "a == 1 OR b == 2 AND c == 3"),
        ("(a == 1 || b == 2) && c == 3", "(a == 1 OR b == 2) AND c == 3"),
        ("a == 1 || (b == 2 || c == 3)", "a == 1 OR (b == 2 OR c == 3)"),
        ("!(a == 1 && b == 2)", "NOT (a == 1 AND b == 2)"),
        ("! a == 1", "NOT a == 1"),
        ("some tags.name == 'x'", #"ANY tags.name == "x""#),
        ("none tags.name == 'x'", #"NONE tags.name == "x""#),
        ("a == YES AND b == no AND c == NULL", "a == true AND b == false AND c == nil"),
        ("a == 0x10", "a == 16"),
        ("a == 1e3", "a == 1e3"),
        ("a == 1.5e-7", "a == 1.5e-7"),
        ("a in {1,'b' , $2}", #"a IN {1, "b", $2}"#),
        ("a between {1,2}", "a BETWEEN {1, 2}"),
        ("#in == 1 AND x.any == 2", "#in == 1 AND x.#any == 2"),
        (#"s == 'a"b\'c\\d\te'"#, #"s == "a\"b'c\\d\te""#),
        ("s == '\u{1}\u{7F}\n'", #"s == "\u0001\u007F\n""#),
        ("items.@SUM.price > 1", "items.@sum.price > 1"),
        ("subquery(dogs,$d,$d.age>1).@count==0", "SUBQUERY(dogs, $d, $d.age > 1).@count == 0"),
        ("truepredicate", "TRUEPREDICATE"),
    ])
    func canonicalText(input: String, canonical: String) throws {
        #expect(try QueryParser.parsePredicate(input).description == canonical)
    }

    @Test func canonicalQueryText() throws {
        #expect(try QueryParser.parseQuery("Person WHERE age>3 sort(age, name descending) distinct(a,b) limit(5)").description
            == "Person where age > 3 SORT(age ASC, name DESC) DISTINCT(a, b) LIMIT(5)")
        #expect(try QueryParser.parseQuery("Person limit(5)").description == "Person LIMIT(5)")
        #expect(try QueryParser.parseQuery("Person").description == "Person")
    }

    static let roundTripInputs = [
        "age > 3",
        "5 < age",
        "name ==[c] 'Ärger' AND NOT (age < 1 OR age > 99)",
        "a == 1 AND b == 2 AND (c == 3 AND d == 4) OR e == 5 OR (f == 6 OR g == 7)",
        "NOT NOT !a == 1",
        "(((a == 1)))",
        "ANY tags.name CONTAINS[cd] 'x' AND ALL scores >= 1.5 AND NONE dogs.age == nil",
        "name IN {'a', \"b\", 3, -4.25, nil, TRUE, NO, $0}",
        "'x' IN tags",
        "age BETWEEN {$0, $1}",
        "ANY scores BETWEEN {-1, 1e10}",
        "dogs.@count > 2 AND items.@sum.price < 10 AND items.@avg.price > 1 AND s.@min < 0 AND s.@max > 0",
        "name.@size == 0",
        "SUBQUERY(dogs, $d, $d.age > 1 AND SUBQUERY($d.toys, $t, $t == $d.name).@count == 0).@count == 1",
        "a == 9223372036854775807 AND b == -9223372036854775808",
        "a == 5e-324 AND b == 1.7976931348623157e308 AND c == -0.0",
        "s == 'tab\\there\\nnewline \\u00e9 \\uD83D\\uDE00 \\\\ \\' \"'",
        "s MATCHES '^\\\\d+$' AND s LIKE '?*' AND s ENDSWITH[d] 'é'",
        "#where == 1 AND #sort.#limit == 2 AND owner.#in.#AND == 3",
        "TRUEPREDICATE OR FALSEPREDICATE",
        "größe > 3 AND 名前 == '名'",
    ]

    @Test(arguments: roundTripInputs)
    func predicatesSurviveAPrintParseRoundTrip(input: String) throws {
        let parsed = try QueryParser.parsePredicate(input)
        let printed = parsed.description
        #expect(try QueryParser.parsePredicate(printed) == parsed)
        #expect(try QueryParser.parsePredicate(printed).description == printed)
    }

    @Test(arguments: [
        "Person",
        "Person where age > 3",
        "Person SORT(age DESC)",
        "Person where a == 1 OR b == 2 SORT(a ASC, b.c DESC) DISTINCT(a, b.c) LIMIT(0)",
        "Dog DISTINCT(owner.name) LIMIT(100)",
        "Airport where state == 'TX' SORT(iata ASC) OFFSET(50) LIMIT(50)", "Dog OFFSET(3)",
        "where where where == 1 SORT(sort) DISTINCT(distinct) LIMIT(1)",
    ])
    func queriesSurviveAPrintParseRoundTrip(input: String) throws {
        let parsed = try QueryParser.parseQuery(input)
        #expect(try QueryParser.parseQuery(parsed.description) == parsed)
    }

    @Test func equalityIgnoresSourcePositions() throws {
        #expect(try QueryParser.parsePredicate("a==1") == QueryParser.parsePredicate("   a   ==   1"))
        #expect(try QueryParser.parsePredicate("a==1").hashValue == QueryParser.parsePredicate("   a   ==   1").hashValue)
        #expect(try QueryParser.parsePredicate("a==1") != QueryParser.parsePredicate("a==2"))
    }

    @Test func astBuiltInCodePrints() {
        let predicate = QueryPredicate.and([
            .comparison(.init(quantifier: .any, .keyPath("tags.name"), .beginsWith, options: .caseInsensitive, .string("a"))),
            .not(.comparison(.init(.keyPath("age"), .in, .list([.int(1), .parameter(0)])))),
        ])
        #expect(predicate.description == #"ANY tags.name BEGINSWITH[c] "a" AND NOT age IN {1, $0}"#)
    }
}
