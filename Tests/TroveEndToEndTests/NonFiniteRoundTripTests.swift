import Foundation
import Testing
import Trove

/// NaN, both infinities and -0 in required and optional floats and doubles and in lists,
/// stored through the Swift API, come back equal (bit for bit, but for a NaN, which reads back as the standard NaN) from every way out and in:
/// `export` to JSON lines, CSV and TSV then `import`, and `.dump` then `-f`; and print in
/// PostgreSQL's spelling in every mode. A string property keeps such text as text.
@Suite struct NonFiniteRoundTripTests {
    let w: Workspace
    init() throws { w = try Workspace() }

    static let schemaText = """
        {"models": [{"name": "N", "primaryKey": "id", "properties": {"id": "int", "d": "double", "od": "double?",
         "f": "float", "of": "float?", "ld": "double[]", "lf": "float?[]", "s": "string?"}}]}
        """
    static let names = ["id", "d", "od", "f", "of", "ld", "lf", "s"]

    static let objects: [[String: Value]] = [
        ["id": 1, "d": .double(.nan), "od": .double(.infinity), "f": .float(-.infinity), "of": .float(.nan),
         "ld": [.double(.nan), .double(.infinity), .double(-.infinity), .double(-0.0), .double(1.5)],
         "lf": [.float(.nan), .null, .float(-0.0), .float(.infinity)], "s": "NaN"],
        ["id": 2, "d": .double(-.infinity), "od": .null, "f": .float(.infinity), "of": .float(-0.0), "ld": [], "lf": [], "s": "-inf"],
        ["id": 3, "d": .double(-0.0), "od": .double(-.infinity), "f": .float(-0.0), "of": .float(.infinity), "ld": [.double(-0.0)],
         "lf": [.float(-.infinity)], "s": .null],
        ["id": 4, "d": .double(.infinity), "od": .double(.nan), "f": .float(.nan), "of": .null, "ld": [.double(.infinity)],
         "lf": [.null], "s": "Infinity"],
    ]

    /// The first object as `export` writes it to JSON lines.
    static let firstLine = #"{"id": 1, "d": "NaN", "od": "Infinity", "f": "-Infinity", "of": "NaN", "ld": ["NaN", "Infinity", "-Infinity", -0.0, 1.5], "lf": ["NaN", null, -0.0, "Infinity"], "s": "NaN"}"#

    /// A store file at `name` holding `objects`, written through the Swift API.
    static func makeStore(_ path: String) throws {
        let store = try Store(path: path, schema: try Schema(jsonData: Array(schemaText.utf8)))
        try store.write { tx in for v in objects { _ = try tx.insert("N", v) } }
    }

    /// A value as text that tells NaN from null and -0 from 0: floats and doubles by their bits.
    static func bits(_ v: Value) -> String {
        switch v {
        case .double(let d): "d\(d.bitPattern)"
        case .float(let f): "f\(f.bitPattern)"
        case .list(let items): "[" + items.map(bits).joined(separator: ",") + "]"
        default: "\(v)"
        }
    }

    /// Every object of the store file at `path`, read through the Swift API, by primary key.
    static func contents(_ path: String) throws -> [[String]] {
        let store = try Store(path: path)
        return try store.read { r in
            try r.objects("N").map { o in try names.map { bits(try o.value($0)) } }.sorted { $0[0] < $1[0] }
        }
    }

    static var expected: [[String]] {
        objects.map { o in names.map { bits(o[$0] ?? .null) } }
    }

