/// A query statement: `MODEL [where PREDICATE] [SORT(...)] [DISTINCT(...)] [OFFSET(N)] [LIMIT(N)]`.
///
/// The results are the objects of `model` that satisfy `predicate`, sorted, then reduced to
/// the first of each distinct combination, then the first `offset` skipped, then limited. The
/// parser accepts the clauses only in that order, at most once each, so the text never
/// suggests another.
package struct Query: Sendable, Hashable, CustomStringConvertible {
    /// The model queried (case-sensitive).
    package var model: QueryIdentifier
    /// The condition, or nil for every object.
    package var predicate: QueryPredicate?
    /// The sort keys, most significant first; empty for no particular order.
    package var sort: [QuerySortDescriptor]
    /// The key paths whose combination of values must be distinct; empty for no `DISTINCT`.
    package var distinct: [QueryKeyPath]
    /// How many results to skip before the first one returned (`OFFSET`); 0 for none.
    package var offset: Int
    /// The maximum number of results, or nil.
    package var limit: Int?
    /// `GROUP(k, ...)`: one result per distinct combination of these key paths' values; empty
    /// for objects. With groups, SORT and LIMIT apply to the groups.
    package var group: [QueryKeyPath] = []
    /// `SELECT(item, ...)`: what each result holds, in order; empty for whole objects (or, with
    /// GROUP, the group's key paths and `@count`).
    package var select: [QuerySelectItem] = []

    package init(
        model: QueryIdentifier, predicate: QueryPredicate? = nil, sort: [QuerySortDescriptor] = [],
        distinct: [QueryKeyPath] = [], offset: Int = 0, limit: Int? = nil
    ) {
        self.model = model
        self.predicate = predicate
        self.sort = sort
        self.distinct = distinct
        self.offset = offset
        self.limit = limit
    }
}

/// One key of a `SORT(...)` clause.
package struct QuerySortDescriptor: Sendable, Hashable, CustomStringConvertible {
    package var keyPath: QueryKeyPath
    /// `ASC`/`ASCENDING` (the default) or `DESC`/`DESCENDING`. Null sorts before every value
    /// when ascending, after when descending.
    package var ascending: Bool

    package init(_ keyPath: QueryKeyPath, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }
}

extension Query {
    /// Why `DISTINCT(path)`, which names no property, names a SELECT item instead (an item's
    /// name is SORT's to take, not DISTINCT's); nil when no item has that name. The store's
    /// and PostgreSQL's message.
    package func distinctNamingItem(_ path: QueryKeyPath) -> String? {
        let written = path.description
        guard let item = select.first(where: { $0.name == written }) else { return nil }
        let shown = item.name == item.text ? item.text : "\(item.text) AS \(item.name)"
        return "DISTINCT takes key paths of '\(model.name)', not SELECT items' names; '\(written)' names the item '\(shown)'"
    }
}
