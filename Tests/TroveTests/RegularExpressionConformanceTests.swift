import Foundation
import RegularExpressionSamples
import Testing
@testable import Trove

/// `MATCHES` calls ICU's C API (the shell links no Foundation); the shell contract promises
/// ICU's syntax as `NSRegularExpression` takes it. These compare the two on the constructs
/// people write, pattern by subject.
@Suite("MATCHES against NSRegularExpression")
struct RegularExpressionConformanceTests {
    @Test(arguments: [StringComparisonOptions(), .caseInsensitive])
    func agreesWithNSRegularExpression(options: StringComparisonOptions) throws {
        var disagreements: [String] = []
        for pattern in RegularExpressionSamples.patterns {
            let icu = try NSRegularExpression(
                pattern: "(?:" + pattern + ")\\z",
                options: options.contains(.caseInsensitive) ? [.caseInsensitive] : [])
            guard let ours = try? RegularExpressionPattern(pattern, options: options) else {
                disagreements.append("\(pattern.debugDescription): not accepted")
                continue
            }
            for subject in RegularExpressionSamples.subjects {
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
