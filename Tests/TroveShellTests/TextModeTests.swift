import Testing
import Trove
@testable import TroveShell

/// `tsv` and `markdown` modes, and what `.headers` and `.nullvalue` change in each text mode.
extension FormatterTests {
    @Test func tsvSeparatesWithTabsAndQuotesWhatWouldBreakARecord() {
        let set = ResultSet(columns: ["a", "b", "c"], rows: [
            JSONObject([("a", .string("x\ty")), ("b", .string("one, two")), ("c", .string("say \"hi\""))]),
            JSONObject([("a", .string("l1\nl2")), ("b", .null), ("c", .array([.int(1), .int(2)]))]),
        ])
        #expect(render(.objects(set), FormatterSettings(mode: .tsv).makeFormatter()) == """
            a\tb\tc
            "x\ty"\tone, two\t"say ""hi""\"
            "l1
            l2"\t\t[1, 2]

            """)
    }

    @Test func markdownDrawsAPipeTableWithNumbersAlignedRight() {
        #expect(render(.objects(Self.people), MarkdownFormatter()) == """
            |  id | name     | tags       | owner |
            | --: | -------- | ---------- | ----: |
            |   1 | Ann      | ["a", "b"] |       |
            |  22 | Bob, "B" | []         |     1 |

            """)
    }

    @Test func markdownEscapesPipesAndQuotesLineBreaks() {
        let set = ResultSet(columns: ["text"], rows: [JSONObject([("text", .string("a|b\nc"))])])
        #expect(render(.objects(set), MarkdownFormatter()) == "| text      |\n| --------- |\n| \"a\\|b\\nc\" |\n")
    }

    @Test func markdownCountsAndSummaries() {
        #expect(render(.count(7), MarkdownFormatter()) == "| count |\n| ----: |\n|     7 |\n")
        #expect(render(.written(WriteSummary(inserted: 2)), MarkdownFormatter()) == "2 objects inserted\n")
    }

    @Test func headersOffLeavesOnlyTheRecords() {
        let set = ResultSet(columns: ["id", "name"], rows: [JSONObject([("id", .int(1)), ("name", .string("Ann"))])])
        func text(_ mode: OutputMode) -> String {
            render(.objects(set), FormatterSettings(mode: mode, showHeaders: false, unicodeBoxes: false).makeFormatter())
        }
        #expect(text(.csv) == "1,Ann\n")
        #expect(text(.tsv) == "1\tAnn\n")
        #expect(text(.table) == "+---+-----+\n| 1 | Ann |\n+---+-----+\n(1 row)\n")
        // Markdown has no table without a header row: it stays, blank.
        #expect(text(.markdown) == "|     |     |\n| --: | --- |\n|   1 | Ann |\n")
    }

    @Test func nullValueChangesTheTextModesOnly() {
        let set = ResultSet(columns: ["id", "age"], rows: [JSONObject([("id", .int(2)), ("age", .null)])])
        func text(_ mode: OutputMode, _ null: String?) -> String {
            render(.objects(set), FormatterSettings(mode: mode, nullText: null, unicodeBoxes: false).makeFormatter())
        }
        #expect(text(.csv, nil) == "id,age\n2,\n")
        #expect(text(.csv, "NULL") == "id,age\n2,NULL\n")
        #expect(text(.csv, "a,b") == "id,age\n2,\"a,b\"\n")
        #expect(text(.tsv, "\\N") == "id\tage\n2\t\\N\n")
        #expect(text(.line, nil) == " id = 2\nage = null\n")
        #expect(text(.line, "-") == " id = 2\nage = -\n")
        #expect(text(.table, "∅").contains("|  2 | ∅   |"))
        #expect(text(.markdown, "NULL").contains("|   2 | NULL |"))
        #expect(text(.json, "NULL") == "[\n  {\"id\": 2, \"age\": null}\n]\n")
        #expect(text(.jsonl, "NULL") == "{\"id\": 2, \"age\": null}\n")
        // An aggregate over no values is null as a property is.
        let none = ShellResult.value(name: "max", .null)
        #expect(render(none, FormatterSettings(mode: .line, nullText: "-").makeFormatter()) == "max = -\n")
        #expect(render(none, FormatterSettings(mode: .line).makeFormatter()) == "max = null\n")
    }

    /// Null and the strings that would read as it (`"null"`, `""`, the `.nullvalue` text, or
    /// such text with blanks a padded cell hides) look different in the modes for people, so
    /// two groups never look alike; csv and tsv keep the contract's forms.
    @Test func nullNeverLooksLikeAStringInTheModesForPeople() {
        let set = ResultSet(columns: ["g"], rows: [.null, .string("null"), .string(""), .string("\"null\""), .string("NULL"), .string("a"),
                                                   .string("null "), .string(" "), .string(" a"), .string("a\\nb"), .string("a\nb")]
            .map { JSONObject([("g", $0)]) })
        func text(_ mode: OutputMode, _ null: String? = nil) -> String {
            render(.objects(set), FormatterSettings(mode: mode, nullText: null, unicodeBoxes: false).makeFormatter())
        }
        #expect(text(.table) == """
            +------------+
            | g          |
            +------------+
            | null       |
            | "null"     |
            | ""         |
            | "\\"null\\"" |
            | NULL       |
            | a          |
            | "null "    |
            | " "        |
            | " a"       |
            | a\\nb       |
            | "a\\nb"     |
            +------------+
            (11 rows)

            """)
        #expect(text(.markdown) == """
            | g          |
            | ---------- |
            |            |
            | null       |
            | ""         |
            | "\\"null\\"" |
            | NULL       |
            | a          |
            | "null "    |
            | " "        |
            | " a"       |
            | a\\nb       |
            | "a\\nb"     |

            """)
        let lines: [String] = ["g = null", #"g = "null""#, #"g = """#, #"g = "\"null\"""#, "g = NULL", "g = a",
                               #"g = "null ""#, #"g = " ""#, #"g = " a""#, #"g = a\nb"#, #"g = "a\nb""#]
        #expect(text(.line) == lines.joined(separator: "\n\n") + "\n")
        #expect(text(.table, "NULL").contains("| NULL       |\n| null       |\n| \"\"         |\n| \"\\\"null\\\"\" |\n| \"NULL\"     |\n"))
        #expect(text(.line, "").hasPrefix("g = \n\ng = null\n\ng = \"\"\n"))
        let csv: String = "g\n\nnull\n\"\"\n\"\"\"null\"\"\"\nNULL\na\nnull \n \n a\na\\nb\n\"a\nb\"\n"
        #expect(text(.csv) == csv)
        let jsonl: [String] = [#"{"g": null}"#, #"{"g": "null"}"#, #"{"g": ""}"#, #"{"g": "\"null\""}"#, #"{"g": "NULL"}"#, #"{"g": "a"}"#,
                               #"{"g": "null "}"#, #"{"g": " "}"#, #"{"g": " a"}"#, #"{"g": "a\\nb"}"#, #"{"g": "a\nb"}"#]
        #expect(text(.jsonl) == jsonl.joined(separator: "\n") + "\n")
    }
}
