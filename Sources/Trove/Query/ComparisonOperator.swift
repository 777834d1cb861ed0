/// The operator of a comparison predicate.
package enum ComparisonOperator: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case equal = "=="
    case notEqual = "!="
    case lessThan = "<"
    case lessThanOrEqual = "<="
    case greaterThan = ">"
    case greaterThanOrEqual = ">="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    case matches = "MATCHES"
    /// `value IN {a, b}` or `value IN listKeyPath`: true when any element equals the value.
    case `in` = "IN"

    /// Whether `[c]`/`[d]` may modify the operator. Ordering operators compare strings by
    /// Unicode scalar values, where case or diacritic folding has no meaning.
    package var acceptsStringOptions: Bool {
        switch self {
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual: false
        default: true
        }
    }

    /// Whether the operator orders its operands (and so applies to numbers, dates, decimals and
    /// strings only).
    package var isOrdering: Bool { !acceptsStringOptions }

    /// Whether the operator exists only for strings.
    package var isStringOnly: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like, .matches: true
        default: false
        }
    }

    /// The operator as the canonical query text spells it.
    package var description: String { rawValue }
}

/// The quantifier of a comparison over a to-many key path.
///
/// `SOME` is a synonym of `ANY`. A comparison on a to-many path without a quantifier means
/// `ANY`; that default is the binder's business, so the AST keeps what was written.
package enum Quantifier: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// True when some element satisfies the comparison; false on an empty list.
    case any = "ANY"
    /// True when every element satisfies the comparison; true on an empty list.
    case all = "ALL"
    /// `NONE`: true when no element satisfies the comparison; true on an empty list. (Not
    /// named `none`, which would read as `Optional.none`.)
    case noneOf = "NONE"

    package var description: String { rawValue }
}

/// The collection operator of an aggregate expression such as `items.@sum.price`.
package enum AggregateFunction: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case count = "@count"
    /// Realm's `@size`: the length of a string or data value, or the count of a list.
    case size = "@size"
    case sum = "@sum"
    case avg = "@avg"
    case min = "@min"
    case max = "@max"

    /// Whether the function may be followed by a property of the linked objects
    /// (`links.@sum.price`). Counting needs none.
    package var takesProperty: Bool {
        switch self {
        case .count, .size: false
        case .sum, .avg, .min, .max: true
        }
    }

    package var description: String { rawValue }
}
