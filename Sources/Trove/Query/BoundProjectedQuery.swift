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
    /// SORT's keys when one names a SELECT item that is no key path (`dogs.@count AS n`):
    /// then the matches are ordered here, by the items' values, rather than by the plan.
    let itemSort: [(BoundProjection.SortKey, Bool)]?
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
        let keys: [(BoundProjection.SortKey, Bool)]
        (predicate, keys, distinct) = try QueryExecutor.bind(query, model: model, binder: binder) {
            try projection.sortKey($0, model: model, binder: binder)
        }
        let paths = keys.compactMap { key, ascending -> (BoundKeyPath, Bool)? in
            if case .path(let path) = key { return (path, ascending) }
            return nil
        }
        sort = paths.count == keys.count ? paths : []
        itemSort = paths.count == keys.count ? nil : keys
        predicateText = query.predicate?.description
        offset = query.offset
        limit = query.limit
    }

    /// The rows, and the plan that found their objects.
    func run(_ executor: QueryExecutor) throws -> (rows: QueryRows, plan: QueryPlan) {
        if let itemSort { return try run(executor, sortedBy: itemSort) }
        let (results, plan) = try executor.run(model: model, predicate: predicate, predicateText: predicateText,
                                               sort: sort, distinct: distinct, offset: offset, limit: limit)
        let rows = try projection.rows(results.keys, model: model, snapshot: executor.snapshot)
        return (rows, executor.describesPlan ? plan.adding([projection.step], returning: rows.count) : plan)
    }

    /// The rows when SORT names an item that is no key path: every match is found, then
    /// ordered by the items' values (top-k under LIMIT), made distinct and paged here.
    private func run(_ executor: QueryExecutor, sortedBy keys: [(BoundProjection.SortKey, Bool)]) throws -> (rows: QueryRows, plan: QueryPlan) {
        let (matches, plan) = try executor.run(model: model, predicate: predicate, predicateText: predicateText,
                                               sort: [], distinct: [], limit: limit == 0 ? 0 : nil)
        let evaluator = PredicateEvaluator(snapshot: executor.snapshot)
        let ordering = ResultsOrdering(sort: try keys.map { (try projection.sortReader($0.0, evaluator), $0.1) },
                                       distinct: try distinct.map { try evaluator.reader.valueReader($0) },
                                       limit: limit.map { offset > Int.max - $0 ? Int.max : offset + $0 })
        let tree = try evaluator.reader.tree(model)
        for key in matches.keys {
            _ = try evaluator.reader.withRecord(tree, key) { try ordering.accept($0, key) }
        }
        var found = ordering.finish()
        found.removeFirst(Swift.min(offset, found.count))
        let rows = try projection.rows(found, model: model, snapshot: executor.snapshot)
        guard executor.describesPlan else { return (rows, plan) }
        var steps = ["SORT " + zip(keys, projection.sortTexts(keys)).map { "\($1) \($0.1 ? "ASC" : "DESC")" }.joined(separator: ", ")
                     + " (by the SELECT items' values)"]
        if !distinct.isEmpty { steps.append("DISTINCT \(distinct.map(\.text).joined(separator: ", "))") }
        if offset > 0 { steps.append("OFFSET \(offset)") }
        if let limit { steps.append("LIMIT \(limit)") }
        return (rows, plan.adding(steps + [projection.step], returning: rows.count))
    }
}
