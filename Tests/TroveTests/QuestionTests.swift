import Foundation
import Testing
@testable import Trove

/// A small cars data set (nulls included), people with friends and dogs, and the rows the
/// questions of the query language give over them: SELECT, aggregates and GROUP.
enum CarFixtures {
    static let schema = """
    {"schemaVersion": 0, "models": [
      {"name": "Car", "primaryKey": "id", "properties": {
        "id": "int", "name": "string", "mpg": "double?", "cylinders": "int",
        "horsepower": {"type": "int?", "indexed": true}, "year": "int",
        "origin": {"type": "string?", "indexed": true}, "built": "date?", "maker": "Maker?"}},
      {"name": "Maker", "primaryKey": "name", "properties": {"name": "string", "country": "string?"}},
      {"name": "Person", "primaryKey": "id", "properties": {
        "id": "int", "name": "string", "bestFriend": "Person?", "dogs": "Dog[]"}},
      {"name": "Dog", "primaryKey": "id", "properties": {"id": "int", "name": "string", "age": "int"}}
    ]}
    """

    static let day: TimeInterval = 86_400

    static func store() throws -> Store {
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(schema)))
        try store.write { tx in
            let ford = try tx.insert("Maker", ["name": "Ford", "country": "USA"])
            let toyota = try tx.insert("Maker", ["name": "Toyota", "country": nil])
            let cars: [(Int64, String, Value, Int64, Value, Int64, Value, Value?)] = [
                (1, "chevelle", 18, 8, 130, 70, "USA", .reference(ford.reference)),
                (2, "skylark", 15, 8, 165, 70, "USA", nil),
                (3, "corolla", 31, 4, 65, 72, "Japan", .reference(toyota.reference)),
                (4, "civic", 24, 4, 97, 74, "Japan", nil),
                (5, "rx-7", nil, 3, 110, 80, "Japan", nil),
                (6, "golf", 29, 4, nil, 76, "Europe", nil),
                (7, "mystery", 20, 6, 100, 78, nil, nil),
                (8, "supra", 22, 6, 145, 79, "Japan", .reference(toyota.reference)),
            ]
            for (id, name, mpg, cylinders, hp, year, origin, maker) in cars {
                var values: [String: Value] = ["id": .int(id), "name": .string(name), "mpg": mpg, "cylinders": .int(cylinders),
                                               "horsepower": hp, "year": .int(year), "origin": origin]
                if id <= 3 { values["built"] = .date(Date(timeIntervalSince1970: Double(10 - id) * day)) }
                if let maker { values["maker"] = maker }
                try tx.insert("Car", values)
            }
            var dogs: [Value] = []
            for (id, name, age) in [(1, "rex", 3), (2, "fido", 6), (3, "spot", 10)] as [(Int64, String, Int64)] {
                dogs.append(.reference(try tx.insert("Dog", ["id": .int(id), "name": .string(name), "age": .int(age)]).reference))
            }
            let ann = try tx.insert("Person", ["id": 1, "name": "ann", "dogs": .list([dogs[0], dogs[1]])])
            try tx.insert("Person", ["id": 2, "name": "bob", "bestFriend": .reference(ann.reference), "dogs": .list([])])
            try tx.insert("Person", ["id": 3, "name": "cy", "dogs": .list([dogs[2]])])
        }
        return store
    }
}

@Suite("Questions: SELECT, aggregates, GROUP")
struct QuestionTests {
    typealias Row = [(String, Value)]

    static func rows(_ text: String, in store: Store) throws -> [Row] {
        try store.read { try $0.rows(text).map { row in row.pairs.map { ($0.name, $0.value) } } }
    }

