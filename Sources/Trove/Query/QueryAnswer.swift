/// What a statement of the query language answers: objects, rows or one value.
public enum QueryAnswer {
    /// A query without SELECT or GROUP.
    case objects(Results)
    /// A query with SELECT or GROUP: ordered (name, value) rows.
    case rows(QueryRows)
    /// `sum`, `avg`, `min` or `max`.
    case value(Value)
}

extension QueryExecutor {
    /// Runs any statement: a query (with or without SELECT and GROUP) or an aggregate statement.
    func answer(_ text: String, arguments: [Value]) throws -> (answer: QueryAnswer, plan: QueryPlan) {
        try snapshot.checkLive()
        let layout = snapshot.layout
        // A statement run again without arguments reuses its binding: its cost is its reads.
        switch arguments.isEmpty ? ParsedQueryCache.shared.binding(text, layout: layout) : nil {
        case .aggregate(let cached)?:
            if let bound = cached.bound {
                let (value, plan) = try bound.run(self)
                return (.value(value), plan)
            }
        case .projected(let projected)?:
            let (rows, plan) = try projected.run(self)
            return (.rows(rows), plan)
        case .grouped(let grouping, let query, let model, let predicate)?:
            return try groups(grouping, query, model, predicate: predicate)
        case nil:
            break
        }
        let binder = QueryBinder(layout: layout, arguments: arguments, statement: text)
        let statement = try ParsedQueryCache.shared.statement(text)
        try QueryParameters.check(arguments, of: statement.predicate, statement: text)
        switch try BoundStatement(statement, binder: binder) {
        case .aggregate(let bound):
            if arguments.isEmpty, case .aggregate(let aggregate) = statement {
                ParsedQueryCache.shared.keep(bound, of: aggregate, for: text, layout: layout)
            }
            let (value, plan) = try bound.run(self)
            return (.value(value), plan)
        case .grouped(let grouping, let query, let model, let predicate):
            if arguments.isEmpty {
                ParsedQueryCache.shared.keep(.grouped(grouping, query, model, predicate: predicate), of: query, for: text, layout: layout)
            }
            return try groups(grouping, query, model, predicate: predicate)
        case .projected(let projected, let query):
            if arguments.isEmpty { ParsedQueryCache.shared.keep(.projected(projected), of: query, for: text, layout: layout) }
            let (rows, plan) = try projected.run(self)
            return (.rows(rows), plan)
        case .objects(let query, let model, let predicate, let sort, let distinct):
            let (results, plan) = try run(model: model, predicate: predicate, predicateText: query.predicate?.description as String?,
                                          sort: sort, distinct: distinct, offset: query.offset, limit: query.limit)
            return (.objects(results), plan)
        }
    }
}

extension QueryExecutor {
    /// The rows of a grouped query bound to `model`.
    private func groups(_ grouping: BoundGrouping, _ query: Query, _ model: ModelLayout,
                        predicate: BoundPredicate?) throws -> (answer: QueryAnswer, plan: QueryPlan) {
        if let (rows, plan) = try grouping.streamedRows(model: model, predicate: predicate,
                                                         predicateText: query.predicate?.description, executor: self) {
            return (.rows(rows), plan)
        }
        if predicate == nil {
            // Every object: grouped as the scan reads them.
            let rows = try grouping.rows(scanning: model, snapshot: snapshot)
            let total = try snapshot.objectsTree(model)?.count ?? 0
            let plan = QueryPlan(model: model.name, access: .scan, steps: describesPlan ? ["SCAN \(model.name)"] + grouping.steps : [],
                                 estimatedRows: total, examinedRows: total, actualRows: rows.count)
            return (.rows(rows), plan)
        }
        let (results, plan) = try run(model: model, predicate: predicate, predicateText: query.predicate?.description as String?,
                                      sort: [], distinct: [], limit: nil)
        let rows = try grouping.rows(results.keys, model: model, snapshot: snapshot)
        return (.rows(rows), plan.adding(grouping.steps, returning: rows.count))
    }
}

