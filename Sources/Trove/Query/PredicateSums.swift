extension BoundPredicate {
    /// The sums and averages of the predicate that can leave the range of their type (a sum
    /// of ints, a sum or average of floats or doubles), in the order `PredicateEvaluator`
    /// computes them for an object: operands of `AND`, `OR` and `NOT` in order (the slot
    /// comparisons it runs first hold none), a comparison's single side before its list side
    /// (so an aggregate on the right before one on the left), a SUBQUERY's predicate where its
    /// count is. An average of ints adds doubles no int sum reaches the range of, and decimals
    /// are `DecimalSum`'s, which no backend's sum of numbers is.
    var overflowingSums: [BoundAggregate] {
        switch self {
        case .constant, .path: []
        case .not(let operand): operand.overflowingSums
        case .and(let operands), .or(let operands): operands.flatMap(\.overflowingSums)
        case .general(let c):
            c.right.kindIsToMany ? c.left.overflowingSums + c.right.overflowingSums : c.right.overflowingSums + c.left.overflowingSums
        }
    }
}

extension BoundOperand {
    fileprivate var overflowingSums: [BoundAggregate] {
        switch self {
        case .path, .constant: return []
        case .subqueryCount(let subquery): return subquery.predicate.overflowingSums
        case .aggregate(let aggregate):
            switch (aggregate.function, aggregate.values.kind) {
            case (.sum, .int), (.sum, .float), (.sum, .double), (.avg, .float), (.avg, .double): return [aggregate]
            default: return []
            }
        }
    }
}

extension QueryCheck {
    /// The errors a store throws for the sums and averages of `predicate` (on `model`) whose
    /// values leave their type's range, in the order a store computes them
    /// (`BoundPredicate.overflowingSums`): for a backend that learns only that some sum did.
    package func overflowingSums(in predicate: QueryPredicate, model: String, text: String, arguments: [Value]) throws -> [QueryError] {
        try bound(predicate, model: model, text: text, arguments: arguments).overflowingSums.map {
            QueryError.sumOutOfRange($0.values.text, fractional: $0.values.kind != .int, at: $0.values.range.start, in: text)
        }
    }
}
