/// NaN and the infinities of a `float` or `double`, spelt as PostgreSQL spells them: JSON has
/// no such numbers, so its form of one is a string (`"NaN"`, `"Infinity"`, `"-Infinity"`, as
/// PostgreSQL's `to_json` writes them), and text (CSV, TSV, the modes for people) has the bare
/// words. Reading takes them back for a `float` or `double` property only (``Coercion``): a
/// string property keeps the text. A NaN reads back as the standard NaN: its sign and payload
/// are not kept.
package enum NonFiniteNumber {
    /// `NaN`, `Infinity` or `-Infinity` for a non-finite `d`; nil for a finite one.
    package static func text(_ d: Double) -> String? {
        if d.isFinite { return nil }
        return d.isNaN ? "NaN" : d < 0 ? "-Infinity" : "Infinity"
    }

    /// The value a JSON string spells: exactly `NaN`, `Infinity` or `-Infinity`, as JSON is
    /// written by programs.
    package static func value(ofJSONString s: String) -> Double? {
        switch s {
        case "NaN": .nan
        case "Infinity": .infinity
        case "-Infinity": -.infinity
        default: nil
        }
    }

    /// The value text spells (a CSV or TSV field, an argument) in PostgreSQL's words: `NaN`,
    /// `Infinity` or `inf` with an optional sign for the infinities, in any case.
    package static func value(ofText text: String) -> Double? {
        // The longest spelling is "+Infinity": anything longer is no such word, and is not lowered.
        guard text.utf8.count <= 9 else { return nil }
        var word = Substring(text.lowercased())
        if word == "nan" { return .nan }
        var sign = 1.0
        if let first = word.first, first == "-" || first == "+" {
            sign = first == "-" ? -1 : 1
            word = word.dropFirst()
        }
        return word == "infinity" || word == "inf" ? sign * .infinity : nil
    }
}
