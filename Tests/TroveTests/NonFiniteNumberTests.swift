import Testing
@testable import Trove

/// NaN and the infinities of floats and doubles have PostgreSQL's spellings: the JSON strings
/// `"NaN"`, `"Infinity"` and `"-Infinity"` out, and those (and text's words) read back as the
/// same values, so what a store writes as JSON loads back equal.
struct NonFiniteNumberTests {
    static let schema = """
        {"models": [{"name": "N", "primaryKey": "id", "properties": {"id": "int", "d": "double", "od": "double?",
         "f": "float", "of": "float?", "ld": "double[]", "lf": "float?[]", "s": "string?"}}]}
        """

    /// A value as text that tells NaN from null and -0 from 0: floats and doubles by their bits.
    static func bits(_ v: Value) -> String {
        switch v {
        case .double(let d): "d\(d.bitPattern)"
        case .float(let f): "f\(f.bitPattern)"
        case .list(let items): "[" + items.map(bits).joined(separator: ",") + "]"
        default: "\(v)"
        }
    }

    @Test func theJSONFormOfANonFiniteFloatOrDoubleIsPostgreSQLsString() {
        #expect(Value.double(.nan).jsonValue == .string("NaN"))
        #expect(Value.double(.infinity).jsonValue == .string("Infinity"))
        #expect(Value.double(-.infinity).jsonValue == .string("-Infinity"))
        #expect(Value.float(.nan).jsonValue == .string("NaN"))
        #expect(Value.float(.infinity).jsonValue == .string("Infinity"))
        #expect(Value.float(-.infinity).jsonValue == .string("-Infinity"))
        #expect(Value.double(-0.0).jsonValue.jsonText == "-0.0")
        #expect(Value.float(-0.0).jsonValue.jsonText == "-0.0")
        #expect(Value.list([.double(.infinity), .double(1.5), .null, .double(.nan)]).jsonValue.jsonText == #"["Infinity",1.5,null,"NaN"]"#)
        #expect(QueryRow.json(.double(-.infinity)) == .string("-Infinity"))
    }

    @Test func aFloatOrDoubleReadsNaNFromAJSONStringAndFromText() throws {
        for type in [PropertyType.double, .float] {
            for input: CoercionInput in [.json(.string("NaN")), .text("NaN"), .text("nan"), .text("NAN")] {
                switch try Coercion.scalar(input, as: type, for: "p") {
                case .double(let d) where type == .double: #expect(d.isNaN, "\(input)")
                case .float(let f) where type == .float: #expect(f.isNaN, "\(input)")
                case let other: Issue.record("\(input) as \(type): \(other)")
                }
            }
            // Neither a JSON string in another case, nor a literal: the query language has no NaN.
            for input: CoercionInput in [.json(.string("nan")), .json(.string("+NaN")), .text("+nan"), .literal(.string("NaN")),
                                         .value(.string("NaN"))] {
                #expect(throws: CoercionError.self, "\(input) as \(type)") { try Coercion.scalar(input, as: type, for: "p") }
            }
        }
        #expect(try Coercion.scalar(.json(.string("NaN")), as: .string, for: "p") == .string("NaN"))
        #expect(try Coercion.scalar(.text("nan"), as: .string, for: "p") == .string("nan"))
        let decimal = #expect(throws: CoercionError.self) { try Coercion.scalar(.text("NaN"), as: .decimal, for: "p") }
        #expect(decimal?.description == #"property 'p' expects decimal, not "NaN", which is not a number"#)
    }

    @Test func spellingsAreWrittenAndReadAsPostgreSQLDoes() {
        #expect([Double.nan, .infinity, -.infinity, 0, -0.0, 1e308].map(NonFiniteNumber.text) == ["NaN", "Infinity", "-Infinity", nil, nil, nil])
        for (text, value) in [("Infinity", Double.infinity), ("+Infinity", .infinity), ("-Infinity", -.infinity), ("inf", .infinity),
                              ("+inf", .infinity), ("-INF", -.infinity), ("iNfInItY", .infinity)] {
            #expect(NonFiniteNumber.value(ofText: text) == value, "\(text)")
        }
        #expect(NonFiniteNumber.value(ofText: "NaN")?.isNaN == true)
        for text in ["", "-", "na", "nann", "-nan", "infin", "infinityy", "+-inf", " inf", "1e999", "-Infinity-Infinity"] {
            #expect(NonFiniteNumber.value(ofText: text) == nil, "\(text)")
        }
        #expect(NonFiniteNumber.value(ofJSONString: "Infinity") == .infinity)
        #expect(NonFiniteNumber.value(ofJSONString: "-Infinity") == -.infinity)
        #expect(NonFiniteNumber.value(ofJSONString: "NaN")?.isNaN == true)
        for text in ["inf", "-inf", "infinity", "+Infinity", "nan", "NAN"] { #expect(NonFiniteNumber.value(ofJSONString: text) == nil, "\(text)") }
    }

    /// Each object's JSON, read into a new store (as `import` reads it), gives back the same
    /// values, bit for bit (a NaN reads back as the standard NaN, its sign and payload not kept): NaN, both infinities and -0 in required and optional floats and
    /// doubles and in lists.
    @Test func objectsJSONLoadsBackEqualIntoANewStore() throws {
        let values: [[String: Value]] = [
            ["id": 1, "d": .double(.nan), "od": .double(.infinity), "f": .float(-.infinity), "of": .float(.nan),
             "ld": [.double(.nan), .double(.infinity), .double(-.infinity), .double(-0.0), .double(1.5)],
             "lf": [.float(.nan), .null, .float(-0.0), .float(.infinity)], "s": "NaN"],
            ["id": 2, "d": .double(-.infinity), "od": .null, "f": .float(.infinity), "of": .float(-0.0), "ld": [], "lf": [], "s": "Infinity"],
            ["id": 3, "d": .double(-0.0), "od": .double(-.infinity), "f": .float(-0.0), "of": .float(.infinity), "ld": [.double(-0.0)],
             "lf": [.float(-.infinity)], "s": .null],
        ]
        let source = try Store(configuration: .inMemory(schema: try schemaFromJSON(Self.schema)))
        try source.write { tx in for v in values { _ = try tx.insert("N", v) } }
        let names = ["id", "d", "od", "f", "of", "ld", "lf", "s"]
        func contents(_ store: Store) throws -> [[String]] {
            try store.read { r in try r.objects("N").map { o in try names.map { Self.bits(try o.value($0)) } }.sorted { $0[0] < $1[0] } }
        }
        let texts = try source.read { r in try r.objects("N").map { JSONValue.object(try $0.json()).jsonText } }
        #expect(texts.first == #"{"id":1,"d":"NaN","od":"Infinity","f":"-Infinity","of":"NaN","ld":["NaN","Infinity","-Infinity",-0.0,1.5],"lf":["NaN",null,-0.0,"Infinity"],"s":"NaN"}"#)
        let target = try Store(configuration: .inMemory(schema: try schemaFromJSON(Self.schema)))
        try target.write { tx in
            for text in texts {
                guard case .object(let json) = try JSONValue(parsing: text) else { Issue.record("not an object: \(text)"); return }
                _ = try tx.insert("N", try tx.values(fromJSON: json, model: "N"))
            }
        }
        #expect(try contents(target) == contents(source))
        #expect(try contents(source).first?[1] == Self.bits(.double(.nan)))
        #expect(try target.read { r in try r.object("N", primaryKey: 1)?.value("s") } == .string("NaN"))
    }
}
