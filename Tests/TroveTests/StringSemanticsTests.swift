import Testing
@testable import Trove

@Suite("String folding and matching")
struct StringSemanticsTests {
    private let c: StringComparisonOptions = .caseInsensitive
    private let d: StringComparisonOptions = .diacriticInsensitive
    private let cd: StringComparisonOptions = [.caseInsensitive, .diacriticInsensitive]

    @Test func asciiFolding() {
        #expect(StringFolding.fold("Hello World", options: c) == "hello world")
        #expect(StringFolding.fold("Hello World", options: d) == "Hello World")
        #expect(StringFolding.fold("Hello World", options: []) == "Hello World")
        #expect(StringFolding.fold("", options: cd) == "")
        #expect(StringFolding.fold("@[`{", options: c) == "@[`{")
    }

    @Test func caseFoldingIsFullAndUnicodeAware() {
        #expect(StringComparison.equals("straße", "STRASSE", options: c))
        #expect(StringComparison.equals("STRAẞE", "strasse", options: c))
        #expect(StringComparison.equals("ÉCOLE", "école", options: c))
        #expect(!StringComparison.equals("ÉCOLE", "ecole", options: c))
        #expect(StringComparison.equals("ﬁle", "FILE", options: c))
        #expect(StringComparison.equals("Kelvin \u{212A}", "kelvin k", options: c))
    }

    @Test func greekSigmaFormsFoldTogether() {
        #expect(StringComparison.equals("ΟΔΥΣΣΕΥΣ", "οδυσσευς", options: c))
        #expect(StringComparison.equals("ΣΊΣΥΦΟΣ", "σίσυφος", options: c))
        #expect(!StringComparison.equals("ΣΊΣΥΦΟΣ", "σισυφος", options: c))
        #expect(StringComparison.equals("ΣΊΣΥΦΟΣ", "σισυφος", options: cd))
        #expect(StringComparison.equals("Ἀθῆναι", "αθηναι", options: cd))
    }

    @Test func turkishDotlessAndDottedIAreNotLocaleFolded() {
        // Default (not Turkic) folding: ı is its own letter, İ is i with a dot above.
        #expect(!StringComparison.equals("ı", "I", options: c))
        #expect(!StringComparison.equals("ı", "i", options: cd))
        #expect(!StringComparison.equals("İstanbul", "istanbul", options: c))
        #expect(StringComparison.equals("İstanbul", "istanbul", options: cd))
        #expect(StringComparison.equals("İSTANBUL", "i\u{307}stanbul", options: c))
    }

    @Test func cherokeeFoldsToUpperCase() {
        #expect(StringComparison.equals("\u{AB70}", "\u{13A0}", options: c))
        #expect(StringComparison.equals("\u{13F8}", "\u{13F0}", options: c))
    }

