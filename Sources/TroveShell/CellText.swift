import Trove

/// How a value reads in a cell of csv, table, markdown and line output: null as empty (csv)
/// or `null`, arrays and objects as compact JSON, strings without quotes in `plain` (csv and
/// tsv) and, in `distinct` (the modes for people), quoted where they could pass for null.
enum CellText {
    static func plain(_ value: JSONValue?, null: String) -> String {
        switch value {
        case nil, .null?: null
        case .string(let s)?: s
        case .bool(let b)?: b ? "true" : "false"
        case .int(let i)?: String(i)
        case .bigInteger(let digits)?: digits
        case .double(let d)?: NonFiniteNumber.text(d) ?? JSONText.number(d)
        case let other?: JSONText.string(other)
        }
    }

    /// A value as the modes for people (table, markdown, line) show it: control characters
    /// would break the layout or the terminal, so they show escaped as in JSON.
    static func visible(_ value: JSONValue?, null: String) -> String {
        visible(distinct(value, null: null))
    }

    /// `plain`, except that a string shows in double quotes as JSON writes it when it is the
    /// null text, is empty or all blanks, has a leading or trailing blank, holds a control
    /// character, or is itself in double quotes. Cells are padded and a line's end is
    /// invisible, so only then could a string pass for null (or for such a string): null and
    /// every string stay apart in the modes for people, whatever `.nullvalue` says.
    static func distinct(_ value: JSONValue?, null: String) -> String {
        if case .string(let s)? = value, needsQuotes(s, null: null) {
            return JSONText.string(.string(s))
        }
        return plain(value, null: null)
    }

    private static func needsQuotes(_ s: String, null: String) -> Bool {
        guard let first = s.unicodeScalars.first, let last = s.unicodeScalars.last else { return true }
        return s == null
            || first.properties.isWhitespace || last.properties.isWhitespace
            || s.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
            || s.count > 1 && s.first == "\"" && s.last == "\""
    }

    /// `text` with its control characters escaped as in JSON.
    static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
