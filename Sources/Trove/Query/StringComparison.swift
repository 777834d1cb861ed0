/// The string operators of predicates, as pure functions on values.
///
/// The evaluator and the planner share these, so that an index lookup and a scan agree. Each
/// folds both operands; to compare many values against one constant, fold the constant once
/// with `FoldedString` (or compile a `LikePattern` / `RegularExpressionPattern`) instead.
package enum StringComparison {
    /// `==` with modifiers. Without modifiers, canonically equivalent strings are equal, as in
    /// Swift.
    package static func equals(_ a: String, _ b: String, options: StringComparisonOptions = []) -> Bool {
        FoldedString(a, options: options) == FoldedString(b, options: options)
    }

    /// `BEGINSWITH`.
    package static func beginsWith(_ string: String, _ prefix: String, options: StringComparisonOptions = []) -> Bool {
        FoldedString(string, options: options).hasPrefix(FoldedString(prefix, options: options))
    }

    /// `ENDSWITH`.
    package static func endsWith(_ string: String, _ suffix: String, options: StringComparisonOptions = []) -> Bool {
        FoldedString(string, options: options).hasSuffix(FoldedString(suffix, options: options))
    }

    /// `CONTAINS`. Every string contains the empty string.
    package static func contains(_ string: String, _ other: String, options: StringComparisonOptions = []) -> Bool {
        FoldedString(string, options: options).contains(FoldedString(other, options: options))
    }

    /// `LIKE`: `*` matches any run of characters, `?` exactly one, over the whole string.
    package static func like(_ string: String, _ pattern: String, options: StringComparisonOptions = []) -> Bool {
        LikePattern(pattern, options: options).matches(string)
    }

    /// The order of `<`, `<=`, `>`, `>=` and `BETWEEN` on strings: by Unicode scalar values
    /// (of the NFC form, so that the order agrees with `==`). Returns a negative number, zero
    /// or a positive number.
    ///
    /// Swift orders strings exactly so, with a memcmp fast path for ASCII.
    package static func compare(_ a: String, _ b: String) -> Int {
        if a == b { return 0 }
        return a < b ? -1 : 1
    }
}