    @Test(arguments: ["jsonl", "json", "csv", "tsv"])
    func anExportImportsBackEqual(_ ext: String) throws {
        try Self.makeStore(w.path("a.trove"))
        let export = try w.run(["a.trove", "export N out.\(ext)"])
        #expect(export.status == 0, "\(export.err)")
        if ext == "jsonl" { #expect(try w.read("out.jsonl").split(separator: "\n").first.map(String.init) == Self.firstLine) }
        if ext == "csv" {
            #expect(try w.read("out.csv").split(separator: "\n").dropFirst().first
                    == #"1,NaN,Infinity,-Infinity,NaN,"[""NaN"", ""Infinity"", ""-Infinity"", -0.0, 1.5]","[""NaN"", null, -0.0, ""Infinity""]",NaN"#)
        }
        let load = try w.run(["b.trove", "--schema", try w.write("s.json", Self.schemaText), "import N out.\(ext)"])
        #expect(load.status == 0 && load.out == #"{"inserted": 4}"# + "\n", "\(load.err)")
        #expect(try Self.contents(w.path("b.trove")) == Self.expected)
    }

    @Test func aDumpReloadsEqual() throws {
        try Self.makeStore(w.path("a.trove"))
        let dump = try w.run(["a.trove", ".dump"])
        #expect(dump.status == 0 && dump.err.isEmpty, "\(dump.err)")
        #expect(dump.out.contains("insert N " + Self.firstLine + "\n"), "\(dump.out)")
        try w.write("a.dump", dump.out)
        let reload = try w.run(["b.trove", "-f", "a.dump"])
        #expect(reload.status == 0, "\(reload.err)")
        #expect(try Self.contents(w.path("b.trove")) == Self.expected)
        #expect(try w.run(["b.trove", ".dump"]).out == dump.out)
    }

    @Test func everyModePrintsPostgreSQLsSpelling() throws {
        try Self.makeStore(w.path("a.trove"))
        func run(_ mode: String, _ statement: String) throws -> String {
            let r = try w.run(["a.trove", "--\(mode)", statement])
            #expect(r.status == 0, "\(r.err)")
            return r.out
        }
        let query = "N where id == 2 SELECT(d, od, f, of)"
        #expect(try run("jsonl", query) == #"{"d": "-Infinity", "od": null, "f": "Infinity", "of": -0.0}"# + "\n")
        #expect(try run("json", query) == "[\n  " + #"{"d": "-Infinity", "od": null, "f": "Infinity", "of": -0.0}"# + "\n]\n")
        #expect(try run("csv", query) == "d,od,f,of\n-Infinity,,Infinity,-0.0\n")
        #expect(try run("tsv", query) == "d\tod\tf\tof\n-Infinity\t\tInfinity\t-0.0\n")
        #expect(try run("line", query) == " d = -Infinity\nod = null\n f = Infinity\nof = -0.0\n")
        let table = try run("table", query)
        #expect(table.contains(" -Infinity ") && table.contains(" Infinity ") && !table.contains("\""), "\(table)")
        // Aggregates: +inf and -inf make NaN; a sum that meets +inf alone is +inf.
        #expect(try run("jsonl", "avg N.d where id == 2 or id == 4") == #""NaN""# + "\n")
        #expect(try run("csv", "sum N.d where id == 4") == "Infinity\n")
        #expect(try run("jsonl", "N where id == 1 SELECT(ld.@max, ld.@sum)") == #"{"ld.@max": "Infinity", "ld.@sum": "NaN"}"# + "\n")
    }

    /// Text arguments and CSV fields give a float or double NaN and the infinities in
    /// PostgreSQL's spellings, any case; a string property keeps the text; a decimal refuses it.
    @Test func argumentsAndFieldsReadTheWordsForFloatsAndDoublesOnly() throws {
        let schema = try w.write("s.json", Self.schemaText)
        #expect(try w.run(["a.trove", "--schema", schema, #"insert N {"id": 1, "d": 0, "f": 0, "s": "x"}"#]).status == 0)
        for (text, printed) in [("nan", #""NaN""#), ("-INF", #""-Infinity""#), ("+Infinity", #""Infinity""#), ("inf", #""Infinity""#)] {
            let r = try w.run(["a.trove", "--arg", text, "update N 1 set d = $0, f = $0, s = $0", "N SELECT(d, f, s)"])
            #expect(r.status == 0, "\(r.err)")
            #expect(r.out == #"{"updated": 1}"# + "\n" + #"{"d": \#(printed), "f": \#(printed), "s": "\#(text)"}"# + "\n")
        }
        try w.write("in.csv", "id,d,od,f,of,s\n2,nan,-inf,INFINITY,+inf,NaN\n")
        #expect(try w.run(["a.trove", "import N in.csv"]).status == 0)
        #expect(try w.run(["a.trove", "N where id == 2 SELECT(d, od, f, of, s)"]).out
                == #"{"d": "NaN", "od": "-Infinity", "f": "Infinity", "of": "Infinity", "s": "NaN"}"# + "\n")
        // Not a literal of the query language.
        let literal = try w.run(["a.trove", #"update N 1 set d = "NaN""#])
        #expect(literal.status == 1 && literal.err.contains(#"expects double, not the string "NaN""#), "\(literal.err)")
    }
}

/// The same values through PostgreSQL: imported from each export (by COPY), copied from a
/// store and back, exported and printed as a store does.
@Suite(PostgresServer.isGiven)
struct PostgresNonFiniteRoundTripTests {
    let w: Workspace, url: String
    init() throws { (w, url) = try PostgresServer.workspace() }

    @Test(arguments: ["jsonl", "csv", "tsv"])
    func anExportImportsIntoTheServerAndComesBackEqual(_ ext: String) throws {
        try NonFiniteRoundTripTests.makeStore(w.path("a.trove"))
        #expect(try w.run(["a.trove", "export N out.\(ext)"]).status == 0)
        let load = try w.run([url, "--schema", try w.write("s.json", NonFiniteRoundTripTests.schemaText), "import N out.\(ext)"])
        #expect(load.status == 0 && load.out == #"{"inserted": 4}"# + "\n", "\(load.err)")
        let exported = try w.run([url, "export N back.\(ext)"])
        #expect(exported.status == 0, "\(exported.err)")
        #expect(try w.bytes("back.\(ext)") == w.bytes("out.\(ext)"))
        let copied = try w.run([url, ".copy b.trove"])
        #expect(copied.status == 0, "\(copied.err)")
        #expect(try NonFiniteRoundTripTests.contents(w.path("b.trove")) == NonFiniteRoundTripTests.expected)
    }

    @Test func aStoreCopiedToTheServerAndBackIsEqual() throws {
        try NonFiniteRoundTripTests.makeStore(w.path("a.trove"))
        let there = try w.run(["a.trove", ".copy \(url)"])
        #expect(there.status == 0, "\(there.err)")
        let back = try w.run([url, ".copy b.trove"])
        #expect(back.status == 0, "\(back.err)")
        #expect(try NonFiniteRoundTripTests.contents(w.path("b.trove")) == NonFiniteRoundTripTests.expected)
        // And the server's text and JSON agree with the store's.
        let statements = ["N SORT(id)", "get N 1", "avg N.d where id == 2 or id == 4", "sum N.f where id == 2",
                          "N SORT(id) SELECT(id, ld.@max, ld.@sum)", "--arg", "inf", "count N where d == $0"]
        for mode in ["json", "jsonl", "csv", "tsv", "line"] {
            let store = try w.run(["a.trove", "--\(mode)"] + statements)
            let server = try w.run([url, "--\(mode)"] + statements)
            #expect(store.status == 0 && server.status == 0, "\(mode): \(store.err)\(server.err)")
            #expect(server.out == store.out, "\(mode):\n\(server.out)\nexpected\n\(store.out)")
            #expect(store.out.contains("Infinity"), "\(mode): \(store.out)")
        }
    }
}
