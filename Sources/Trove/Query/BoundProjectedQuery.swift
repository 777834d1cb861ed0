/// A query with SELECT (and no GROUP) bound to the store's layout: its model, predicate,
/// SORT, DISTINCT and items. A statement run again without arguments keeps it with its parse
/// (`ParsedQueryCache`), so a repeated page (`Car SORT(id) OFFSET(500) LIMIT(20)
/// SELECT(name, hp)`) is neither parsed nor bound again.
struct BoundProjectedQuery {
    let model: ModelLayout
    let projection: BoundProjection
    let predicate: BoundPredicate?
    let predicateText: String?
    let sort: [(BoundKeyPath, Bool)]
    let distinct: [BoundKeyPath]
    let offset: Int
    let limit: Int?

    /// Binds `query`, which has SELECT items and no GROUP; the errors point into the binder's
    /// statement.
    init(_ query: Query, binder: QueryBinder) throws {
        let model = try binder.model(query.model)
        self.model = model
        let projection = try BoundProjection(query.select, model: model, binder: binder)
        self.projection = projection
        (predicate, sort, distinct) = try QueryExecutor.bind(query, model: model, binder: binder, projection: projection)
        predicateText = query.predicate?.description
        offset = query.offset
        limit = query.limit
    }

    /// The rows, and the plan that found their objects.
    func run(_ executor: QueryExecutor) throws -> (rows: QueryRows, plan: QueryPlan) {
        let (results, plan) = try executor.run(model: model, predicate: predicate, predicateText: predicateText,
                                               sort: sort, distinct: distinct, offset: offset, limit: limit)
        let rows = try projection.rows(results.keys, model: model, snapshot: executor.snapshot)
        return (rows, executor.describesPlan ? plan.adding([projection.step], returning: rows.count) : plan)
    }
}
