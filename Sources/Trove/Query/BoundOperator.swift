/// An operator of a bound comparison.
package enum BoundOperator: Equatable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case beginsWith, endsWith, contains, like, matches
    /// The value equals one of the constant's list elements.
    case `in`
    /// Between the constant's two list elements, inclusive.
    case between

    package init(_ op: ComparisonOperator) {
        switch op {
        case .equal: self = .equal
        case .notEqual: self = .notEqual
        case .lessThan: self = .less
        case .lessThanOrEqual: self = .lessOrEqual
        case .greaterThan: self = .greater
        case .greaterThanOrEqual: self = .greaterOrEqual
        case .beginsWith: self = .beginsWith
        case .endsWith: self = .endsWith
        case .contains: self = .contains
        case .like: self = .like
        case .matches: self = .matches
        case .in: self = .in
        }
    }

    /// The operator with its operands swapped (`5 < age` is `age > 5`), where one exists.
    package var swapped: BoundOperator? {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        default: nil
        }
    }

    package var isOrdering: Bool {
        switch self {
        case .less, .lessOrEqual, .greater, .greaterOrEqual, .between: true
        default: false
        }
    }

    package var isStringOnly: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like, .matches: true
        default: false
        }
    }

    package var symbol: String {
        switch self {
        case .equal: "=="
        case .notEqual: "!="
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        case .beginsWith: "BEGINSWITH"
        case .endsWith: "ENDSWITH"
        case .contains: "CONTAINS"
        case .like: "LIKE"
        case .matches: "MATCHES"
        case .in: "IN"
        case .between: "BETWEEN"
        }
    }
}
