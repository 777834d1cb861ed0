import Foundation
import RegularExpressionSamples
import Testing
import Trove
import TrovePostgres

/// `MATCHES` on PostgreSQL: the patterns whose meaning is the same in ICU's syntax and
/// PostgreSQL's give a store's answers; every other pattern is refused at its `MATCHES`.
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
            for modifier in ["", "[d]", "[c]"] {
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
                    if Self.translated.contains(pattern) && modifier != "[c]" {
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
        #expect(compared == Self.translated.count * 4)
        #expect(matched > compared / 2)
    }
}
