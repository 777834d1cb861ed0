#if canImport(_FoundationICU)
// ICU's C API, from the toolchain's copy of ICU: the engine under `NSRegularExpression` on
// Linux, without linking Foundation itself (see DEVELOPERS.md).
import _FoundationICU
#else
import Foundation
#endif
import TroveStorage

/// A compiled `MATCHES` pattern: an ICU regular expression, as `NSRegularExpression` takes it,
/// that must match the whole string.
///
/// Compile once per query (`RegularExpressionCache` shares compilations): ICU compilation
/// costs far more than a match. `[c]` matches case-insensitively, as ICU does; `[d]` removes
/// nonspacing marks from both the string and the pattern, as `StringFolding` does.
package struct RegularExpressionPattern: Sendable {
    /// The pattern as written.
    package let pattern: String
    package let options: StringComparisonOptions
    private let matcher: RegularExpressionMatcher

    /// Compiles `pattern`; an invalid one throws `QueryError.Kind.invalidRegularExpression` at
    /// `location` (where the pattern stands in `statement`).
    package init(
        _ pattern: String, options: StringComparisonOptions = [],
        at location: QuerySourceLocation = .start, in statement: String? = nil
    ) throws(QueryError) {
        self.pattern = pattern
        self.options = options
        let source = options.contains(.diacriticInsensitive)
            ? StringFolding.fold(pattern, options: .diacriticInsensitive) : pattern
        guard let matcher = RegularExpressionMatcher(source, caseInsensitive: options.contains(.caseInsensitive)) else {
            throw QueryError(
                .invalidRegularExpression,
                "invalid regular expression '\(QueryLexer.truncated(pattern, limit: 40))'",
                at: location, in: statement)
        }
        self.matcher = matcher
    }

    /// Whether the whole of `string` matches.
    package func matches(_ string: String) -> Bool {
        let subject = options.contains(.diacriticInsensitive)
            ? StringFolding.fold(string, options: .diacriticInsensitive) : string
        return matcher.matchesWhole(subject)
    }
}

#if canImport(_FoundationICU)
/// A compiled ICU pattern and the matchers cloned from it.
///
/// An ICU matcher holds the state of one match, so threads cannot share one: each match takes
/// a clone from the pool (cloning shares the compiled pattern) with the UTF-16 buffer it last
/// matched in, and puts both back.
private final class RegularExpressionMatcher: @unchecked Sendable {
    private struct Matcher {
        var regex: OpaquePointer
        var text: UnsafeMutableBufferPointer<UInt16>
    }

    private let compiled: OpaquePointer
    private let lock = Lock()
    // Guarded by `lock`.
    private var idle: [Matcher] = []

    init?(_ pattern: String, caseInsensitive: Bool) {
        let units = Array(pattern.utf16)
        var status = U_ZERO_ERROR
        let flags: UInt32 = caseInsensitive ? UInt32(UREGEX_CASE_INSENSITIVE.rawValue) : 0
        guard let regex = swift_uregex_open(units, Int32(units.count), flags, nil, &status), status.rawValue <= U_ZERO_ERROR.rawValue else {
            return nil
        }
        compiled = regex
    }

    deinit {
        for matcher in idle {
            swift_uregex_close(matcher.regex)
            matcher.text.deallocate()
        }
        swift_uregex_close(compiled)
    }

    /// Whether the whole of `subject` matches (`uregex_matches`: the match must span the
    /// input, trying alternatives until one does).
    func matchesWhole(_ subject: String) -> Bool {
        let count = subject.utf16.count
        // ICU counts in Int32; no stored string comes near, and a matcher ICU could not
        // allocate (its only failure) can match nothing.
        guard count <= Int32.max, var matcher = lock.withLock({ idle.popLast() }) ?? clone() else { return false }
        defer {
            // A buffer grown for one long subject is not kept for every later match.
            if matcher.text.count > Self.keptBufferLimit {
                matcher.text.deallocate()
                matcher.text = .allocate(capacity: Self.initialBuffer)
            }
            lock.withLock { idle.append(matcher) }
        }
        if matcher.text.count < count {
            matcher.text.deallocate()
            matcher.text = .allocate(capacity: max(count, matcher.text.count * 2))
        }
        _ = matcher.text.initialize(from: subject.utf16)
        var status = U_ZERO_ERROR
        swift_uregex_setText(matcher.regex, matcher.text.baseAddress, Int32(count), &status)
        let matched = swift_uregex_matches(matcher.regex, -1, &status) != 0
        return matched && status.rawValue <= U_ZERO_ERROR.rawValue
    }

    private static let initialBuffer = 64, keptBufferLimit = 16_384

    private func clone() -> Matcher? {
        var status = U_ZERO_ERROR
        guard let regex = swift_uregex_clone(compiled, &status), status.rawValue <= U_ZERO_ERROR.rawValue else { return nil }
        return Matcher(regex: regex, text: .allocate(capacity: Self.initialBuffer))
    }
}
#else
/// A compiled `NSRegularExpression` (platforms without the toolchain's ICU module).
private final class RegularExpressionMatcher: Sendable {
    private let regex: NSRegularExpression

    init?(_ pattern: String, caseInsensitive: Bool) {
        let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
        // Compiled alone first: wrapped, a malformed pattern such as `a)|(b` could pass.
        guard (try? NSRegularExpression(pattern: pattern, options: options)) != nil,
              // `\z`, not `$`, which would also match before a final newline.
              let regex = try? NSRegularExpression(pattern: "(?:" + pattern + ")\\z", options: options)
        else { return nil }
        self.regex = regex
    }

    func matchesWhole(_ subject: String) -> Bool {
        let range = NSRange(location: 0, length: subject.utf16.count)
        return regex.firstMatch(in: subject, options: [.anchored], range: range) != nil
    }
}
#endif

/// Compiled `MATCHES` patterns by pattern and options, shared by the evaluations of a query
/// (and safe to share between threads).
package final class RegularExpressionCache: Sendable {
    private struct Key: Hashable {
        /// By its bytes: `é` and `e` + U+0301 are different patterns.
        var pattern: ExactText
        var options: StringComparisonOptions
    }

    private let lock = Lock()
    // Guarded by `lock`.
    private nonisolated(unsafe) var patterns: [Key: RegularExpressionPattern] = [:]

    package init() {}

    /// The compiled `pattern`, compiling it on first use.
    package func pattern(
        _ pattern: String, options: StringComparisonOptions = [],
        at location: QuerySourceLocation = .start, in statement: String? = nil
    ) throws(QueryError) -> RegularExpressionPattern {
        let key = Key(pattern: ExactText(pattern), options: options)
        if let cached = lock.withLock({ patterns[key] }) { return cached }
        let compiled = try RegularExpressionPattern(pattern, options: options, at: location, in: statement)
        lock.withLock { patterns[key] = compiled }
        return compiled
    }

    /// How many patterns are compiled.
    package var count: Int { lock.withLock { patterns.count } }
}
