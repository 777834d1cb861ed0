/// The `MATCHES` patterns people write, and subjects to match them against (non-ASCII text,
/// combining marks, line terminators): the store's ICU engine is compared with
/// `NSRegularExpression` on them, and PostgreSQL's translation with the store.
public enum RegularExpressionSamples {
    public static let patterns = [
        "abc", "a.c", "a*", "a+b?", "a{2,3}", "a{2,}", "(ab)+", "a|b|cd", "[a-c]+", "[^a-c]+",
        "\\d+", "\\D+", "\\w+", "\\W+", "\\s+", "\\S+", "\\p{L}+", "\\p{Lu}\\p{Ll}*", "\\P{L}+",
        "[[:alpha:]]+", "[[:digit:]]+", "[\\p{L}&&[^a-z]]+", "\\x41\\u0042", "\\Qa.b\\E", "a\\.b",
        "(?i)abc", "(?i:a)bc", "(?s)a.b", "a.b", "(a)\\1", "(?<x>a)\\k<x>", "(?:ab)*c", "a(?=b)b",
        "a(?!c)b", "(?<=a)b", "ab(?<!c)", "(?<!\\d)\\d{2}", "a*+a", "(?>a+)b", "a+?b", "^abc$", "\\bab\\b.*",
        ".*\\b", "\\N{LATIN SMALL LETTER E WITH ACUTE}", "caf.", "caf\\u0301", "e\\x{301}",
        "[\\u00e0-\\u00ff]+", "\\t\\n", "x*", ".{3}", "(?x) a b", "\\Aab\\z", "\\p{Han}+",
        "[a-z&&[^aeiou]]+", "[\\w--\\d]+", "\\d+(\\.\\d+)?", "[\\-a]+", "[]a]", "\\$\\^",
    ]
    public static let subjects = [
        "", "abc", "ABC", "aBc", "ac", "a", "aa", "aaa", "aaaa", "ab", "abab", "abb", "cd", "b",
        "123", "12.5", "a\nb", "a b", "ab ", " \t", "naïve", "café", "cafe\u{301}", "é", "e\u{301}",
        "日本語", "Émile", "a.b", "axb", "AB", "aab", "xyz", "a\tb", "\t\n", "bcd", "$^", "]", "-a",
        "abcabc", "😀", "ÀÿÉ", "ß", "ﬀ", "a\rb", "a\r\nb", "a\u{0B}b", "a\u{0C}b", "a\u{85}b", "a\u{2028}b",
        "a\u{2029}b", "x\ny", "cafe", "caf\n",
    ]
}
