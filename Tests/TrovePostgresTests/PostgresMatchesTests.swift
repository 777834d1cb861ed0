import Foundation
import RegularExpressionSamples
import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// `MATCHES` on PostgreSQL: the patterns whose meaning is the same in ICU's syntax and
/// PostgreSQL's give a store's answers, with `[c]` for those of ASCII characters; every other
/// pattern is refused at its `MATCHES`.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresMatchesTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "Text", "primaryKey": "id", "properties": {"id": "int", "s": "string?"}}]}
        """#.utf8), fileName: "text")

    /// Patterns of the translated subset beyond the samples (escapes, brackets of non-ASCII
    /// characters and escaped punctuation, empty branches and groups, bounds), then patterns
    /// outside it.
    static let extraPatterns = [
        ".", ".*", "[^a]", "a\\-b", "[\\]\\-]+", "(|a)b", "a|", "()*a", "é+", "[é-ü]+", "😀|[😀-😂]", "a{0}b?",
        "(a|b){1,2}c?", "[.]b", "\\(\\)", "caf[eé]", "[^\\-]*", "ca(?:f.|fe\u{301})",
        // Outside the subset (the empty pattern is refused by a store too).
        "", "a\\ b", "[^\\n]*", "[a-]", "a{256}", "[a&b]", "a{,2}", "a**", "(?m)a", "\\1", "[a-\\d]", "a{2}?", "[^]a]",
    ]

    /// The patterns of the samples and the extras that are translated.
    static let translated: Set<String> = [
        "abc", "a.c", "a*", "a+b?", "a{2,3}", "a{2,}", "(ab)+", "a|b|cd", "[a-c]+", "[^a-c]+", "a\\.b", "a.b",
        "(?:ab)*c", "caf.", "x*", ".{3}", "[\\-a]+", "\\$\\^",
        ".", ".*", "[^a]", "a\\-b", "[\\]\\-]+", "(|a)b", "a|", "()*a", "é+", "[é-ü]+", "😀|[😀-😂]", "a{0}b?",
        "(a|b){1,2}c?", "[.]b", "\\(\\)", "caf[eé]", "[^\\-]*", "ca(?:f.|fe\u{301})",
    ]

    /// The translated patterns `[c]` takes too: those of ASCII characters (after `[d]`, which
    /// folds the pattern first).
    static func translatedCaseInsensitive(_ modifier: String) -> Set<String> {
        let folded = modifier == "[cd]" ? ["é+", "[é-ü]+", "caf[eé]", "ca(?:f.|fe\u{301})"] : []
        return translated.filter { $0.unicodeScalars.allSatisfy(\.isASCII) }.union(folded)
    }

    static func literal(_ s: String) -> String {
        "'" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    @Test func translatedPatternsMatchAsOnAStoreAndTheOthersAreRefusedAtTheirMATCHES() throws {
        let store = try Store(configuration: .inMemory(schema: Self.schema))
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.schema)
        let subjects = RegularExpressionSamples.subjects
        try store.write { tx in
            for (id, subject) in subjects.enumerated() { _ = try tx.insert("Text", ["id": .int(Int64(id)), "s": .string(subject)]) }
            _ = try tx.insert("Text", ["id": .int(Int64(subjects.count))])
        }
        try postgres.begin()
        for (id, subject) in subjects.enumerated() { try postgres.insert("Text", ["id": .int(Int64(id)), "s": .string(subject)]) }
        try postgres.insert("Text", ["id": .int(Int64(subjects.count))])
        try postgres.commit()

        var compared = 0, matched = 0
        for pattern in RegularExpressionSamples.patterns + Self.extraPatterns {
            for modifier in ["", "[d]", "[c]", "[cd]"] {
                // Given as a literal and as an argument.
                for (operand, arguments) in [(Self.literal(pattern), [Value]()), ("$0", [.string(pattern)])] {
                    let text = "Text where s MATCHES\(modifier) \(operand) SORT(id)"
                    let expected: [Int64]
                    do {
                        expected = try store.read { snapshot in
                            try snapshot.query(text, arguments: arguments).map { object -> Int64 in
                                guard case .int(let id)? = try object.json()["id"] else { return -1 }
                                return id
                            }
                        }
                    } catch let storeError as QueryError {
                        // An invalid pattern: the store's error, at the pattern.
                        #expect(!Self.translated.contains(pattern), "\(text): \(storeError)")
                        do {
                            _ = try postgres.objects(text, arguments: arguments)
                            Issue.record("\(text): PostgreSQL answers; a store refuses it: \(storeError.message)")
                        } catch let error as QueryError {
                            #expect(error.kind == storeError.kind && error.message == storeError.message && error.column == storeError.column,
                                    "\(text): \(error)\n  expected \(storeError)")
                        }
                        continue
                    }
                    if modifier.contains("c") ? Self.translatedCaseInsensitive(modifier).contains(pattern) : Self.translated.contains(pattern) {
                        let got = try postgres.objects(text, arguments: arguments).objects.map { row -> Int64 in
                            if case .int(let id) = row[0] { return id }
                            return -1
                        }
                        #expect(got == expected, "\(text) \(arguments)\n  got \(got.map { subjects[Int($0)] })\n  expected \(expected.map { subjects[Int($0)] })")
                        compared += 1
                        if !expected.isEmpty { matched += 1 }
                    } else {
                        do {
                            _ = try postgres.objects(text, arguments: arguments)
                            Issue.record("\(text) \(arguments): PostgreSQL answers")
                        } catch let error as QueryError {
                            #expect(error.kind == .unsupported && error.column == 14 && error.message.hasPrefix("MATCHES"), "\(text): \(error)")
                        }
                    }
                }
            }
        }
        #expect(compared == (Self.translated.count * 2 + Self.translatedCaseInsensitive("[c]").count + Self.translatedCaseInsensitive("[cd]").count) * 2)
        #expect(matched > compared / 2)
    }

    /// `MATCHES[c]` against a store over random patterns of ASCII characters (runs of literal
    /// characters, quantified ones, brackets and negated ones, groups, alternatives) and random
    /// subjects of the characters ICU's case folding equates with ASCII ones (`ß`, `ẞ`, `ſ`, K,
    /// the ligatures) and of others that it does not (`İ`, `ı`, `é`, final sigma).
    @Test func caseInsensitivePatternsMatchAsOnAStore() throws {
        let store = try Store(configuration: .inMemory(schema: Self.schema))
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.schema)
        var random = PostgresFixtures.Random(state: 30)
        let letters = ["s", "S", "ß", "ẞ", "ſ", "t", "T", "f", "F", "ﬀ", "ﬁ", "ﬂ", "ﬃ", "ﬄ", "ﬅ", "ﬆ", "i", "I", "İ", "ı",
                       "k", "K", "\u{212A}", "l", "é", "É", "e\u{301}", "σ", "ς", "Σ", ".", "-", " ", "\n", "1", "a", "A", "z"]
        var subjects: Set<String> = ["", "ss", "SS", "sS", "ß", "ẞ", "ſs", "ſſ", "st", "ST", "ﬅ", "ﬆ", "ffi", "FFI", "ﬃ", "ﬀi", "fﬁ",
                                     "straße", "STRASSE", "Strasse", "k", "K", "\u{212A}", "i", "I", "İ", "ı", "i\u{307}"]
        while subjects.count < 400 {
            subjects.insert((0..<random.int(1...6)).map { _ in random.pick(letters) }.joined())
        }
        let ordered = subjects.sorted()
        try store.write { tx in
            for (id, subject) in ordered.enumerated() { _ = try tx.insert("Text", ["id": .int(Int64(id)), "s": .string(subject)]) }
        }
        try postgres.begin()
        for (id, subject) in ordered.enumerated() { try postgres.insert("Text", ["id": .int(Int64(id)), "s": .string(subject)]) }
        try postgres.commit()

        func atom(_ depth: Int) -> String {
            switch random.int(0...9) {
            case 0...4: return random.pick(["s", "S", "t", "f", "F", "i", "I", "k", "K", "l", "e", "a", "z", "1", " ", "\\.", "-"])
            case 5: return random.pick([".", "[a-z]", "[A-Z]", "[^s]", "[^a-z]", "[k-t]", "[fs]", "[^F-I]", "[ -/]", "[S-s]"])
            case 6...7 where depth < 2: return "(" + alternation(depth + 1) + ")"
            default: return random.pick(["ss", "st", "ffi", "fi", "ff", "fl", "SS", "Ffl", "sst", "iss"])
            }
        }
        func alternation(_ depth: Int) -> String {
            (0..<(random.chance(25) ? 2 : 1)).map { _ in
                (0..<random.int(1...4)).map { _ in atom(depth) + (random.chance(30) ? random.pick(["*", "+", "?", "{2}", "{1,2}"]) : "") }.joined()
            }.joined(separator: "|")
        }
        var patterns: Set<String> = ["ss", "s+", "s{2}", "(?:ss)+", "ß", "stra.e", "STRASSE", "k", "[k]", "[^k]", "[a-z]+", "[^a-z]+",
                                     "fi", "f+i", "ffi", "ff|fi", "[s-t]+", "s*t", "[^s]", "i", "I", "[i]+", "sssssssss", "[fi]ﬁ"]
        while patterns.count < 300 { patterns.insert(alternation(0)) }
        var compared = 0, matched = 0, refused = 0
        for pattern in patterns.sorted() {
            for modifier in ["[c]", "[cd]"] {
                let text = "Text where s MATCHES\(modifier) $0 SORT(id)"
                let expected = try store.read { snapshot in
                    try snapshot.query(text, arguments: [.string(pattern)]).map { object -> Int64 in
                        guard case .int(let id)? = try object.json()["id"] else { return -1 }
                        return id
                    }
                }
                let got: [Int64]
                do {
                    got = try postgres.objects(text, arguments: [.string(pattern)]).objects.map { row -> Int64 in
                        if case .int(let id) = row[0] { return id }
                        return -1
                    }
                } catch let error as QueryError {
                    // Only a non-ASCII pattern is refused, at its MATCHES, naming the character.
                    #expect(!pattern.unicodeScalars.allSatisfy(\.isASCII) && error.kind == .unsupported
                            && error.message.hasPrefix("MATCHES[c] is not translated to PostgreSQL for this pattern: ICU's case folding of the non-ASCII character"), "\(text) \(pattern): \(error)")
                    refused += 1
                    continue
                }
                #expect(got == expected, "\(text) \(pattern)\n  got \(got.map { ordered[Int($0)] })\n  expected \(expected.map { ordered[Int($0)] })")
                compared += 1
                if !expected.isEmpty { matched += 1 }
            }
        }
        #expect(refused == 4 && compared == patterns.count * 2 - 4)
        #expect(matched > compared / 4)
    }
}
