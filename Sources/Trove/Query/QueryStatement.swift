/// A statement of the query language: a query, or an aggregate over a model's objects.
package enum QueryStatement: Sendable, Hashable, CustomStringConvertible {
    /// `MODEL [where P] [GROUP(...)] [SORT(...)] ... [SELECT(...)]`
    case query(Query)
    /// `sum MODEL.KEYPATH [where P]`, likewise `avg`, `min`, `max`.
    case aggregate(QueryAggregateStatement)

    package var description: String {
        switch self {
        case .query(let query): query.description
        case .aggregate(let statement): statement.description
        }
    }

    /// The statement's `where` predicate, if it has one.
    package var predicate: QueryPredicate? {
        switch self {
        case .query(let query): query.predicate
        case .aggregate(let statement): statement.predicate
        }
    }
}
