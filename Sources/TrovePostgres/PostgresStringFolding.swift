import Trove

/// Strings as a store compares them, in SQL: by their NFC forms, and under `[c]` and `[d]` as
/// close to the store's `StringFolding` as PostgreSQL reaches.
///
/// - Without modifiers a store compares, orders and matches (`==`, `<`, `BEGINSWITH`, `LIKE`,
///   ...) the NFC forms of strings, so canonically equivalent spellings (`é` as one code point,
///   or `e` + U+0301) are equal; values are stored as written. Here each side is
///   `normalize(x, NFC)` (IMMUTABLE, so an expression index on it serves lookups, ranges and
///   sorts; see `PostgresTables.indexedValue`); a constant is normalized on this side.
///   `MATCHES` without `[d]` matches the text as stored, on a store and here.
/// - ASCII text folds exactly as in a store: `[c]` lowers A-Z, `[d]` changes nothing.
/// - `[c]` on other text applies ICU's full case mappings in the root locale (lower, upper,
///   lower again, as the store does per scalar), then NFC: `straße` ==[c] `STRASSE` and
///   `İ` folds to `i` + U+0307 as in a store; dotless `ı`, which a store leaves as it is
///   (it has no case folding, only a Turkic one), is kept out of the mappings, which would
///   make it `i`. ICU lowers a Greek capital sigma by context (ς at
///   the end of a word) where the store's case folding always gives σ, so a final `ς` matches
///   a `σ` in a store and not here; Cherokee letters fold to lower case here, to upper case in
///   a store (both sides fold alike, so only mixed-case Cherokee is affected).
/// - `[d]` decomposes canonically (NFD), removes every nonspacing mark (general category Mn,
///   by the Swift runtime's Unicode tables, listed in the SQL as ranges) and recomposes (NFC),
///   as a store does; PostgreSQL's own Unicode version decides the decompositions.
/// Constants are folded on this side with the store's own code.
enum PostgresStringFolding {
    /// The SQL of a string `expression` as a store compares it under `options`: its NFC form,
    /// folded when there are options.
    static func comparable(_ expression: String, _ options: StringComparisonOptions) -> String {
        options.isEmpty ? nfc(expression) : fold(expression, options)
    }

    /// `expression` in NFC: the value an index on a string property holds
    /// (`PostgresTables.indexedValue`), written alike so that the planner matches the two.
    static func nfc(_ expression: String) -> String {
        "normalize(\(expression), NFC)"
    }

    /// `expression` folded under `options`; the text as stored without options (`MATCHES`).
    static func fold(_ expression: String, _ options: StringComparisonOptions) -> String {
        var sql = expression
        if options.contains(.caseInsensitive) {
            sql = "(\(sql))"
            // Dotless ı has no case folding of its own and stays ı in a store, but its upper
            // case is I: the text between them is folded, and they stay.
            sql = "CASE WHEN strpos(\(sql), 'ı') > 0 THEN array_to_string(ARRAY(SELECT \(caseFold("part")) "
                + "FROM unnest(string_to_array(\(sql), 'ı')) WITH ORDINALITY AS parts (part, n) ORDER BY n), 'ı') ELSE \(caseFold(sql)) END"
        }
        if options.contains(.diacriticInsensitive) {
            sql = "regexp_replace(normalize(\(sql), NFD), '\(nonspacingMarks)', '', 'g')"
        }
        if !options.isEmpty { sql = "normalize(\(sql), NFC) COLLATE \"C\"" }
        return sql
    }

    /// ICU's full case mappings in the root locale: lower, upper, lower again.
    private static func caseFold(_ sql: String) -> String {
        "lower(upper(lower(\(sql) COLLATE \"und-x-icu\")))"
    }

    /// A constant as a store compares it under `options`: folded, in NFC.
    static func foldConstant(_ string: String, _ options: StringComparisonOptions) -> String {
        StringFolding.fold(string, options: options)
    }

    /// A regular-expression bracket of every nonspacing mark, as ranges of raw characters.
    static let nonspacingMarks: String = {
        var ranges: [(UInt32, UInt32)] = []
        var scalar: UInt32 = 0
        while scalar <= 0x10FFFF {
            if let s = Unicode.Scalar(scalar), s.properties.generalCategory == .nonspacingMark {
                if let last = ranges.last, last.1 + 1 == scalar {
                    ranges[ranges.count - 1].1 = scalar
                } else {
                    ranges.append((scalar, scalar))
                }
            }
            scalar += 1
        }
        var text = "["
        for (low, high) in ranges {
            text.unicodeScalars.append(Unicode.Scalar(low)!)
            if high > low {
                text += "-"
                text.unicodeScalars.append(Unicode.Scalar(high)!)
            }
        }
        return text + "]"
    }()
}
