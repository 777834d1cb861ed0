import Trove

extension Query {
    /// The text of the query of the objects of `T` that `predicate` selects (every object
    /// when nil), sorted by `sortBy`, `offset` skipped, at most `limit`.
    static func text<T: PersistentModel>(of model: T.Type, where predicate: QueryPredicate?, sortBy: [ModelSortDescriptor<T>],
                                         offset: Int, limit: Int?) throws -> String {
        var query = Query(model: QueryIdentifier(T.modelName))
        query.predicate = predicate
        query.sort = try sortBy.map { QuerySortDescriptor(try T.storedPath($0.keyPath, toBe: "sorted by").queryKeyPath, ascending: $0.order == .forward) }
        query.offset = offset
        query.limit = limit
        return query.description
    }
}
