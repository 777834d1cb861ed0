/// A predicate checked against the schema, with every constant typed: what the planner and the
/// evaluator work from.
indirect enum BoundPredicate {
    case constant(Bool)
    case and([BoundPredicate])
    case or([BoundPredicate])
    case not(BoundPredicate)
    case path(PathComparison)
    case general(GeneralComparison)

    /// The operands of a top-level conjunction.
    var conjuncts: [BoundPredicate] {
        if case .and(let operands) = self { return operands.flatMap(\.conjuncts) }
        return [self]
    }
}

/// `path op constant`: the comparison the planner can serve from an index and the evaluator
/// runs on record slots without decoding them.
struct PathComparison {
    /// `.any` when none was written.
    var quantifier: Quantifier
    var path: BoundKeyPath
    var op: BoundOperator
    var options: StringComparisonOptions
    /// Typed for the path's kind. For `IN`, a `.list` of elements; for `BETWEEN`, a `.list` of
    /// the two bounds.
    var constant: Value
}

/// A comparison of two computed operands (a property with another, an aggregate, a subquery
/// count): evaluated on decoded values. At most one side is to-many; the quantifier applies to it.
struct GeneralComparison {
    var quantifier: Quantifier
    var left: BoundOperand
    var op: BoundOperator
    var options: StringComparisonOptions
    var right: BoundOperand
}
