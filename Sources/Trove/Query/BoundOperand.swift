/// A value in a general comparison.
indirect enum BoundOperand {
    case path(BoundKeyPath)
    case constant(Value)
    case aggregate(BoundAggregate)
    case subqueryCount(BoundSubquery)

    var kindIsToMany: Bool {
        if case .path(let p) = self { return p.isToMany }
        return false
    }
}

/// A collection operator bound to the values it reads.
struct BoundAggregate {
    var function: AggregateFunction
    /// Reaches every element aggregated (for `links.@sum.price`, each linked object's price).
    var values: BoundKeyPath
    /// The kind of the result.
    var kind: ValueKind
}

/// `SUBQUERY(collection, $x, predicate).@count`.
struct BoundSubquery {
    /// Reaches the elements: objects (the predicate reads their properties) or primitives.
    var collection: BoundKeyPath
    var predicate: BoundPredicate
}