/// A statement bound to a store's layout, before it runs: the one place where each form of
/// statement meets its binder, so that a store's answer and `QueryCheck` (a backend's check
/// against the schema alone) refuse the same statements with the same errors.
enum BoundStatement {
    case aggregate(BoundAggregateStatement)
    /// A query with GROUP (and perhaps SELECT).
    case grouped(BoundGrouping, Query, ModelLayout, predicate: BoundPredicate?)
    /// A query with SELECT and no GROUP.
    case projected(BoundProjectedQuery, Query)
    /// A query without SELECT or GROUP.
    case objects(Query, ModelLayout, predicate: BoundPredicate?, sort: [(BoundKeyPath, Bool)], distinct: [BoundKeyPath])

    init(_ statement: QueryStatement, binder: QueryBinder) throws {
        switch statement {
        case .aggregate(let aggregate):
            self = .aggregate(try BoundAggregateStatement(aggregate, binder: binder))
        case .query(let query):
            let model = try binder.model(query.model)
            if !query.group.isEmpty {
                let grouping = try BoundGrouping(query, model: model, binder: binder)
                self = .grouped(grouping, query, model, predicate: try query.predicate.map { try binder.bind($0, to: model) })
            } else if !query.select.isEmpty {
                self = .projected(try BoundProjectedQuery(query, binder: binder), query)
            } else {
                let (predicate, sort, distinct) = try QueryExecutor.bind(query, model: model, binder: binder)
                self = .objects(query, model, predicate: predicate, sort: sort, distinct: distinct)
            }
        }
    }
}

extension Snapshot {
    /// Runs any statement of the query language and returns what it answers.
    ///
    /// ```swift
    /// switch try snapshot.answer("Car GROUP(origin) SELECT(origin, @avg.mpg AS mpg)") {
    /// case .rows(let rows): ...
    /// case .value(let value): ...      // sum, avg, min, max
    /// case .objects(let results): ...  // a query without SELECT or GROUP
    /// }
    /// ```
    public func answer(_ text: String, arguments: [Value] = []) throws -> QueryAnswer {
        try QueryExecutor(snapshot: self, describesPlan: false).answer(text, arguments: arguments).answer
    }

    /// The rows of a query with SELECT or GROUP (or of a plain query: every stored property of
    /// each object, in schema order).
    ///
    /// ```swift
    /// let rows = try snapshot.rows("Car where origin == $0 SORT(hp DESC) LIMIT(3) SELECT(name, hp)", arguments: ["Japan"])
    /// rows[0]["name"]  // .string("...")
    /// ```
    public func rows(_ text: String, arguments: [Value] = []) throws -> QueryRows {
        switch try answer(text, arguments: arguments) {
        case .rows(let rows): return rows
        case .objects(let results): return try results.rows()
        case .value(let value): return QueryRows(columns: [""], rows: [QueryRow(names: [""], values: [value], identity: .group([]))])
        }
    }

    /// The value of `sum MODEL.KEYPATH [where P]` (likewise `avg`, `min`, `max`): a number, a
    /// date for `min`/`max` of dates, or `.null` (`avg`, `min`, `max` over no value).
    ///
    /// Nulls and NaNs take no part. An infinity does: a sum or average that meets `+inf` is
    /// `+inf`, one that meets `-inf` is `-inf`, one that meets both is NaN; a sum of finite
    /// values beyond its type's range throws a `QueryError`.
    public func aggregate(_ text: String, arguments: [Value] = []) throws -> Value {
        // A repeated `min`/`max` of an indexed property reads one end of the index: no plan.
        if arguments.isEmpty, case .aggregate(let cached)? = ParsedQueryCache.shared.binding(text, layout: layout), let end = cached.indexEnd {
            try checkLive()
            if let value = try end.value(in: self) { return value }
        }
        guard case .value(let value) = try answer(text, arguments: arguments) else {
            throw QueryError(.unexpectedToken, "expected an aggregate statement: sum, avg, min or max MODEL.KEYPATH [where PREDICATE]", at: .start, in: text)
        }
        return value
    }
}
