import Foundation
import Testing
import Trove
@testable import TroveShell

@Suite struct FormatterTests {
    static let people = ResultSet(columns: ["id", "name", "tags", "owner"], rows: [
        JSONObject([("id", .int(1)), ("name", .string("Ann")), ("tags", .array([.string("a"), .string("b")])), ("owner", .null)]),
        JSONObject([("id", .int(22)), ("name", .string("Bob, \"B\"")), ("tags", .array([])), ("owner", .int(1))]),
    ])

    func render(_ result: ShellResult, _ formatter: ResultFormatter) -> String {
        let out = StringOutput()
        formatter.format(result, to: out)
        return out.text
    }

    // MARK: json

    @Test func jsonPrintsOneArrayPerQuery() {
        #expect(render(.objects(Self.people), JSONFormatter()) == """
            [
              {"id": 1, "name": "Ann", "tags": ["a", "b"], "owner": null},
              {"id": 22, "name": "Bob, \\"B\\"", "tags": [], "owner": 1}
            ]

            """)
    }

    @Test func jsonPrintsAnEmptyArrayForNoObjects() {
        #expect(render(.objects(ResultSet(columns: ["id"], rows: [])), JSONFormatter()) == "[]\n")
    }

    @Test func jsonGetOfOneKeyPrintsTheObjectOrNull() {
        #expect(render(.lookup(columns: [], objects: [JSONObject([("id", .int(1))])]), JSONFormatter()) == "{\"id\": 1}\n")
        #expect(render(.lookup(columns: [], objects: [nil]), JSONFormatter()) == "null\n")
    }

    @Test func jsonGetOfSeveralKeysPrintsAnArrayWithNullForMissing() {
        #expect(render(.lookup(columns: [], objects: [JSONObject([("id", .int(1))]), nil]), JSONFormatter()) == "[\n  {\"id\": 1},\n  null\n]\n")
    }

    @Test(arguments: [OutputMode.json, .jsonl, .csv, .tsv])
    func machineModesPrintBareCountsAndWriteSummaries(mode: OutputMode) {
        let formatter = FormatterSettings(mode: mode).makeFormatter()
        #expect(render(.count(42), formatter) == "42\n")
        #expect(render(.written(WriteSummary(inserted: 3)), formatter) == "{\"inserted\": 3}\n")
        #expect(render(.written(WriteSummary(updated: 0)), formatter) == "{\"updated\": 0}\n")
        #expect(render(.written(WriteSummary(deleted: 2)), formatter) == "{\"deleted\": 2}\n")
        #expect(render(.written(.upsert(inserted: 1, updated: 2)), formatter) == "{\"inserted\": 3}\n")
        #expect(render(.written(.upsert(inserted: 0, updated: 2)), formatter) == "{\"updated\": 2}\n")
        #expect(render(.written(.upsert(inserted: 0, updated: 0)), formatter) == "{\"inserted\": 0}\n")
        #expect(render(.none, formatter) == "")
    }

    // MARK: jsonl

    @Test func jsonlPrintsOneObjectPerLine() {
        #expect(render(.objects(Self.people), JSONLinesFormatter()) == """
            {"id": 1, "name": "Ann", "tags": ["a", "b"], "owner": null}
            {"id": 22, "name": "Bob, \\"B\\"", "tags": [], "owner": 1}

            """)
        #expect(render(.objects(ResultSet(columns: [], rows: [])), JSONLinesFormatter()) == "")
    }

    @Test func jsonlGetPrintsALinePerKey() {
        #expect(render(.lookup(columns: [], objects: [nil, JSONObject([("id", .int(1))])]), JSONLinesFormatter()) == "null\n{\"id\": 1}\n")
    }

    // MARK: csv

    @Test func csvHasAHeaderAndQuotesAsRFC4180() {
        #expect(render(.objects(Self.people), CSVFormatter()) == """
            id,name,tags,owner
            1,Ann,"[""a"", ""b""]",
            22,"Bob, ""B""\",[],1

            """)
    }

    @Test func csvQuotesLineBreaksAndLeavesPlainTextAlone() {
        let set = ResultSet(columns: ["a", "b", "c"], rows: [JSONObject([("a", .string("x\ny")), ("b", .string("plain text")), ("c", .bool(true))])])
        #expect(render(.objects(set), CSVFormatter()) == "a,b,c\n\"x\ny\",plain text,true\n")
    }

    @Test func csvWithoutHeaders() {
        #expect(render(.objects(ResultSet(columns: ["a"], rows: [JSONObject([("a", .double(1.5))])])), CSVFormatter(showHeaders: false)) == "1.5\n")
    }

    @Test func csvHeaderComesEvenWithoutRows() {
        #expect(render(.objects(ResultSet(columns: ["a", "b"], rows: [])), CSVFormatter()) == "a,b\n")
    }

    // MARK: line

    @Test func lineModeAlignsNamesAndSeparatesRecords() {
        #expect(render(.objects(Self.people), LineFormatter()) == """
               id = 1
             name = Ann
             tags = ["a", "b"]
            owner = null

               id = 22
             name = Bob, "B"
             tags = []
            owner = 1

            """)
    }

    /// A string with control characters shows quoted, so it never reads as one holding a
    /// backslash and a letter.
    @Test func lineModeEscapesControlCharactersAsTableModeDoes() {
        let note = "two\nlines \u{1B}[31mred\ttab\u{7F}"
        let set = ResultSet(columns: ["note"], rows: [JSONObject([("note", .string(note))])])
        #expect(render(.objects(set), LineFormatter()) == #"note = "two\nlines \u001b[31mred\ttab\u007f""# + "\n")
        #expect(render(.value(name: "max", .string(note)), LineFormatter()) == #"max = "two\nlines \u001b[31mred\ttab\u007f""# + "\n")
        #expect(render(.objects(set), TableFormatter(width: nil, unicode: true)).contains(#""two\nlines \u001b[31mred\ttab\u007f""#))
    }

    @Test func lineModeCountAndSummary() {
        #expect(render(.count(3), LineFormatter()) == "count = 3\n")
        #expect(render(.written(WriteSummary(inserted: 2)), LineFormatter()) == "inserted = 2\n")
    }

    // MARK: table

    @Test func tableDrawsABoxWithNumbersRightAligned() {
        #expect(render(.objects(Self.people), TableFormatter(width: nil, unicode: true)) == """
            ┌────┬──────────┬────────────┬───────┐
            │ id │ name     │ tags       │ owner │
            ├────┼──────────┼────────────┼───────┤
            │  1 │ Ann      │ ["a", "b"] │  null │
            │ 22 │ Bob, "B" │ []         │     1 │
            └────┴──────────┴────────────┴───────┘
            (2 rows)

            """)
    }

    /// Decimals are numbers, though their JSON form is a string; a column of nulls holds no number.
    @Test func tableAlignsDecimalsRightAndNullOnlyColumnsLeft() {
        let set = ResultSet(columns: ["price", "none", "name"], rows: [
            JSONObject([("price", .string("12.5")), ("none", .null), ("name", .string("a"))]),
            JSONObject([("price", .string("0.1")), ("none", .null), ("name", .null)]),
        ], decimalColumns: ["price"])
        #expect(render(.objects(set), TableFormatter(null: "-", width: nil, unicode: false)) == """
            +-------+------+------+
            | price | none | name |
            +-------+------+------+
            |  12.5 | -    | a    |
            |   0.1 | -    | -    |
            +-------+------+------+
            (2 rows)

            """)
        #expect(render(.value(name: "sum", .decimal(Decimal(string: "1.5")!)), TableFormatter(width: nil, unicode: false))
                == "+-----+\n| sum |\n+-----+\n| 1.5 |\n+-----+\n")
        #expect(render(.value(name: "avg", .decimal(Decimal(5))), TableFormatter(width: nil, unicode: false))
                == "+-----+\n| avg |\n+-----+\n|   5 |\n+-----+\n")
        #expect(render(.objects(set), MarkdownFormatter(null: "-")) == """
            | price | none | name |
            | ----: | ---- | ---- |
            |  12.5 | -    | a    |
            |   0.1 | -    | -    |

            """)
    }

    @Test func tableInASCII() {
        let set = ResultSet(columns: ["a"], rows: [JSONObject([("a", .string("x"))])])
        #expect(render(.objects(set), TableFormatter(width: nil, unicode: false)) == "+---+\n| a |\n+---+\n| x |\n+---+\n(1 row)\n")
    }

    @Test func tableCutsWideValuesToFitTheTerminal() {
        let long = String(repeating: "x", count: 100)
        let set = ResultSet(columns: ["id", "text"], rows: [JSONObject([("id", .int(1)), ("text", .string(long))])])
        let text = render(.objects(set), TableFormatter(width: 30, unicode: true))
        let lines = text.split(separator: "\n")
        #expect(lines.dropLast().allSatisfy { DisplayWidth.of(String($0)) == 30 })
        #expect(lines[3] == "│  1 │ \(String(repeating: "x", count: 20))… │")
    }

    @Test func tableCountsWideCharactersAsTwoColumns() {
        let set = ResultSet(columns: ["name"], rows: [JSONObject([("name", .string("日本"))]), JSONObject([("name", .string("é"))])])
        #expect(render(.objects(set), TableFormatter(width: nil, unicode: false)) == """
            +------+
            | name |
            +------+
            | 日本 |
            | é    |
            +------+
            (2 rows)

            """)
    }

    @Test func tableShowsControlCharactersEscaped() {
        let set = ResultSet(columns: ["a"], rows: [JSONObject([("a", .string("x\ny"))])])
        #expect(render(.objects(set), TableFormatter(width: nil, unicode: false)).contains(#"| "x\ny" |"#))
    }

    @Test func tableWriteSummaryReadsAsASentence() {
        #expect(render(.written(WriteSummary(inserted: 1)), TableFormatter()) == "1 object inserted\n")
        #expect(render(.written(WriteSummary(inserted: 2, updated: 1)), TableFormatter()) == "2 objects inserted, 1 updated\n")
    }

    @Test func tableLookupSaysHowManyKeysWereNotFound() {
        let text = render(.lookup(columns: ["id"], objects: [JSONObject([("id", .int(1))]), nil]), TableFormatter(width: nil, unicode: false))
        #expect(text.hasSuffix("(1 row, 1 not found)\n"))
    }

    @Test func columnsFallBackToKeysInOrderOfAppearance() {
        let set = ResultSet(columns: [], rows: [JSONObject([("b", .int(1))]), JSONObject([("a", .int(2)), ("b", .int(3))])])
        #expect(render(.objects(set), CSVFormatter()) == "b,a\n1,\n3,2\n")
    }

    @Test func fittingCapsTheWidestColumnsFirst() {
        #expect(TableFormatter.fit([2, 50, 40], into: 200) == [2, 50, 40])
        let fitted = TableFormatter.fit([2, 50, 40], into: 60)
        #expect(fitted.reduce(0, +) + 10 == 60)
        #expect(fitted[0] == 2)
    }

    // MARK: JSON text

    @Test func jsonTextEscapesWhatJSONRequires() {
        #expect(JSONText.string(.string("a\"b\\c\n\t\u{01}é😀")) == #""a\"b\\c\n\t\u0001é😀""#)
        #expect(JSONText.string(.double(.nan)) == #""NaN""#)
        #expect(JSONText.string(.double(2.5)) == "2.5")
        #expect(JSONText.string(.int(-9_223_372_036_854_775_808)) == "-9223372036854775808")
        #expect(JSONText.string(.object(JSONObject())) == "{}")
        #expect(JSONText.string(.bool(false)) == "false")
    }

    // MARK: NaN and infinities

    /// A float's or double's NaN or infinity prints in PostgreSQL's spelling: a JSON string in
    /// the JSON modes, the bare word in the others; stored or an aggregate's result alike.
    @Test func nonFiniteNumbersPrintAsPostgreSQLSpellsThemInEveryMode() {
        let values: [Value] = [.double(.nan), .double(-.infinity), .double(-0.0), .float(.infinity)]
        let row = JSONObject(zip(["a", "b", "c", "d"], values).map { ($0, $1.jsonValue) } + [("l", Value.list([.double(.infinity), .double(2)]).jsonValue)])
        let set = ResultSet(columns: ["a", "b", "c", "d", "l"], rows: [row])
        func output(_ mode: OutputMode, _ result: ShellResult) -> String { render(result, FormatterSettings(mode: mode).makeFormatter()) }
        #expect(output(.json, .objects(set)) == "[\n  {\"a\": \"NaN\", \"b\": \"-Infinity\", \"c\": -0.0, \"d\": \"Infinity\", \"l\": [\"Infinity\", 2.0]}\n]\n")
        #expect(output(.jsonl, .objects(set)) == #"{"a": "NaN", "b": "-Infinity", "c": -0.0, "d": "Infinity", "l": ["Infinity", 2.0]}"# + "\n")
        #expect(output(.csv, .objects(set)) == "a,b,c,d,l\nNaN,-Infinity,-0.0,Infinity,\"[\"\"Infinity\"\", 2.0]\"\n")
        #expect(output(.tsv, .objects(set)) == "a\tb\tc\td\tl\nNaN\t-Infinity\t-0.0\tInfinity\t\"[\"\"Infinity\"\", 2.0]\"\n")
        #expect(output(.line, .objects(set)) == "a = NaN\nb = -Infinity\nc = -0.0\nd = Infinity\nl = [\"Infinity\", 2.0]\n")
        // Numbers, aligned right beside finite ones.
        let column = ResultSet(columns: ["x"], rows: [Value.double(.nan), .double(1.5), .float(-.infinity)].map { JSONObject([("x", $0.jsonValue)]) })
        #expect(render(.objects(column), TableFormatter(width: nil, unicode: false)) == """
            +-----------+
            |         x |
            +-----------+
            |       NaN |
            |       1.5 |
            | -Infinity |
            +-----------+
            (3 rows)

            """)
        #expect(render(.objects(column), MarkdownFormatter()) == "|         x |\n| --------: |\n|       NaN |\n|       1.5 |\n| -Infinity |\n")
        for (mode, nan, infinity) in [(OutputMode.json, #""NaN""#, #""-Infinity""#), (.jsonl, #""NaN""#, #""-Infinity""#), (.csv, "NaN", "-Infinity"),
                                      (.tsv, "NaN", "-Infinity"), (.line, "avg = NaN", "sum = -Infinity")] {
            #expect(output(mode, .value(name: "avg", .double(.nan))) == nan + "\n", "\(mode)")
            #expect(output(mode, .value(name: "sum", .double(-.infinity))) == infinity + "\n", "\(mode)")
        }
        #expect(render(.value(name: "max", .float(.infinity)), TableFormatter(width: nil, unicode: false)).contains("| Infinity |"))
    }

    @Test func displayWidthTruncatesWithAnEllipsis() {
        #expect(DisplayWidth.truncate("abcdef", to: 4) == "abc…")
        #expect(DisplayWidth.truncate("abc", to: 3) == "abc")
        #expect(DisplayWidth.truncate("日本語", to: 4) == "日…")
        #expect(DisplayWidth.of("e\u{301}") == 1)
    }
}
