import Foundation

/// A compiled `MATCHES` pattern: an ICU regular expression, as `NSRegularExpression` takes it,
/// that must match the whole string.
///
/// Compile once per query (`RegularExpressionCache` shares compilations): ICU compilation
/// costs far more than a match. `[c]` matches case-insensitively, as ICU does; `[d]` removes
/// nonspacing marks from both the string and the pattern, as `StringFolding` does.
public struct RegularExpressionPattern: Sendable {
    /// The pattern as written.
    public let pattern: String
    public let options: StringComparisonOptions
    private let regex: NSRegularExpression

    /// Compiles `pattern`; an invalid one throws `QueryError.Kind.invalidRegularExpression` at
    /// `location` (where the pattern stands in `statement`).
    public init(
        _ pattern: String, options: StringComparisonOptions = [],
        at location: QuerySourceLocation = .start, in statement: String? = nil
    ) throws(QueryError) {
        self.pattern = pattern
        self.options = options
        let source = options.contains(.diacriticInsensitive)
            ? StringFolding.fold(pattern, options: .diacriticInsensitive) : pattern
        let icuOptions: NSRegularExpression.Options = options.contains(.caseInsensitive) ? [.caseInsensitive] : []
        do {
            // Compiled alone first: wrapped, a malformed pattern such as `a)|(b` could pass.
            _ = try NSRegularExpression(pattern: source, options: icuOptions)
            // `\z`, not `$`, which would also match before a final newline.
            regex = try NSRegularExpression(pattern: "(?:" + source + ")\\z", options: icuOptions)
        } catch {
            throw QueryError(
                .invalidRegularExpression,
                "invalid regular expression '\(QueryLexer.truncated(pattern, limit: 40))'",
                at: location, in: statement)
        }
    }

    /// Whether the whole of `string` matches.
    public func matches(_ string: String) -> Bool {
        let subject = options.contains(.diacriticInsensitive)
            ? StringFolding.fold(string, options: .diacriticInsensitive) : string
        let length = subject.utf16.count
        return regex.firstMatch(in: subject, options: [.anchored], range: NSRange(location: 0, length: length)) != nil
    }
}

/// Compiled `MATCHES` patterns by pattern and options, shared by the evaluations of a query
/// (and safe to share between threads).
public final class RegularExpressionCache: Sendable {
    private struct Key: Hashable {
        var pattern: String
        var options: StringComparisonOptions
    }

    private let lock = NSLock()
    // Guarded by `lock`.
    private nonisolated(unsafe) var patterns: [Key: RegularExpressionPattern] = [:]

    public init() {}

    /// The compiled `pattern`, compiling it on first use.
    public func pattern(
        _ pattern: String, options: StringComparisonOptions = [],
        at location: QuerySourceLocation = .start, in statement: String? = nil
    ) throws(QueryError) -> RegularExpressionPattern {
        let key = Key(pattern: pattern, options: options)
        if let cached = lock.withLock({ patterns[key] }) { return cached }
        let compiled = try RegularExpressionPattern(pattern, options: options, at: location, in: statement)
        lock.withLock { patterns[key] = compiled }
        return compiled
    }

    /// How many patterns are compiled.
    public var count: Int { lock.withLock { patterns.count } }
}
