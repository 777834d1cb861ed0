/// Statements of the query language checked against a schema as a store binds them, with no
/// store and no data: for a backend that runs them elsewhere (TrovePostgres), so that what a
/// store refuses it refuses with the store's `QueryError`, of the same kind, message and
/// position.
package struct QueryCheck: Sendable {
    private let layout: StoreLayout

    package init(schema: Schema) {
        layout = StoreLayout(schema: schema, ids: [:], nextModelID: 1)
    }

    /// Checks a statement as `Snapshot.answer(_:arguments:)` binds it: a query, with or
    /// without SELECT and GROUP, or an aggregate statement. `text` is the statement's text.
    package func check(_ statement: QueryStatement, text: String, arguments: [Value]) throws {
        let binder = QueryBinder(layout: layout, arguments: arguments, statement: text)
        switch statement {
        case .aggregate(let aggregate):
            _ = try BoundAggregateStatement(aggregate, binder: binder)
        case .query(let query):
            let model = try binder.model(query.model)
            if !query.group.isEmpty {
                _ = try BoundGrouping(query, model: model, binder: binder)
                _ = try query.predicate.map { try binder.bind($0, to: model) }
            } else if !query.select.isEmpty {
                _ = try BoundProjectedQuery(query, binder: binder)
            } else {
                _ = try QueryExecutor.bind(query, model: model, binder: binder, projection: nil)
            }
        }
    }

    /// Checks a predicate on the objects of `model` as `Snapshot.objects(_:where:arguments:)`
    /// binds it. `text` is the predicate's text.
    package func check(_ predicate: QueryPredicate, model: String, text: String, arguments: [Value]) throws {
        guard let model = layout.byName[model] else { throw StoreError.noSuchModel(model) }
        _ = try QueryBinder(layout: layout, arguments: arguments, statement: text).bind(predicate, to: model)
    }
}
