import Trove

/// Serializes `JSONValue`s for output: `{"key": value, ...}` with a space after `:` and
/// `,` (the contract's `{"inserted": N}` style), non-ASCII text as UTF-8.
///
/// Kept in this one file so it can be swapped for Trove's `JSONWriter` once that exists.
enum JSONText {
    static func string(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out)
        return out
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

    /// JSON has no NaN or infinity: they print as `null`. Integral doubles keep a `.0` so
    /// that readers see a floating-point value.
    static func number(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        return d.description
    }

    static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
