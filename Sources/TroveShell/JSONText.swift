import Trove

/// Lays out `JSONValue`s for output: `{"key": value, ...}` with a space after `:` and `,`
/// (the contract's `{"inserted": N}` style, which `JSONWriter`'s compact and pretty styles
/// do not have); scalars are Trove's `JSONWriter` text.
enum JSONText {
    static func string(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out)
        return out
    }

    /// An aggregate's value as json and jsonl print it (shell contract, "Questions"): a
    /// number (a decimal with every digit it holds), a date's quoted ISO 8601 string, or null.
    static func bare(_ value: Value) -> String {
        if case .decimal(let d) = value { return d.isNaN ? "null" : d.description }
        return string(QueryRow.json(value))
    }

    static func string(_ object: JSONObject) -> String {
        var out = ""
        write(object, into: &out)
        return out
    }

    static func write(_ value: JSONValue, into out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .bigInteger(let digits): out += digits
        case .double(let d): out += number(d)
        case .string(let s): writeString(s, into: &out)
        case .array(let elements):
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += ", " }
                write(element, into: &out)
            }
            out += "]"
        case .object(let object): write(object, into: &out)
        }
    }

    static func write(_ object: JSONObject, into out: inout String) {
        out += "{"
        for (i, pair) in object.pairs.enumerated() {
            if i > 0 { out += ", " }
            writeString(pair.key, into: &out)
            out += ": "
            write(pair.value, into: &out)
        }
        out += "}"
    }

    /// Numbers and strings are written by Trove's `JSONWriter`, so the shell prints exactly
    /// what the store's JSON reads back: JSON has no NaN or infinity, so they print as the
    /// strings a float or double reads back (`"NaN"`, `"Infinity"`, `"-Infinity"`, as
    /// `Value.jsonValue` gives them); integral doubles keep a `.0` so that readers see a
    /// floating-point value.
    static func number(_ d: Double) -> String {
        JSONValue.double(d).jsonText
    }

    static func writeString(_ s: String, into out: inout String) {
        out += JSONValue.string(s).jsonText
    }
}