    static func same(_ a: [Row], _ b: [Row]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in
            x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        }
    }

    static let projections: [(String, [Row])] = [
        ("Car where origin == \"Japan\" SORT(horsepower DESC) LIMIT(3) SELECT(name, horsepower)",
         [[("name", "supra"), ("horsepower", 145)], [("name", "rx-7"), ("horsepower", 110)], [("name", "civic"), ("horsepower", 97)]]),
        // A null link on the way gives null; a link is its target's primary key.
        ("Car where id <= 3 SORT(id) SELECT(name AS n, maker, maker.name, maker.country)",
         [[("n", "chevelle"), ("maker", "Ford"), ("maker.name", "Ford"), ("maker.country", "USA")],
          [("n", "skylark"), ("maker", nil), ("maker.name", nil), ("maker.country", nil)],
          [("n", "corolla"), ("maker", "Toyota"), ("maker.name", "Toyota"), ("maker.country", nil)]]),
        // Through a list: an array; list aggregates as predicates write them.
        ("Person SORT(id) SELECT(name, bestFriend.name, dogs.@count, dogs.name, dogs.@avg.age, dogs)",
         [[("name", "ann"), ("bestFriend.name", nil), ("dogs.@count", 2), ("dogs.name", ["rex", "fido"]), ("dogs.@avg.age", .double(4.5)), ("dogs", [1, 2])],
          [("name", "bob"), ("bestFriend.name", "ann"), ("dogs.@count", 0), ("dogs.name", []), ("dogs.@avg.age", nil), ("dogs", [])],
          [("name", "cy"), ("bestFriend.name", nil), ("dogs.@count", 1), ("dogs.name", ["spot"]), ("dogs.@avg.age", .double(10)), ("dogs", [3])]]),
        // SORT by a SELECT item's name; the name is the text as written.
        ("Car where cylinders == 8 SORT(power) SELECT(horsepower AS power, mpg)",
         [[("power", 130), ("mpg", .double(18))], [("power", 165), ("mpg", .double(15))]]),
        ("Car where name == \"nothing\" SELECT(name)", []),
    ]

    @Test(arguments: projections.indices)
    func projectionsGiveTheirRows(_ i: Int) throws {
        let (text, expected) = Self.projections[i]
        let store = try CarFixtures.store()
        let got = try Self.rows(text, in: store)
        #expect(Self.same(got, expected), "\(text): \(got)")
    }

    static let groups: [(String, [Row])] = [
        // Without SELECT: the key paths and @count; null is a group, groups in key order.
        ("Car GROUP(origin)",
         [[("origin", nil), ("@count", 1)], [("origin", "Europe"), ("@count", 1)], [("origin", "Japan"), ("@count", 4)], [("origin", "USA"), ("@count", 2)]]),
        // avg ignores nulls; SORT by an item's name.
        ("Car GROUP(origin) SELECT(origin, @count, @avg.mpg AS mpg) SORT(mpg DESC)",
         [[("origin", "Europe"), ("@count", 1), ("mpg", .double(29))], [("origin", "Japan"), ("@count", 4), ("mpg", .double(77.0 / 3))],
          [("origin", nil), ("@count", 1), ("mpg", .double(20))], [("origin", "USA"), ("@count", 2), ("mpg", .double(16.5))]]),
        // SORT by an item's text, LIMIT over groups.
        ("Car GROUP(origin) SELECT(origin, @sum.cylinders, @min.mpg, @max.horsepower) SORT(@sum.cylinders DESC) LIMIT(2)",
         [[("origin", "Japan"), ("@sum.cylinders", 17), ("@min.mpg", .double(22)), ("@max.horsepower", 145)],
          [("origin", "USA"), ("@sum.cylinders", 16), ("@min.mpg", .double(15)), ("@max.horsepower", 165)]]),
        // avg of integers is fractional.
        ("Car where origin == \"Japan\" GROUP(origin) SELECT(@avg.cylinders)", [[("@avg.cylinders", .double(4.25))]]),
        // Over no values: sum 0, avg/min/max null.
        ("Car where id == 5 GROUP(origin) SELECT(origin, @sum.mpg, @avg.mpg, @min.mpg, @max.mpg)",
         [[("origin", "Japan"), ("@sum.mpg", .double(0)), ("@avg.mpg", nil), ("@min.mpg", nil), ("@max.mpg", nil)]]),
        ("Car GROUP(origin, cylinders) SELECT(origin, cylinders, @count AS n) SORT(n DESC, origin) LIMIT(2)",
         [[("origin", "Japan"), ("cylinders", 4), ("n", 2)], [("origin", "USA"), ("cylinders", 8), ("n", 2)]]),
        // A group key through a link, sorted by the key path though it is not selected.
        ("Car GROUP(maker.country) SELECT(@count) SORT(maker.country DESC)", [[("@count", 1)], [("@count", 7)]]),
        ("Car where origin == \"Nowhere\" GROUP(origin)", []),
    ]

    @Test(arguments: groups.indices)
    func groupsGiveTheirRows(_ i: Int) throws {
        let (text, expected) = Self.groups[i]
        let store = try CarFixtures.store()
        let got = try Self.rows(text, in: store)
        #expect(Self.same(got, expected), "\(text): \(got)")
    }

    static let aggregates: [(String, Value)] = [
        ("avg Car.mpg where origin == \"Japan\"", .double(77.0 / 3)),
        ("sum Car.cylinders where origin == \"Japan\"", .int(17)),
        ("avg Car.cylinders", .double(5.375)),
        ("sum Car.cylinders where origin == \"Nowhere\"", .int(0)),
        ("sum Car.mpg where origin == \"Nowhere\"", .double(0)),
        ("avg Car.mpg where origin == \"Nowhere\"", .null),
        ("min Car.mpg where id == 5", .null),
        ("max Car.horsepower", .int(165)),
        ("min Car.horsepower", .int(65)),
        ("MIN Car.built", .date(Date(timeIntervalSince1970: 7 * CarFixtures.day))),
        ("max Car.built", .date(Date(timeIntervalSince1970: 9 * CarFixtures.day))),
        ("sum Car.mpg where maker.name == \"Toyota\"", .double(53)),
    ]

    @Test(arguments: aggregates.indices)
    func aggregatesGiveOneValue(_ i: Int) throws {
        let (text, expected) = Self.aggregates[i]
        let store = try CarFixtures.store()
        let got = try store.read { try $0.aggregate(text) }
        #expect(got == expected, "\(text)")
    }

    @Test func aModelNamedLikeAnAggregateIsStillQueried() throws {
        let text = "sum where x > 1"
        let statement = try QueryParser.parseStatement(text)
        guard case .query(let query) = statement else { Issue.record("\(statement)"); return }
        #expect(query.model.name == "sum")
    }

    @Test func printedQueriesParseBackEqual() throws {
        for text in Self.groups.map(\.0) + Self.projections.map(\.0) {
            let query = try QueryParser.parseQuery(text)
            #expect(try QueryParser.parseQuery(query.description) == query, "\(query)")
        }
    }

    static let errors: [(String, Int, String)] = [
        ("Car SELECT(nme)", 12, "'Car' has no property 'nme'"),
        ("Car GROUP(orign)", 11, "'Car' has no property 'orign'"),
        ("Car GROUP(origin) SORT(nme)", 24, "SORT of groups takes a SELECT item's name or text or a GROUP key path; 'nme' is neither"),
        ("Car GROUP(origin) SORT(@avg.mpg)", 24, "is neither"),
        ("Car SORT(speed) SELECT(name AS n)", 10, "is neither"),
        ("Car GROUP(origin) SELECT(@avg.name)", 31, "@avg applies to numbers; 'name' is string"),
        ("sum Car.built", 9, "sum applies to numbers; 'built' is date"),
        ("avg Car.nme", 9, "'Car' has no property 'nme'"),
        ("Car SELECT(name, @count)", 18, "needs GROUP"),
        ("Car GROUP(origin) SELECT(name)", 26, "not a GROUP key path"),
        // The hint offers only what would be taken: a list's values take no GROUP nor sum.
        ("Person GROUP(name) SELECT(dogs.age)", 27,
         "'dogs.age' is not a GROUP key path: a grouped SELECT holds GROUP's key paths and group aggregates (@count; 'dogs.age' crosses a list, which neither GROUP nor another aggregate takes)"),
        ("Person GROUP(name) SELECT(@sum.dogs.age)", 32, "@sum needs one value per object; 'dogs.age' crosses a list"),
        ("Car GROUP(origin) SELECT(maker)", 26, "(@count; add 'maker' to GROUP to show it)"),
        ("Car GROUP(origin) SELECT(year)", 26, "(@count, @sum.year, @avg.year, @min.year, @max.year)"),
        ("Car GROUP(origin) SELECT(built)", 26, "(@count, @min.built, @max.built)"),
        ("Car GROUP(origin) SELECT(@min.maker)", 31, "@min applies to numbers and dates; 'maker' is an object of Maker"),
        ("Car GROUP(origin) DISTINCT(name)", 19, "DISTINCT does not apply to groups"),
        ("Car GROUP(origin) SELECT(@sum)", 26, "@sum needs a key path"),
        ("Car SELECT(name AS)", 19, "expected a name after 'AS', found ')'"),
        // Each clause in its place, and a message that says which place.
        ("Car SORT(name) SELECT(name) LIMIT(1)", 29, "LIMIT cannot come here: SELECT comes last"),
        ("Car GROUP(origin) SORT(origin) SELECT(origin)", 32, "SELECT cannot come here: under GROUP it comes right after GROUP(...)"),
        ("Car GROUP(origin) LIMIT(1) SORT(origin)", 28, "SORT cannot come here: SORT, OFFSET and LIMIT appear at most once each"),
        ("Car GROUP(origin) SELECT(origin) GROUP(name)", 34, "expected SORT, OFFSET, LIMIT or the end of the statement after ')'"),
        // An aggregate statement without its property.
        ("avg Car", 8, "expected '.' and a key path (avg MODEL.KEYPATH) after 'Car', found the end of the statement"),
        ("SUM Car where mpg > 1", 9, "expected '.' and a key path (SUM MODEL.KEYPATH) after 'Car', found 'where'"),
        // Every column has a name of its own.
        ("Car SELECT(name, name)", 18, "'name' names two SELECT items; give one another name with AS"),
        ("Car SELECT(name, mpg AS name)", 25, "'name' names two SELECT items"),
        ("Car GROUP(origin) SELECT(origin, @count AS origin)", 44, "'origin' names two SELECT items"),
        ("Car GROUP(origin, origin)", 19, "GROUP has 'origin' twice"),
    ]

    @Test(arguments: errors.indices)
    func errorsPointIntoTheStatement(_ i: Int) throws {
        let (text, column, message) = Self.errors[i]
        try Self.expectRefusals([(text, column)], by: try CarFixtures.store(), saying: message)
    }

    @Test func resultsSelectAndGroupAsStatementsDo() throws {
        let store = try CarFixtures.store()
        try store.read { snapshot in
            let japan = try snapshot.objects("Car", where: "origin == 'Japan'")
            let names = try japan.select("name", "maker.name AS maker")
            #expect(names.columns == ["name", "maker"])
            #expect(names.map { $0["name"] } == ["corolla", "civic", "rx-7", "supra"])
            let groups = try snapshot.objects("Car", where: "TRUEPREDICATE").grouped(by: "origin", select: "origin", "@avg.mpg AS mpg")
            #expect(groups.rows == (try snapshot.rows("Car GROUP(origin) SELECT(origin, @avg.mpg AS mpg)")).rows)
            let counts = try japan.grouped(by: ["cylinders"])
            #expect(counts.map { $0.values } == [[3, 1], [4, 2], [6, 1]])
        }
    }

    /// Bad arguments to `select` and `grouped(by:select:)`: (call, argument named, its text,
    /// column in it, message).
    static let argumentErrors: [(([String], [String]) , String, String, Int, String)] = [
        (([], ["name", "maker.nme"]), "select item 2", "maker.nme", 7, "'Maker' has no property 'nme'"),
        (([], ["name AS"]), "select item 1", "name AS", 8, "expected"),
        (([], ["@count"]), "select item 1", "@count", 1, "needs GROUP"),
        ((["origin"], ["origin", "@avg.name AS a"]), "select item 2", "@avg.name AS a", 6, "@avg applies to numbers"),
        ((["origin"], ["name"]), "select item 1", "name", 1, "not a GROUP key path"),
        ((["origin", "cylindrs"], []), "grouped(by:) key path 2", "cylindrs", 1, "'Car' has no property 'cylindrs'"),
        ((["origin"], ["@sum"]), "select item 1", "@sum", 1, "@sum needs a key path"),
        ((["origin"], ["origin", "@count AS origin"]), "select item 2", "@count AS origin", 11, "'origin' names two SELECT items"),
    ]

    @Test(arguments: argumentErrors.indices)
    func badArgumentsToSelectAndGroupedSayWhereInTheArgument(_ i: Int) throws {
        let ((group, items), argument, text, column, message) = Self.argumentErrors[i]
        let store = try CarFixtures.store()
        do {
            _ = try store.read { snapshot in
                let cars = try snapshot.objects("Car", where: "TRUEPREDICATE")
                return group.isEmpty ? try cars.select(items) : try cars.grouped(by: group, select: items)
            }
            Issue.record("no error for \(group) \(items)")
        } catch let error as QueryError {
            #expect(error.message.hasPrefix("\(argument) of '\(text)': "), "\(error.message)")
            #expect(error.message.contains(message), "\(error.message)")
            #expect(error.column == column, "\(error)")
            #expect(error.statement == text)
            #expect(error.description.hasSuffix("\n  \(text)\n  " + String(repeating: " ", count: column - 1) + "^"), "\(error)")
        }
    }

    /// Integers near the ends of `int`, in an indexed property and a list, to sum past them.
    static func extremes() throws -> Store {
        let schema = """
            {"models": [{"name": "N", "properties": {"k": "int", "v": "int?", "w": {"type": "int?", "indexed": true}, "vs": "int[]"}}]}
            """
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(schema)))
        try store.write { tx in
            for (k, v) in [(1, Int64.max), (1, 1), (2, Int64.max), (2, 1), (2, -2), (3, Int64.min), (3, -1)] as [(Int64, Int64)] {
                try tx.insert("N", ["k": .int(k), "v": .int(v), "w": .int(v), "vs": .list([.int(v), .int(v)])])
            }
        }
        return store
    }

    /// Each statement is refused at its column, with a message that holds `message`.
    static func expectRefusals(_ statements: [(String, Int)], by store: Store, saying message: String) throws {
        for (text, column) in statements {
            do {
                _ = try store.read { try $0.answer(text) }
                Issue.record("no error for \(text)")
            } catch let error as QueryError {
                #expect(error.column == column, "\(text): \(error)")
                #expect(error.message.contains(message), "\(text): \(error.message)")
            }
        }
    }

    @Test func anIntegerSumBeyondTheRangeOfIntIsAnErrorNotAWrappedTotal() throws {
        let store = try Self.extremes()
        let outOfRange: [(String, Int)] = [
            ("sum N.v where k == 1", 7), ("sum N.w where k == 3", 7), ("sum N.w where w > 0", 7),
            ("N GROUP(k) SELECT(k, @sum.v)", 27), ("N where k == 2 SELECT(vs.@sum)", 23),
            ("count N where vs.@sum > 0", 15),
        ]
        try Self.expectRefusals(outOfRange, by: store, saying: "is out of the range of int")
        #expect(throws: QueryError.self) { try store.read { try $0.objects("N", where: "k == 1").sum(of: "w") } }
        // A total back in range is exact, whatever the running sum passed through.
        try store.read { snapshot in
            #expect(try snapshot.aggregate("sum N.v where k == 2") == .int(Int64.max - 1))
            #expect(try snapshot.aggregate("sum N.w where k == 2") == .int(Int64.max - 1))
            #expect(try snapshot.aggregate("avg N.v where k == 3") == .double(-Double(Int64.max) / 2))
            #expect(try snapshot.objects("N", where: "k == 2").sum(of: "v") == .int(Int64.max - 1))
            let rows = try snapshot.rows("N where k == 2 GROUP(k) SELECT(@sum.v)")
            #expect(rows.map { $0.values } == [[.int(Int64.max - 1)]])
        }
    }

    @Test func aFractionalSumBeyondTheRangeOfDoubleIsAnErrorNotAnInfinityPrintedAsNull() throws {
        let schema = """
            {"models": [{"name": "D", "properties": {"k": "int", "d": "double?", "f": "float?", "ds": "double[]"}}]}
            """
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(schema)))
        try store.write { tx in
            for k in [1, 1, 2] as [Int64] {
                try tx.insert("D", ["k": .int(k), "d": .double(1e308), "f": .float(3e38), "ds": .list([.double(1e308), .double(1e308)])])
            }
        }
        let outOfRange: [(String, Int)] = [
            ("sum D.d", 7), ("avg D.d where k == 1", 7), ("D GROUP(k) SELECT(k, @avg.d)", 27), ("D SELECT(ds.@sum)", 10),
        ]
        try Self.expectRefusals(outOfRange, by: store, saying: "is out of the range of double")
        // A float's sum is a double: far from its end.
        let (sum, average) = try store.read { (try $0.aggregate("sum D.f"), try $0.aggregate("avg D.d where k == 2")) }
        #expect(sum == .double(3 * Double(Float(3e38))))
        #expect(average == .double(1e308))
    }

    @Test func explainShowsEachStep() throws {
        let store = try CarFixtures.store()
        try store.read { snapshot in
            let group = try snapshot.explain("Car GROUP(origin) SELECT(origin, @count) SORT(@count DESC) LIMIT(1)")
            #expect(group.steps.contains { $0.hasPrefix("GROUP origin") })
            #expect(group.actualRows == 1)
            let select = try snapshot.explain("Car SELECT(name)")
            #expect(select.steps.contains { $0.hasPrefix("SELECT name") })
            let sum = try snapshot.explain("sum Car.mpg where origin == 'Japan'")
            #expect(sum.steps.contains { $0.hasPrefix("FILTER") })
            #expect(sum.steps.contains { $0.hasPrefix("SUM mpg") })
        }
    }
}