    @Test func caseFoldingMatchesReferenceFoldings() {
        // Python's str.casefold() (CaseFolding.txt C + F), up to canonical equivalence.
        let reference: [(String, String)] = [
            ("\u{DF}", "ss"), ("\u{130}", "i\u{307}"), ("\u{149}", "\u{2BC}n"), ("\u{17F}", "s"),
            ("\u{1F0}", "j\u{30C}"), ("\u{345}", "\u{3B9}"), ("\u{390}", "\u{3B9}\u{308}\u{301}"),
            ("\u{3C2}", "\u{3C3}"), ("\u{3D0}", "\u{3B2}"), ("\u{587}", "\u{565}\u{582}"),
            ("\u{1E9E}", "ss"), ("\u{1F88}", "\u{1F00}\u{3B9}"), ("\u{1FB3}", "\u{3B1}\u{3B9}"),
            ("\u{1FBE}", "\u{3B9}"), ("\u{FB00}", "ff"), ("\u{FB03}", "ffi"), ("\u{10400}", "\u{10428}"),
            ("\u{1C5}", "\u{1C6}"), ("\u{2126}", "\u{3C9}"), ("\u{212B}", "\u{E5}"),
        ]
        for (input, folded) in reference {
            #expect(StringFolding.fold(input, options: c) == folded.precomposedStringWithCanonicalMappingForTests,
                    "fold(\(input.unicodeScalars.map { String($0.value, radix: 16) }))")
        }
    }

    @Test func diacriticFolding() {
        #expect(StringFolding.fold("Ärger café naïve", options: d) == "Arger cafe naive")
        #expect(StringFolding.fold("Ärger", options: cd) == "arger")
        #expect(StringComparison.equals("é", "e", options: d))
        #expect(!StringComparison.equals("é", "e", options: []))
        #expect(!StringComparison.equals("é", "E", options: d))
        #expect(StringComparison.equals("Crème Brûlée", "CREME BRULEE", options: cd))
        // Letters that do not decompose keep their identity.
        #expect(!StringComparison.equals("ø", "o", options: d))
        #expect(!StringComparison.equals("ł", "l", options: d))
    }

    @Test func foldedFormsAreNFCSoCanonicalSpellingsAgree() {
        let precomposed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(StringFolding.fold(decomposed, options: []) == precomposed)
        #expect(Array(StringFolding.fold(decomposed, options: c).utf8) == Array("caf\u{E9}".utf8))
        #expect(FoldedString(precomposed, options: []) == FoldedString(decomposed, options: []))
        #expect(FoldedString(precomposed, options: c).hashValue == FoldedString(decomposed, options: c).hashValue)
        // Hangul syllables survive diacritic folding (their decomposition has no marks).
        #expect(StringFolding.fold("한국어", options: cd) == "한국어")
    }

    @Test func beginsWithEndsWithContains() {
        #expect(StringComparison.beginsWith("Ärger", "arg", options: cd))
        #expect(!StringComparison.beginsWith("Ärger", "arg", options: c))
        #expect(StringComparison.beginsWith("Ärger", "Ärg"))
        #expect(StringComparison.beginsWith("Hello", "HE", options: c))
        #expect(!StringComparison.beginsWith("Hello", "HE"))
        #expect(StringComparison.endsWith("Fußball", "BALL", options: c))
        #expect(StringComparison.endsWith("STRASSE", "ße", options: c))
        #expect(StringComparison.contains("Crème brûlée", "EME BRU", options: cd))
        #expect(!StringComparison.contains("Crème brûlée", "eme", options: c))
        #expect(StringComparison.contains("abcabd", "abd"))
        #expect(!StringComparison.contains("ab", "abc"))
        #expect(!StringComparison.endsWith("b", "ab"))
    }

    @Test func emptyStringsArePrefixesSuffixesAndContained() {
        #expect(StringComparison.beginsWith("abc", ""))
        #expect(StringComparison.endsWith("abc", ""))
        #expect(StringComparison.contains("abc", ""))
        #expect(StringComparison.contains("", ""))
        #expect(!StringComparison.contains("", "a"))
    }

    @Test func matchesRespectCharacterBoundaries() {
        // q + combining dot above has no precomposed form: the q alone is not a character of it.
        #expect(!StringComparison.contains("aq\u{307}b", "q"))
        #expect(!StringComparison.beginsWith("q\u{307}", "q"))
        #expect(StringComparison.contains("aq\u{307}b", "q\u{307}"))
        #expect(StringComparison.contains("aq\u{307}b", "q", options: d))
        let family = "👨‍👩‍👧"
        #expect(!StringComparison.contains("x\(family)y", "👩"))
        #expect(StringComparison.contains("x\(family)y", family))
        #expect(!StringComparison.endsWith("a\r\n", "\n"))
        #expect(StringComparison.endsWith("a\r\n", "\r\n"))
    }

    @Test func orderingIsByUnicodeScalarValues() {
        #expect(StringComparison.compare("a", "b") < 0)
        #expect(StringComparison.compare("B", "a") < 0)
        #expect(StringComparison.compare("é", "f") > 0)
        #expect(StringComparison.compare("z", "é") < 0)
        #expect(StringComparison.compare("abc", "ab") > 0)
        #expect(StringComparison.compare("", "a") < 0)
        #expect(StringComparison.compare("e\u{301}", "\u{E9}") == 0)
        #expect(StringComparison.compare("\u{FFFF}", "😀") < 0)
    }

    @Test func foldedStringsOrderLikeTheirScalars() {
        let words = ["b", "a", "é", "z", "ab", "", "😀", "\u{FFFF}", "Z"]
        let sorted = words.map { FoldedString($0, options: []) }.sorted().map(\.value)
        #expect(sorted == ["", "Z", "a", "ab", "b", "z", "é", "\u{FFFF}", "😀"])
        #expect(sorted == words.sorted { StringComparison.compare($0, $1) < 0 })
    }
}

extension String {
    fileprivate var precomposedStringWithCanonicalMappingForTests: String {
        StringFolding.fold(self, options: [])
    }
}
