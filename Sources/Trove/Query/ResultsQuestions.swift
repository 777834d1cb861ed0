extension Results {
    /// Every stored property of each object, in schema order, as rows.
    public func rows() throws -> QueryRows {
        try snapshot.checkLive()
        let items = model.properties.filter(\.isStored).map {
            QuerySelectItem(.keyPath(QueryKeyPath(components: [QueryIdentifier($0.name)])), text: $0.name)
        }
        return try select(items)
    }

    /// The objects' values of `items`, each a SELECT item as the query language writes it
    /// (`"name"`, `"team.name"`, `"dogs.@count"`, `"city AS town"`), as rows in the objects' order.
    ///
    /// ```swift
    /// let rows = try results.select("name", "bestFriend.name AS friend")
    /// ```
    public func select(_ items: String...) throws -> QueryRows {
        try snapshot.checkLive()
        return try select(try Self.parseItems(items, model: model.name, clause: "SELECT", group: nil).select)
    }

    /// One row per distinct combination of the values of `keyPaths` (null is a value), in key
    /// order: the key paths and `@count`, or the `select` items (group keys and `@count`,
    /// `@sum.kp`, `@avg.kp`, `@min.kp`, `@max.kp`, each optionally `AS NAME`).
    ///
    /// ```swift
    /// let byOrigin = try cars.grouped(by: "origin", select: "origin", "@count", "@avg.mpg AS mpg")
    /// ```
    public func grouped(by keyPaths: String..., select: String...) throws -> QueryRows {
        try grouped(by: keyPaths, select: select)
    }

    /// One row per distinct combination of the values of `keyPaths`: see `grouped(by:select:)`.
    public func grouped(by keyPaths: [String], select: [String] = []) throws -> QueryRows {
        try snapshot.checkLive()
        let query = try Self.parseItems(select, model: model.name, clause: "SELECT", group: keyPaths)
        let binder = QueryBinder(layout: snapshot.layout, arguments: [], statement: nil)
        return try BoundGrouping(query, model: model, binder: binder).rows(keys, model: model, snapshot: snapshot)
    }

    private func select(_ items: [QuerySelectItem]) throws -> QueryRows {
        let binder = QueryBinder(layout: snapshot.layout, arguments: [], statement: nil)
        return try BoundProjection(items, model: model, binder: binder).rows(keys, model: model, snapshot: snapshot)
    }

    /// The query `MODEL [GROUP(keys)] SELECT(items)` parsed, so that items read as in statements.
    private static func parseItems(_ items: [String], model: String, clause: String, group: [String]?) throws -> Query {
        var text = model
        if let group { text += " GROUP(\(group.joined(separator: ", ")))" }
        if !items.isEmpty { text += " SELECT(\(items.joined(separator: ", ")))" }
        return try QueryParser.parseQuery(text)
    }
}
