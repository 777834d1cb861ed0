import Testing
@testable import Trove
import TestRandom

/// Differential tests: the fast matchers against slow, obviously correct references, on many
/// generated strings (deterministic, so a failure reproduces).
@Suite("String matchers against references")
struct StringReferenceTests {
    private typealias Generator = SplitMix64

    private static func randomString(_ alphabet: [String], maxLength: Int, using generator: inout Generator) -> String {
        let length = Int.random(in: 0...maxLength, using: &generator)
        return (0..<length).map { _ in alphabet.randomElement(using: &generator)! }.joined()
    }

    /// LIKE by dynamic programming over Characters: quadratic, but plainly right.
    private static func referenceLike(_ string: [Character], _ pattern: [Character]) -> Bool {
        var row = [Bool](repeating: false, count: string.count + 1)
        row[0] = true
        for p in pattern {
            var next = [Bool](repeating: false, count: string.count + 1)
            if p == "*" {
                var seen = false
                for i in 0...string.count {
                    seen = seen || row[i]
                    next[i] = seen
                }
            } else {
                for i in 0..<string.count where row[i] && (p == "?" || string[i] == p) {
                    next[i + 1] = true
                }
            }
            row = next
        }
        return row[string.count]
    }

    @Test func likeAgreesWithDynamicProgramming() {
        var generator = Generator(seed: 1)
        let subjects = ["a", "b", "ab", "é", "e\u{301}", "\r\n", "\r"]
        let patterns = ["a", "b", "*", "?", "é", "\r\n"]
        for _ in 0..<3000 {
            let string = Self.randomString(subjects, maxLength: 8, using: &generator)
            let pattern = Self.randomString(patterns, maxLength: 6, using: &generator)
            let expected = Self.referenceLike(
                Array(StringFolding.fold(string, options: [])), Array(StringFolding.fold(pattern, options: [])))
            #expect(LikePattern(pattern).matches(string) == expected, "\(string.debugDescription) LIKE \(pattern.debugDescription)")
        }
    }

    /// CONTAINS over Characters of the folded forms.
    private static func referenceContains(_ string: [Character], _ needle: [Character]) -> Bool {
        if needle.isEmpty { return true }
        guard needle.count <= string.count else { return false }
        return (0...(string.count - needle.count)).contains { Array(string[$0..<($0 + needle.count)]) == needle }
    }

    @Test func containsPrefixSuffixAgreeWithCharacterReferences() {
        var generator = Generator(seed: 2)
        let alphabet = ["a", "A", "é", "É", "e\u{301}", "q", "\u{307}", "ß", "SS", "👩", "\u{200D}", "\r", "\n"]
        for _ in 0..<3000 {
            let options = StringComparisonOptions(rawValue: UInt8.random(in: 0...3, using: &generator))
            let string = Self.randomString(alphabet, maxLength: 7, using: &generator)
            let needle = Self.randomString(alphabet, maxLength: 3, using: &generator)
            let s = FoldedString(string, options: options), n = FoldedString(needle, options: options)
            let characters = Array(s.value), needleCharacters = Array(n.value)
            let context = "\(string.debugDescription) vs \(needle.debugDescription) \(options)"
            #expect(s.contains(n) == Self.referenceContains(characters, needleCharacters), "CONTAINS \(context)")
            #expect(s.hasPrefix(n) == characters.starts(with: needleCharacters), "BEGINSWITH \(context)")
            #expect(s.hasSuffix(n) == characters.reversed().starts(with: needleCharacters.reversed()), "ENDSWITH \(context)")
            #expect((s == n) == (characters == needleCharacters), "== \(context)")
        }
    }
}
