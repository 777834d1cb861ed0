#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

#if !canImport(Darwin)
// Foundation on Linux has no `localizedStandardContains` in `#Predicate`; the macro expands
// the call to `PredicateExpressions.build_localizedStandardContains`, which these supply,
// with Trove's `CONTAINS[cd]` as its meaning in Swift too.

extension String {
    /// Whether `other` occurs in the string, ignoring case and diacritics: `CONTAINS[cd]`.
    public func localizedStandardContains(_ other: some StringProtocol) -> Bool {
        StringComparison.contains(self, String(other), options: [.caseInsensitive, .diacriticInsensitive])
    }
}

extension PredicateExpressions {
    /// `root.localizedStandardContains(other)` in a `#Predicate`.
    public struct StringLocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output == String, Other.Output: StringProtocol {
        public typealias Output = Bool
        public let root: Root
        public let other: Other

        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            try root.evaluate(bindings).localizedStandardContains(other.evaluate(bindings))
        }
    }

    public static func build_localizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>(
        _ root: Root, _ other: Other
    ) -> StringLocalizedStandardContains<Root, Other> where Root.Output == String, Other.Output: StringProtocol {
        StringLocalizedStandardContains(root: root, other: other)
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

extension PredicateExpressions.StringLocalizedStandardContains: Codable where Root: Codable, Other: Codable {}

extension PredicateExpressions.StringLocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}
#endif

extension PredicateExpressions.StringLocalizedStandardContains: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let base = try t.term(root)
        switch base {
        case .value, .coalesced: break
        default: throw PredicateTranslator.unsupported(self)
        }
        return .predicate(try t.comparison(base, .contains, try t.term(other), construct: "localizedStandardContains",
                                           options: [.caseInsensitive, .diacriticInsensitive]))
    }
}
