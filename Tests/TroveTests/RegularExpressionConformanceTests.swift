import Foundation
import Testing
@testable import Trove

/// `MATCHES` calls ICU's C API (the shell links no Foundation); the shell contract promises
/// ICU's syntax as `NSRegularExpression` takes it. These compare the two on the constructs
/// people write, pattern by subject.
@Suite("MATCHES against NSRegularExpression")
struct RegularExpressionConformanceTests {
    private static let patterns = [
        "abc", "a.c", "a*", "a+b?", "a{2,3}", "a{2,}", "(ab)+", "a|b|cd", "[a-c]+", "[^a-c]+",
        "\\d+", "\\D+", "\\w+", "\\W+", "\\s+", "\\S+", "\\p{L}+", "\\p{Lu}\\p{Ll}*", "\\P{L}+",
        "[[:alpha:]]+", "[[:digit:]]+", "[\\p{L}&&[^a-z]]+", "\\x41\\u0042", "\\Qa.b\\E", "a\\.b",
        "(?i)abc", "(?i:a)bc", "(?s)a.b", "a.b", "(a)\\1", "(?<x>a)\\k<x>", "(?:ab)*c", "a(?=b)b",
        "a(?!c)b", "(?<=a)b", "ab(?<!c)", "(?<!\\d)\\d{2}", "a*+a", "(?>a+)b", "a+?b", "^abc$", "\\bab\\b.*",
        ".*\\b", "\\N{LATIN SMALL LETTER E WITH ACUTE}", "caf.", "caf\\u0301", "e\\x{301}",
        "[\\u00e0-\\u00ff]+", "\\t\\n", "x*", ".{3}", "(?x) a b", "\\Aab\\z", "\\p{Han}+",
        "[a-z&&[^aeiou]]+", "[\\w--\\d]+", "\\d+(\\.\\d+)?", "[\\-a]+", "[]a]", "\\$\\^",
    ]
    private static let subjects = [
        "", "abc", "ABC", "aBc", "ac", "a", "aa", "aaa", "aaaa", "ab", "abab", "abb", "cd", "b",
        "123", "12.5", "a\nb", "a b", "ab ", " \t", "naïve", "café", "cafe\u{301}", "é", "e\u{301}",
        "日本語", "Émile", "a.b", "axb", "AB", "aab", "xyz", "a\tb", "\t\n", "bcd", "$^", "]", "-a",
        "abcabc", "😀", "ÀÿÉ", "ß", "ﬀ",
    ]

    @Test(arguments: [StringComparisonOptions(), .caseInsensitive])
    func agreesWithNSRegularExpression(options: StringComparisonOptions) throws {
        var disagreements: [String] = []
        for pattern in Self.patterns {
            let icu = try NSRegularExpression(
                pattern: "(?:" + pattern + ")\\z",
                options: options.contains(.caseInsensitive) ? [.caseInsensitive] : [])
            guard let ours = try? RegularExpressionPattern(pattern, options: options) else {
                disagreements.append("\(pattern.debugDescription): not accepted")
                continue
            }
            for subject in Self.subjects {
                let range = NSRange(location: 0, length: subject.utf16.count)
                let expected = icu.firstMatch(in: subject, options: [.anchored], range: range) != nil
                if ours.matches(subject) != expected {
                    disagreements.append("\(pattern.debugDescription) on \(subject.debugDescription): ICU \(expected)")
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
    }

    @Test func onePatternMatchesOnManyThreadsAtOnce() async throws {
        let pattern = try RegularExpressionPattern("(\\w+) \\1", options: .caseInsensitive)
        let results = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<64 {
                group.addTask {
                    let word = String(repeating: "ab", count: i + 1)
                    let hit = "\(word) \(word.uppercased())", miss = "\(word) \(word)x"
                    return (0..<200).allSatisfy { _ in pattern.matches(hit) && !pattern.matches(miss) }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 64 && results.allSatisfy { $0 })
    }
}
