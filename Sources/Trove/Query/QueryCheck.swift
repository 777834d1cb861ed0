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
        try QueryParameters.check(arguments, of: statement.predicate, statement: text)
        _ = try BoundStatement(statement, binder: QueryBinder(layout: layout, arguments: arguments, statement: text))
    }

    /// Checks a predicate on the objects of `model` as `Snapshot.objects(_:where:arguments:)`
    /// binds it. `text` is the predicate's text.
    package func check(_ predicate: QueryPredicate, model: String, text: String, arguments: [Value]) throws {
        try QueryParameters.check(arguments, of: predicate, statement: text)
        _ = try bound(predicate, model: model, text: text, arguments: arguments)
    }

    func bound(_ predicate: QueryPredicate, model: String, text: String, arguments: [Value]) throws -> BoundPredicate {
        guard let model = layout.byName[model] else { throw StoreError.noSuchModel(model) }
        return try QueryBinder(layout: layout, arguments: arguments, statement: text).bind(predicate, to: model)
    }
}
