import Foundation
import Testing

/// The shell on PostgreSQL gives what it gives on a store, for the same statements: the same
/// answers, errors and exit statuses.
@Suite(PostgresServer.isGiven)
struct PostgresStoreParityTests {
    let w: Workspace, url: String
    init() throws { (w, url) = try PostgresServer.workspace() }

    /// Runs `arguments` (and `stdin`) on a new store and on the server, both opened with
    /// `schema`, and expects the same output, errors and status; returns the store's.
    @discardableResult
    func expectSame(schema: String, _ arguments: [String], stdin: String = "",
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> TroveBinary.Outcome {
        let schemaFile = try w.write("parity-schema.json", schema)
        let store = "parity-\(UUID().uuidString).trove"
        #expect(try w.run([store, "--schema", schemaFile, "count \(try #require(modelName(schema)))"]).status == 0, sourceLocation: sourceLocation)
        #expect(try w.run([url, "--schema", schemaFile, "count \(try #require(modelName(schema)))"]).status == 0, sourceLocation: sourceLocation)
        let onStore = try w.run([store] + arguments, stdin: stdin)
        let onServer = try w.run([url] + arguments, stdin: stdin)
        #expect(onServer.err == onStore.err, "PostgreSQL:\n\(onServer.err)\nstore:\n\(onStore.err)", sourceLocation: sourceLocation)
        #expect(onServer.out == onStore.out, "PostgreSQL:\n\(onServer.out)\nstore:\n\(onStore.out)", sourceLocation: sourceLocation)
        #expect(onServer.status == onStore.status, sourceLocation: sourceLocation)
        return onStore
    }

    private func modelName(_ schema: String) -> String? {
        let json = try? JSONSerialization.jsonObject(with: Data(schema.utf8)) as? [String: Any]
        return (json?["models"] as? [[String: Any]])?.first?["name"] as? String
    }

    /// A write that fails inside `begin` ... `commit` fails the transaction: later statements
    /// are refused and `commit` rolls it back, although the server could go on.
    @Test func aFailedWriteFailsTheTransaction() throws {
        let schema = #"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int", "tag": "string?"}}]}"#
        try expectSame(schema: schema, [], stdin: """
            begin
            insert Item {"id": 71}
            insert Item {"id": 71}
            insert Item {"id": 72}
            count Item
            commit
            count Item
            begin
            insert Item {"id": 73}
            rollback
            begin
            insert Item {"id": 74}
            update Item 999 set tag = "x"
            commit
            count Item
            """)
    }

    /// `get` of keys not found, write summaries inside a transaction, and a JSON number given
    /// for a decimal print the same in every mode on both backends.
    @Test func keysNotFoundSummariesOfTransactionsAndDecimalNumbersPrintTheSame() throws {
        let schema = #"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int", "price": "decimal?"}}]}"#
        let modes = ["json", "jsonl", "csv", "tsv", "line", "table", "markdown"]
        let gets = modes.map { ".mode \($0)\nget Item 2\nget Item 2 1 3" }.joined(separator: "\n")
        try expectSame(schema: schema, [], stdin: """
            insert Item {"id": 1, "price": "1.50"}
            \(gets)
            .mode jsonl
            begin
            insert Item {"id": 5}
            rollback
            begin
            insert Item {"id": 6}
            update Item 6 set price = 2.50
            commit
            .mode csv
            begin
            delete Item 6
            rollback
            begin
            delete Item 6
            commit
            .mode jsonl
            insert Item {"id": 7, "price": 1e3}
            insert Item {"id": 7, "price": 1.50}
            insert Item {"id": 7, "price": 5}
            get Item 1
            begin
            insert Item {"id": 8}
            """)
    }

    /// `--readonly` changes nothing on the server either: `begin` and `.apply-schema` are
    /// refused, and a schema file is not applied (a warning says what it would change).
    @Test func readOnlyRefusesWhatAStoreRefuses() throws {
        let schema = #"{"schemaVersion": 1, "models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int"}}]}"#
        let more = try w.write("more.json", #"{"schemaVersion": 2, "models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int"}}, {"name": "Extra", "properties": {"a": "int"}}]}"#)
        try expectSame(schema: schema, ["--readonly", "begin"])
        try expectSame(schema: schema, ["--readonly", "-c", ".apply-schema \(more)", "-c", ".models"])
        try expectSame(schema: schema, ["--readonly", "-c", "begin", "-c", #"insert Item {"id": 1}"#, "-c", "count Item"])
        let opened = try w.run([url, "--readonly", "--schema", more, ".models"])
        #expect(opened.status == 0 && opened.out == "Item\n", "\(opened.out)\(opened.err)")
        #expect(opened.err == "warning: the schema file is not applied, since --readonly cannot change the database (model 'Extra' added; schemaVersion 1 to 2);"
                + " statements see the database's own schema\n", "\(opened.err)")
        #expect(try w.run([url, ".models"]).out == "Item\n")
        // A schema file that needs a migration is refused, as on a store.
        let changed = try w.write("changed.json", #"{"schemaVersion": 1, "models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "string"}}]}"#)
        let refused = try w.run([url, "--readonly", "--schema", changed, "count Item"])
        #expect(refused.status == 1 && refused.out == "")
        #expect(refused.err == "error: cannot migrate the database's schema, since the PostgreSQL backend applies additive changes only:"
                + " property 'Item.id' changed type from int to string (to read the database as it is, open it without --schema)\n", "\(refused.err)")
        // So is a lower schemaVersion, read-only or not.
        let older = try w.write("older.json", #"{"schemaVersion": 0, "models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int"}}]}"#)
        for flags in [["--readonly"], []] {
            let lower = try w.run([url] + flags + ["--schema", older, "count Item"])
            #expect(lower.status == 1 && lower.err == "error: cannot migrate the database's schema: schemaVersion 0 is lower than the database's"
                    + " schemaVersion 1 (to read the database as it is, open it without --schema)\n", "\(lower.err)")
        }
        #expect(try w.run([url, "--readonly", "count Item"]).out == "0\n")
    }

    /// Models named like PostgreSQL's catalog relations and types are tables like any other.
    @Test func modelsNamedLikeTheCatalogsTablesAndTypesWork() throws {
        let schema = #"""
            {"models": [
              {"name": "pg_type", "primaryKey": "id", "properties": {"id": "int", "name": "string?", "kind": "pg_class?"}},
              {"name": "pg_class", "primaryKey": "id", "properties": {"id": "string", "at": "date?", "tags": "string[]"}},
              {"name": "text", "primaryKey": "id", "properties": {"id": "uuid", "s": "string?", "b": "data?", "owner": "pg_type?"}},
              {"name": "bytea", "properties": {"n": "int"}},
              {"name": "timestamptz", "properties": {"n": "int"}}
            ]}
            """#
        try expectSame(schema: schema, [
            "-c", #"insert pg_class [{"id": "a", "at": "2024-01-02T03:04:05Z", "tags": ["x", "y"]}, {"id": "b"}]"#,
            "-c", #"insert pg_type [{"id": 1, "name": "one", "kind": "a"}, {"id": 2, "name": "two", "kind": "b"}]"#,
            "-c", #"insert text {"id": "6f1d2c9e-0000-4000-8000-000000000001", "s": "hi", "b": "aGk=", "owner": 1}"#,
            "-c", #"insert bytea {"n": 2}"#, "-c", #"insert timestamptz {"n": 3}"#,
            "-c", "count pg_type", "-c", "pg_type where kind.tags == 'x' SORT(id)", "-c", "get pg_class a",
            "-c", "text where s BEGINSWITH[c] 'H' AND owner.name == 'one'", "-c", "update pg_type 2 set name = 'deux'",
            "-c", "pg_class where at > '2024-01-01T00:00:00Z'", "-c", "delete pg_class b", "-c", "pg_type SORT(id)",
            "-c", "count bytea", "-c", "sum bytea.n", "-c", "timestamptz",
            "-c", "get text 6F1D2C9E-0000-4000-8000-000000000001", "-c", "get text 6f1d2c9e-0000-4000-8000-000000000001",
            "-c", "get text 6f1d2c9e-0000-4000-8000-000000000002", "-c", "get bytea 1", "-c", "update bytea 1 set n = 4", "-c", "delete bytea 1",
        ])
    }

    /// Aggregates of doubles hold where a store's do: an average of large values does not
    /// overflow, and a list's sum compares with a double as a double.
    @Test func aggregatesOfLargeDoublesAnswerAsOnAStore() throws {
        let schema = #"{"models": [{"name": "S", "primaryKey": "id", "properties": {"id": "int", "d": "double?", "g": "int", "n": "double[]", "i": "int[]"}}]}"#
        try expectSame(schema: schema, [
            "-c", #"insert S [{"id": 1, "d": 1e300, "g": 1, "n": [1e300, 1e300], "i": [1, 2]}, {"id": 2, "d": 3e300, "g": 1, "n": [], "i": []}, {"id": 3, "g": 2, "n": [2.5]}]"#,
            "-c", "avg S.d", "-c", "avg S.d where id > 5", "-c", "S GROUP(g) SELECT(g, @avg.d) SORT(g)",
            "-c", "S GROUP(g) SELECT(g, @avg.d AS a) SORT(a DESC)", "-c", "S SELECT(id, n.@avg, n.@sum) SORT(id)",
            "-c", "count S where n.@avg > 1e299", "-c", "count S where n.@sum > 1e300", "-c", "count S where n.@sum < 3",
            "-c", "count S where i.@sum == 3", "-c", "count S where i.@avg == 1.5", "-c", "count S where i.@avg > 1e300",
        ])
    }

    /// A list of links to a model without a primary key takes nested objects, never numbers.
    @Test func aLinkToAModelWithoutAPrimaryKeyIsNotANumber() throws {
        let schema = #"{"models": [{"name": "Person", "primaryKey": "id", "properties": {"id": "int", "dogs": "Dog[]", "pet": "Dog?"}}, {"name": "Dog", "properties": {"name": "string?"}}]}"#
        try expectSame(schema: schema, [
            "-c", #"insert Person {"id": 1, "dogs": [{"name": "Rex"}]}"#,
            "-c", "update Person 1 set dogs = [1]", "-c", "update Person 1 set pet = 1",
            "-c", #"insert Person {"id": 2, "dogs": [1]}"#, "-c", #"insert Person {"id": 3, "pet": 1}"#,
            "-c", "count Person", "-c", "count Dog",
        ])
    }

    /// A number outside a property's type compares by its value, as a store compares it: an
    /// integer property meets a fractional number, a decimal, float or small integer one meets
    /// a number beyond its range, in every comparison that takes a constant.
    @Test func numbersBeyondAPropertysTypeCompareByTheirValue() throws {
        let schema = #"{"models": [{"name": "N", "primaryKey": "id", "properties": {"id": "int", "dec": "decimal?", "f": "float?", "s": "int16?", "ds": "decimal[]", "is": "int[]"}}]}"#
        try expectSame(schema: schema, [
            "-c", #"insert N [{"id": 1, "dec": "1.5", "f": 1.5, "s": 7, "ds": ["1", "2"], "is": [1, 2]}, {"id": 2, "dec": "-3", "f": -2, "s": -7, "is": [5]}, {"id": 3}, {"id": 5, "dec": "0.1", "f": 0.25, "s": 32767}]"#,
            "-c", "count N where dec < 1e200", "-c", "count N where dec > -1e200", "-c", "count N where dec == 1e200", "-c", "count N where dec != 1e200",
            "-c", "N where id > 4.5 SORT(id)", "-c", "N where id < 2.5 SORT(id DESC)", "-c", "count N where id == 4.5", "-c", "count N where id != 4.5",
            "-c", "count N where id >= 1e19", "-c", "count N where id < 1e19", "-c", "count N where id BETWEEN {1.5, 4.5}", "-c", "count N where id IN {2.5, 3, 5.0}",
            "-c", "count N where f < 1e300", "-c", "count N where f > -1e300", "-c", "count N where s < 40000", "-c", "count N where s > -1e10",
            "-c", "count N where ds.@sum > 2.5", "-c", "count N where ds.@sum < 1e300", "-c", "count N where ANY is > 4.5", "-c", "count N where is.@sum == 2.5",
            "-c", "N where is.@avg > 1.25 SORT(id)", "-c", "N where dec > 0.1 SORT(id)", "-c", "N where dec >= 0.1 SORT(id)",
            "-c", "sum N.id where id > 1.5", "--arg", "4.5", "--arg", "1e200", "-c", "N where id < $0 SORT(id)", "-c", "count N where dec < $1",
        ])
    }

    /// An average of decimals has a store's digits: the exact sum over the count, rounded to
    /// what a `Decimal` holds (PostgreSQL's `avg` keeps some 20), in an aggregate statement,
    /// a SELECT and a GROUP.
    @Test func decimalAveragesPrintAsOnAStore() throws {
        let schema = #"{"models": [{"name": "D", "primaryKey": "id", "properties": {"id": "int", "g": "int", "d": "decimal?", "ds": "decimal[]"}}]}"#
        try expectSame(schema: schema, [
            "-c", #"insert D [{"id": 1, "g": 1, "d": "1", "ds": ["1", "1", "2"]}, {"id": 2, "g": 1, "d": "1", "ds": ["2", "3", "3", "3", "3", "3"]}, {"id": 3, "g": 1, "d": "2"}]"#,
            "-c", #"insert D [{"id": 4, "g": 2, "d": "-12345678901234567890.123456789", "ds": ["0.1", "0.2", "0.2"]}, {"id": 5, "g": 2, "d": "98765432109876543210.987654321"}, {"id": 6, "g": 2, "d": "0.000000001", "ds": ["12345678901234567890.1234567890123456", "0.000000000000000000000000015"]}]"#,
            "-c", #"insert D [{"id": 7, "g": 3, "d": "0.0000000000000000000000000000000000000000000000000000000000000000001", "ds": ["1e-100", "2e-100", "2e-100"]}, {"id": 8, "g": 3, "d": "0"}, {"id": 9, "g": 3, "d": "0"}, {"id": 10, "g": 4}]"#,
            "-c", "avg D.d", "-c", "sum D.d", "-c", "avg D.d where g == 1", "-c", "avg D.d where g == 2", "-c", "avg D.d where g == 3", "-c", "avg D.d where g == 4",
            "-c", "D GROUP(g) SELECT(g, @avg.d, @sum.d, @count) SORT(g)", "-c", "D SELECT(id, ds.@avg, ds.@sum) SORT(id)",
            // Compared and sorted by those digits too.
            "-c", "D where ds.@avg == 1.33333333333333333333333333333333333333 SORT(id)", "-c", "D where ds.@avg > 1.3333333333333333333 SORT(id)",
            "-c", "D where ds.@avg == 2.83333333333333333333333333333333333333 SORT(id)", "-c", "D where ds.@avg < 0.16666666666666666666666666666666666667 SORT(id)",
            "-c", "D where ds.@avg == 0.16666666666666666666666666666666666667 SORT(id)", "-c", "D where ds.@avg != 0 SORT(ds.@avg DESC, id)",
            "-c", "D SELECT(id, ds.@avg AS a) SORT(a, id)", "-c", "D GROUP(g) SELECT(g, @avg.d AS a) SORT(a DESC)",
        ])
    }

    /// `[c]` treats Turkish dotless and dotted i as a store does: `ı` is a letter of its own
    /// (its upper case is `I`, but it has no case folding), and `İ` folds to `i` + U+0307.
    @Test func caseInsensitiveComparisonsOfTurkishIAgreeWithAStore() throws {
        let schema = #"{"models": [{"name": "T", "primaryKey": "id", "properties": {"id": "int", "s": "string?", "t": "string?"}}]}"#
        let words = ["ı", "I", "i", "İ", "i\u{307}", "ıI", "Iı", "DİYARBAKIR", "dıyarbakır", "diyarbakir", "DIYARBAKIR", "ııı", "xıyz", "XIYZ"]
        let objects = words.enumerated().map { #"{"id": \#($0.offset + 1), "s": "\#($0.element)", "t": "\#(words[($0.offset + 1) % words.count])"}"# }
        var statements = ["-c", "insert T [\(objects.joined(separator: ", "))]"]
        for (op, constant) in [("==[c]", "I"), ("==[c]", "ı"), ("==[c]", "i"), ("==[cd]", "İ"), ("==[c]", "İ"), ("BEGINSWITH[c]", "dı"), ("ENDSWITH[c]", "IR"),
                               ("CONTAINS[c]", "ı"), ("CONTAINS[cd]", "yar"), ("LIKE[c]", "*ı*"), ("LIKE[c]", "?ıI"), ("!=[c]", "ıI"), ("==[c]", "ııı")] {
            statements += ["-c", "T where s \(op) '\(constant)' SORT(id) SELECT(id)"]
        }
        statements += ["-c", "T where s ==[c] t SORT(id) SELECT(id)", "-c", "T where s BEGINSWITH[c] t SORT(id) SELECT(id)", "-c", "T where 'xıyz!' BEGINSWITH[c] s SORT(id) SELECT(id)"]
        try expectSame(schema: schema, statements)
    }

    /// A sum of decimals beyond a `Decimal`'s range is refused as a store refuses it, at the
    /// same place: in an aggregate statement, a GROUP and a SELECT of a list.
    @Test func decimalSumsBeyondTheirRangeAreRefusedAsOnAStore() throws {
        let schema = #"{"models": [{"name": "D", "primaryKey": "id", "properties": {"id": "int", "g": "int", "d": "decimal?", "ds": "decimal[]"}}]}"#
        let big = "3" + String(repeating: "0", count: 165)
        try expectSame(schema: schema, [], stdin: """
            insert D [{"id": 1, "g": 1, "d": "\(big)", "ds": ["\(big)", "\(big)"]}, {"id": 2, "g": 1, "d": "\(big)", "ds": ["1"]}, {"id": 3, "g": 2, "d": "1"}]
            sum D.d
            sum D.d where id > 1
            D GROUP(g) SELECT(g, @count, @sum.d) SORT(g)
            D where id > 1 GROUP(g) SELECT(g, @sum.d) SORT(g)
            D SORT(id) SELECT(id, ds.@sum)
            D where id > 1 SORT(id) SELECT(id, ds.@sum)
            """)
    }

    /// An update of several keys that fails at a later key changes nothing that anyone sees:
    /// the statements after it are refused, reads and `export` too, and `commit` rolls back.
    @Test func aWriteFailingPartWayInATransactionChangesNothing() throws {
        let schema = #"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int", "tag": "string?"}}]}"#
        let items = try w.write("parity-items.jsonl", "{\"id\": 10}\n{\"id\": 11}\n{\"id\": \"x\"}\n")
        try expectSame(schema: schema, [], stdin: """
            insert Item [{"id": 1}, {"id": 2}, {"id": 3}]
            begin
            update Item 1 2 999 set tag = "x"
            Item where tag == "x"
            count Item
            get Item 1
            export Item
            explain Item where id > 1
            commit
            Item SORT(id)
            begin
            update Item where id > 1 set tag = "y"
            update Item 3 1 998 set tag = "z"
            Item SORT(id)
            rollback
            Item SORT(id)
            begin
            import Item \(items)
            count Item
            commit
            count Item
            """)
    }

    /// `export` in a failed transaction is refused, to standard output or to a file (which
    /// it does not create), as every statement is until `rollback`.
    @Test func exportInAFailedTransactionIsRefused() throws {
        let schema = #"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int", "tag": "string?"}}]}"#
        let file = w.path("parity-export.csv")
        try expectSame(schema: schema, [], stdin: """
            insert Item [{"id": 1}, {"id": 2}]
            begin
            insert Item {"id": 3}
            insert Item {"id": 1}
            export Item
            export Item where id > 1 \(file)
            rollback
            export Item where id > 1
            """)
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    /// Any write statement that fails fails the transaction, one refused before it wrote
    /// anything too; a read that fails fails nothing. Summaries of a transaction whose commit
    /// fails are never printed.
    @Test func anyFailedWriteFailsTheTransaction() throws {
        let schema = #"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int", "tag": "string?"}}]}"#
        try expectSame(schema: schema, [], stdin: """
            begin
            Item where nope == 1
            insert Item {"id": 1}
            update Item 1 set nope = 1
            count Item
            commit
            begin
            insert Item {"id": 3}
            update Item 3 set tag = 5
            commit
            begin
            insert Item {"id": 4}
            commit
            Item
            """)
    }
}

extension PostgresStoreParityTests {
    /// Sums and averages of decimals near the ends of a `Decimal`'s range (up to about 3.4e165,
    /// down to 1e-128) are the values a store gives, where PostgreSQL's sum is rounded on this
    /// side and where its average is rounded in SQL (a condition, SORT).
    @Test func decimalAveragesNearTheEndsOfTheirRangeAreAsOnAStore() throws {
        let schema = #"{"models": [{"name": "D", "primaryKey": "id", "properties": {"id": "int", "g": "int", "d": "decimal?", "ds": "decimal[]"}}]}"#
        func digits(_ significand: String, _ zeros: Int) -> String { significand + String(repeating: "0", count: zeros) }
        let three = digits("3", 165), one = digits("1", 165), near = digits("999", 162)
        let tiny = "0." + String(repeating: "0", count: 119) + "1"
        try expectSame(schema: schema, [], stdin: """
            insert D [{"id": 1, "g": 1, "d": "\(three)", "ds": ["\(three)", "\(three)"]}, {"id": 2, "g": 1, "d": "\(three)", "ds": ["\(one)", "\(one)", "\(one)"]}, {"id": 3, "g": 2, "d": "\(tiny)", "ds": ["\(tiny)", "0", "0"]}, {"id": 4, "g": 3, "d": "\(near)", "ds": ["\(near)", "-\(one)"]}]
            avg D.d
            avg D.d where g == 1
            sum D.d where g > 1
            avg D.d where g == 2
            D GROUP(g) SELECT(g, @avg.d) SORT(g)
            D where g > 1 GROUP(g) SELECT(g, @sum.d) SORT(g)
            D SORT(id) SELECT(id, ds.@avg)
            D where id > 1 SORT(id) SELECT(id, ds.@sum)
            D where ds.@avg > 2e165 SORT(id) SELECT(id)
            D where ds.@avg < 2e165 AND ds.@avg > 1e-130 SORT(id) SELECT(id)
            D SORT(ds.@avg) SELECT(id, ds.@avg)
            """)
    }

    static let cars = #"{"models": [{"name": "Car", "primaryKey": "id", "properties": {"id": "int", "name": "string", "origin": "string?", "hp": "double?", "built": "date?", "tags": "string[]", "scores": "double[]", "maker": "Maker?"}}, {"name": "Maker", "primaryKey": "id", "properties": {"id": "int"}}]}"#

    /// A wrong question says what does that here, at its line and column, with exit status
    /// 1, in the same words on a store and on the server: SQL habits, a clause that starts a
    /// line, `get` with a clause, the aggregates a grouped SELECT could hold, DISTINCT of an
    /// item's name.
    @Test func wrongQuestionsSayWhatDoesThatHereAsOnAStore() throws {
        let cases: [([String], String)] = [
            (["avg(Car.hp)"], "error: column 4: expected MODEL.KEYPATH after 'avg', found '(': an aggregate statement takes no brackets: avg MODEL.KEYPATH\n"),
            (["Car GROUP(origin) SELECT(count(*))"],
             "error: column 31: expected ',' or ')' after 'count', found '(': SQL's count(*) is @count here, in a grouped SELECT (Car GROUP(...) SELECT(@count)); over all objects it is the statement count Car\n"),
            (["Car SELECT(*)"], "error: column 12: SELECT has no '*': leave SELECT out to get whole objects\n"),
            (["Car GROUP BY origin"], "error: column 11: expected '(' after 'GROUP', found 'BY': SQL's GROUP BY origin is GROUP(origin) here\n"),
            (["--arg", "2", "Car OFFSET($0)"], "error: column 12: OFFSET takes an integer written in the statement, not a parameter\n"),
            (["Car LIMIT(9223372036854775808)"], "error: column 11: LIMIT takes an integer from 0 to 9223372036854775807\n"),
            // The query `get` means names the primary key, and finds every key given.
            (["get Car 1 SELECT(name)"], "error: column 11: get takes primary keys only; SELECT(...) belongs to a query, as in Car where id == 1 SELECT(name)\n"),
            (["get Car 1, 2 LIMIT(1)"], "error: column 14: get takes primary keys only; LIMIT(...) belongs to a query, as in Car where id IN {1, 2} LIMIT(1)\n"),
            (["get Car {1, 2} LIMIT(1)"], "error: column 16: get takes primary keys only; LIMIT(...) belongs to a query, as in Car where id IN {1, 2} LIMIT(1)\n"),
            (["get Bus 1 SELECT(name)"], "error: column 11: get takes primary keys only; SELECT(...) belongs to a query\n"),
            (["get Car 1 'a b' 'SORT(x)' LIMIT(1)"],
             "error: column 27: get takes primary keys only; LIMIT(...) belongs to a query, as in Car where id IN {1, 'a b', 'SORT(x)'} LIMIT(1)\n"),
            // count(DISTINCT x) is the number of GROUP(x)'s results, not @count.
            (["Car SELECT(count(DISTINCT origin))"],
             "error: column 17: expected ',' or ')' after 'count', found '(': SQL's count(DISTINCT origin) counts origin's distinct values other than null: here Car where origin != nil GROUP(origin) gives one result per such value, and the number of its results is that count\n"),
            // A model's name misspelled: the closest model, else the models there are.
            (["Carr where hp > 1"], "error: column 1: no model named 'Carr'; did you mean 'Car'?\n"),
            (["Cra where hp > 1"], "error: column 1: no model named 'Cra'; did you mean 'Car'?\n"),
            (["count Carr"], "error: column 7: no model named 'Carr'; did you mean 'Car'?\n"),
            (["avg Bus.hp"], "error: column 5: no model named 'Bus' (models: Car, Maker)\n"),
            (["count Carburetor"], "error: column 7: no model named 'Carburetor' (models: Car, Maker)\n"),
            ([".schema Carr"], "error: column 9: no model named 'Carr'; did you mean 'Car'?\n"),
            (["Car GROUP(origin) SELECT(name)"],
             "error: column 26: 'name' is not a GROUP key path: a grouped SELECT holds GROUP's key paths and group aggregates (@count; add 'name' to GROUP to show it)\n"),
            (["Car GROUP(origin) SELECT(hp)"],
             "error: column 26: 'hp' is not a GROUP key path: a grouped SELECT holds GROUP's key paths and group aggregates (@count, @sum.hp, @avg.hp, @min.hp, @max.hp)\n"),
            (["Car GROUP(origin) SELECT(built)"],
             "error: column 26: 'built' is not a GROUP key path: a grouped SELECT holds GROUP's key paths and group aggregates (@count, @min.built, @max.built)\n"),
            // Only what would be taken: a list's values take neither GROUP nor an aggregate but @count.
            (["Car GROUP(origin) SELECT(scores)"],
             "error: column 26: 'scores' is not a GROUP key path: a grouped SELECT holds GROUP's key paths and group aggregates (@count; 'scores' crosses a list, which neither GROUP nor another aggregate takes)\n"),
            (["Car GROUP(origin) SELECT(tags)"],
             "error: column 26: 'tags' is not a GROUP key path: a grouped SELECT holds GROUP's key paths and group aggregates (@count; 'tags' crosses a list, which neither GROUP nor another aggregate takes)\n"),
            (["Car GROUP(origin) SELECT(@sum.scores)"], "error: column 31: @sum needs one value per object; 'scores' crosses a list\n"),
            (["Car GROUP(origin) SELECT(maker)"],
             "error: column 26: 'maker' is not a GROUP key path: a grouped SELECT holds GROUP's key paths and group aggregates (@count; add 'maker' to GROUP to show it)\n"),
            (["Car GROUP(origin) SELECT(@max.maker)"], "error: column 31: @max applies to numbers and dates; 'maker' is an object of Maker\n"),
            (["Car SELECT(tags.@min)"], "error: column 12: @min applies to numbers and dates; 'tags' holds string values\n"),
            (["Car DISTINCT ON (origin)"],
             "error: column 14: expected '(' after 'DISTINCT', found 'ON': SQL's DISTINCT ON (origin) is DISTINCT(origin) here: DISTINCT(k, ...) keeps the first object of each combination of the key paths' values\n"),
            (["Car GROUP(origin) SELECT(count(name))"],
             "error: column 31: expected ',' or ')' after 'count', found '(': SQL's count(name) counts the objects whose name is not null: here that is the statement count Car where name != nil, or per group Car where name != nil GROUP(...) SELECT(@count)\n"),
            (["Car SORT(tags.@count) DISTINCT(tags.@count) SELECT(tags.@count)"],
             "error: column 37: DISTINCT takes key paths of 'Car', not aggregates nor SELECT items' names: its objects are told apart by their own values\n"),
            (["Car SELECT( *)"], "error: column 13: SELECT has no '*': leave SELECT out to get whole objects\n"),
            (["Car SORT(n) DISTINCT(n) SELECT(name, tags.@count AS n)"],
             "error: column 22: DISTINCT takes key paths of 'Car', not SELECT items' names; 'n' names the item 'tags.@count AS n'\n"),
        ]
        for (arguments, message) in cases {
            let store = try expectSame(schema: Self.cars, arguments)
            #expect(store.status == 1 && store.out.isEmpty, "\(arguments)")
            #expect(store.err == message, "\(arguments): \(store.err)")
        }
        // The first line is a question of its own; the second cannot start one.
        let split = try expectSame(schema: Self.cars, ["--csv"], stdin: "insert Car {\"id\": 101, \"name\": \"a\", \"origin\": \"x\"}\nCar where id == 101 GROUP(origin)\n  SELECT(origin, @count)\n")
        #expect(split.status == 1 && split.out == "{\"inserted\": 1}\norigin,@count\nx,1\n", "\(split.out)")
        #expect(split.err.hasPrefix("error: line 3, column 3: SELECT(...) cannot start a statement: a statement ends at the end of its line unless a quote or a bracket is still open, "
                                    + "so a question goes on to the next line only inside a bracket left open, as after 'Person GROUP(age) SELECT(age,'"), "\(split.err)")
    }

    /// `get` of a model without a primary key, with a clause or without, says that it has
    /// none, not which query would find objects by it.
    @Test func aGetOfAModelWithoutAPrimaryKeySaysSoWithAClauseOrWithout() throws {
        let schema = #"{"models": [{"name": "Note", "properties": {"text": "string"}}]}"#
        for statement in ["get Note 1", "get Note 1 SELECT(text)"] {
            let result = try expectSame(schema: schema, [statement])
            #expect(result.status == 1 && result.err == "error: column 10: model 'Note' has no primary key: use 'where' to choose objects\n", "\(statement): \(result.err)")
        }
    }

    /// A SORT name that is a property and an item's name orders by the property without GROUP
    /// (SORT orders objects by key paths) and by the item under GROUP (SORT orders rows by their
    /// items), the same on a store and on the server.
    @Test func aSortNameThatIsAPropertyAndAnItemsNameIsThePropertyUngroupedAndTheItemGrouped() throws {
        let sorted = try expectSame(schema: Self.cars, ["--csv"], stdin: """
            insert Car [{"id": 201, "name": "c", "origin": "x"}, {"id": 202, "name": "a", "origin": "x"}, {"id": 203, "name": "b", "origin": "y"}]
            Car where id > 200 SORT(origin DESC, id) SELECT(id, name AS origin)
            Car where id > 200 GROUP(origin) SELECT(@count AS origin) SORT(origin DESC)
            """)
        #expect(sorted.status == 0 && sorted.err.isEmpty, "\(sorted.err)")
        #expect(sorted.out == "{\"inserted\": 3}\nid,origin\n203,b\n201,c\n202,a\norigin\n2\n1\n", "\(sorted.out)")
    }

    /// Every statement that names a model of a database with none says how to give it one,
    /// on a store and on the server alike.
    @Test func aDatabaseWithoutModelsSaysHowToGiveItOne() throws {
        let (_, empty) = try PostgresServer.workspace()
        for statement in ["count Person", "Person", "avg Person.age", "Person GROUP(age)", "Person SELECT(name)", "explain avg Person.age", "watch sum Person.age", ".dump Person", ".schema Person"] {
            let store = try w.run(["empty-\(UUID().uuidString).trove", statement])
            let server = try w.run([empty, statement])
            #expect(store.status == 1 && server.status == 1, "\(statement)")
            #expect(store.err == server.err, "\(statement): \(store.err) \(server.err)")
            #expect(store.err.hasSuffix("no model named 'Person' (the store has no models: open it with --schema FILE, or run .apply-schema FILE)\n"), "\(statement): \(store.err)")
        }
    }

    /// `export` of a question writes its rows, the same on both, as a query prints them; they
    /// are no objects, and import refuses them.
    @Test func anExportOfAQuestionWritesItsRowsWhichDoNotImportBack() throws {
        // Each round's cars have keys of their own: the server's database outlives the round.
        for (round, (clauses, file, expected)) in [("GROUP(origin)", "g.csv", ",1\nx,2\n"), ("AND id < 13 SELECT(name)", "s.csv", "a\nb\n"),
                                                   ("SORT(id DESC) LIMIT(1) SELECT(name AS n)", "p.jsonl", #"{"n": "c"}"# + "\n")].enumerated() {
            let base = 10 * round
            let insert = #"insert Car [{"id": \#(base + 1), "name": "a", "origin": "x"}, {"id": \#(base + 2), "name": "b", "origin": "x"}, {"id": \#(base + 3), "name": "c"}]"#
            let clauses = "where id > \(base) " + clauses
            let exported = try expectSame(schema: Self.cars, ["-c", insert, "-c", "export Car \(clauses) \(file)", "-c", "import Car \(file)"])
            #expect(exported.status == 1, "\(clauses)")
            #expect(exported.err.contains("error: import from '\(file)' failed"), "\(clauses): \(exported.err)")
            let written = try w.read(file)
            #expect(written.hasSuffix(expected), "\(clauses): \(written)")
        }
    }
}
