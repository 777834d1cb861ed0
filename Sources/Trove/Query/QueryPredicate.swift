/// A condition on objects: the part of a query after `where`.
///
/// `AND` and `OR` chains are n-ary (`a AND b AND c` is one `.and` of three), which keeps the
/// tree shallow however long the chain; parentheses make nested nodes. Equality and hashing
/// ignore source ranges, so that `QueryParser.parsePredicate(p.description) == p` holds.
package struct QueryPredicate: Sendable, Hashable, CustomStringConvertible {
    package indirect enum Kind: Sendable, Hashable {
        /// `TRUEPREDICATE` or `FALSEPREDICATE`.
        case constant(Bool)
        /// `left op right`, with optional quantifier and modifiers; includes `IN`.
        case comparison(Comparison)
        /// `value BETWEEN {lower, upper}`, inclusive.
        case between(Between)
        case not(QueryPredicate)
        /// Two or more operands.
        case and([QueryPredicate])
        /// Two or more operands.
        case or([QueryPredicate])
    }

    /// `[ANY|ALL|NONE] left op[modifiers] right`.
    ///
    /// Either side may be the key path: `5 < age` is kept as written. `value IN {a, b}` and
    /// `value IN listKeyPath` are comparisons with the `.in` operator.
    package struct Comparison: Sendable, Hashable {
        package var quantifier: Quantifier?
        package var left: QueryExpression
        package var op: ComparisonOperator
        package var options: StringComparisonOptions
        package var right: QueryExpression
        /// Where the operator (and its modifier) stands, for errors about the operator.
        package var operatorRange: QuerySourceRange

        package init(
            quantifier: Quantifier? = nil, _ left: QueryExpression, _ op: ComparisonOperator,
            options: StringComparisonOptions = [], _ right: QueryExpression,
            operatorRange: QuerySourceRange = QuerySourceRange(at: .start)
        ) {
            self.quantifier = quantifier
            self.left = left
            self.op = op
            self.options = options
            self.right = right
            self.operatorRange = operatorRange
        }

        package static func == (a: Comparison, b: Comparison) -> Bool {
            a.quantifier == b.quantifier && a.left == b.left && a.op == b.op && a.options == b.options && a.right == b.right
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(quantifier)
            hasher.combine(left)
            hasher.combine(op)
            hasher.combine(options)
            hasher.combine(right)
        }
    }

    /// `[ANY|ALL|NONE] value BETWEEN {lower, upper}`.
    package struct Between: Sendable, Hashable {
        package var quantifier: Quantifier?
        package var value: QueryExpression
        package var lower: QueryExpression
        package var upper: QueryExpression

        package init(quantifier: Quantifier? = nil, _ value: QueryExpression, lower: QueryExpression, upper: QueryExpression) {
            self.quantifier = quantifier
            self.value = value
            self.lower = lower
            self.upper = upper
        }
    }

    package var kind: Kind
    /// Where the predicate stands in the statement (for a comparison, from its quantifier or
    /// left side to its right side).
    package var range: QuerySourceRange

    package init(_ kind: Kind, range: QuerySourceRange = QuerySourceRange(at: .start)) {
        self.kind = kind
        self.range = range
    }

    package static func == (a: QueryPredicate, b: QueryPredicate) -> Bool { a.kind == b.kind }

    package func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    /// The operands of a top-level conjunction, nested `AND`s flattened; `[self]` otherwise.
    /// The planner picks an index among these.
    package var conjuncts: [QueryPredicate] {
        guard case .and(let operands) = kind else { return [self] }
        return operands.flatMap(\.conjuncts)
    }
}

extension QueryPredicate {
    package static let truePredicate = QueryPredicate(.constant(true))
    package static let falsePredicate = QueryPredicate(.constant(false))

    package static func comparison(_ comparison: Comparison) -> QueryPredicate { QueryPredicate(.comparison(comparison)) }
    package static func not(_ operand: QueryPredicate) -> QueryPredicate { QueryPredicate(.not(operand)) }
    package static func and(_ operands: [QueryPredicate]) -> QueryPredicate { QueryPredicate(.and(operands)) }
    package static func or(_ operands: [QueryPredicate]) -> QueryPredicate { QueryPredicate(.or(operands)) }
}
