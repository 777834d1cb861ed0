import Trove

extension QueryPredicate {
    /// `lhs AND rhs`, an operand that is itself an `AND` contributing its operands, so that
    /// a chain of `&&` is one conjunction.
    static func and(flattening lhs: QueryPredicate, _ rhs: QueryPredicate) -> QueryPredicate {
        .and([lhs, rhs].flatMap { if case .and(let inner) = $0.kind { inner } else { [$0] } })
    }

    /// `lhs OR rhs`, an operand that is itself an `OR` contributing its operands, so that a
    /// chain of `||` is one disjunction.
    static func or(flattening lhs: QueryPredicate, _ rhs: QueryPredicate) -> QueryPredicate {
        .or([lhs, rhs].flatMap { if case .or(let inner) = $0.kind { inner } else { [$0] } })
    }
}
