extension Snapshot {
    /// The objects of `model` that satisfy `predicate`, in insertion order.
    ///
    /// ```swift
    /// let adults = try snapshot.objects("Person", where: "age >= $0 AND name BEGINSWITH[c] $1", 18, "a")
    /// ```
    /// `$0`, `$1`, ... are bound to `arguments` as values (never read as query text); a
    /// `.string` argument meeting a date, number, data, decimal or UUID property is read as
    /// that type's literal. Errors are ``QueryError``s that point into `predicate`.
    public func objects(_ model: String, where predicate: String, _ arguments: Value...) throws -> Results {
        try objects(model, where: predicate, arguments: arguments)
    }

    /// The objects of `model` that satisfy `predicate`, with `$0`, `$1`, ... bound to `arguments`.
    public func objects(_ model: String, where predicate: String, arguments: [Value]) throws -> Results {
        try checkLive()
        let m = try self.model(model)
        let (cached, prebound) = try ParsedQueryCache.shared.template(predicate, to: m, layout: layout, arguments: arguments)
        let bound: BoundPredicate
        if let prebound {
            bound = prebound
        } else {
            // A cached template: new arguments need no binding of the predicate, and one
            // indexed equality or range no planning either.
            let template = cached.template!
            let binder = QueryBinder(layout: layout, arguments: arguments, statement: predicate)
            if let lookup = template.pointLookup, let keys = try lookup.keys(binder, in: self) {
                return Results(snapshot: self, model: m, keys: keys)
            }
            if let lookup = template.rangeLookup, let keys = try lookup.keys(binder, in: self) {
                return Results(snapshot: self, model: m, unorderedKeys: keys)
            }
            bound = try template.bind(binder)
        }
        return try QueryExecutor(snapshot: self, describesPlan: false)
            .run(model: m, predicate: bound, predicateText: cached.parsed.description, sort: [], distinct: [], limit: nil).results
    }

    /// A full query statement: `Model [where P] [SORT(k ASC|DESC, ...)] [DISTINCT(k, ...)] [OFFSET(n)] [LIMIT(n)]`.
    ///
    /// ```swift
    /// let top = try snapshot.query("Person where age > $0 SORT(age DESC, name) LIMIT(10)", arguments: [30])
    /// ```
    public func query(_ text: String, arguments: [Value] = []) throws -> Results {
        try QueryExecutor(snapshot: self, describesPlan: false).run(text, arguments: arguments).results
    }

    /// The plan any statement (`query`, `rows`, `aggregate`) would use, with estimated and actual
    /// row counts (runs the statement).
    public func explain(_ text: String, arguments: [Value] = []) throws -> QueryPlan {
        try QueryExecutor(snapshot: self).answer(text, arguments: arguments).plan
    }
}

extension Results {
    /// The objects that also satisfy `predicate`, in the same order.
    public func filter(_ predicate: String, _ arguments: Value...) throws -> Results {
        try refined(predicate: predicate, arguments: arguments)
    }

    /// The objects sorted by one key: `sorted(by: "name")`, `sorted(by: .descending("age"))`.
    public func sorted(by key: SortKey) throws -> Results {
        try sorted(by: [key])
    }

    /// The objects sorted by several keys, most significant first:
    /// `sorted(by: ["team.name", .descending("score")])`.
    public func sorted(by sortKeys: [SortKey]) throws -> Results {
        try snapshot.checkLive()
        let binder = QueryBinder(layout: snapshot.layout, arguments: [], statement: nil)
        let sort = try sortKeys.map { key in
            (try binder.orderingKeyPath(try Self.keyPath(key.keyPath), model: model, clause: "SORT", allowsLinks: false),
             key.ascending)
        }
        return with(keys: try QueryExecutor(snapshot: snapshot)
            .refine(model: model, keys: keys, predicate: nil, sort: sort, distinct: [], limit: nil))
    }

    /// The first object of each distinct combination of values of `keyPaths` (null is a value).
    public func distinct(by keyPaths: [String]) throws -> Results {
        try snapshot.checkLive()
        let binder = QueryBinder(layout: snapshot.layout, arguments: [], statement: nil)
        let distinct = try keyPaths.map {
            try binder.orderingKeyPath(try Self.keyPath($0), model: model, clause: "DISTINCT", allowsLinks: true)
        }
        return with(keys: try QueryExecutor(snapshot: snapshot)
            .refine(model: model, keys: keys, predicate: nil, sort: [], distinct: distinct, limit: nil))
    }

    /// The first `limit` objects, as `LIMIT(limit)`.
    public func prefix(limit: Int) -> Results {
        with(keys: Array(keys.prefix(Swift.max(0, limit))))
    }

    /// The objects after the first `count`, as `OFFSET(count)`: `results.offset(40).prefix(limit: 20)`
    /// is the third page of 20. Skipped objects are never read.
    public func offset(_ count: Int) -> Results {
        with(keys: Array(keys.dropFirst(Swift.max(0, count))))
    }

    func with(keys: [UInt64]) -> Results {
        Results(snapshot: snapshot, model: model, keys: keys)
    }

    private func refined(predicate: String, arguments: [Value]) throws -> Results {
        try snapshot.checkLive()
        let bound = try ParsedQueryCache.shared.bind(predicate, to: model, layout: snapshot.layout, arguments: arguments).bound
        return with(keys: try QueryExecutor(snapshot: snapshot)
            .refine(model: model, keys: keys, predicate: bound, sort: [], distinct: [], limit: nil))
    }

    /// A key path from its text, checked by the query parser.
    static func keyPath(_ text: String) throws -> QueryKeyPath {
        var parser = try QueryParser(text)
        let expression = try parser.parseExpression()
        guard let path = expression.keyPath, path.variable == nil else {
            throw QueryError(.invalidKeyPath, "expected a key path such as 'owner.name'", at: expression.range.start, in: text)
        }
        guard parser.isAtEnd else {
            throw QueryError(.unexpectedToken, "expected the end of the key path", at: parser.location, in: text)
        }
        return path
    }
}
