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
    /// A ``QueryError`` names the item at fault and points into its text.
    public func select(_ items: String...) throws -> QueryRows {
        try select(items)
    }

    /// The objects' values of `items`: see `select(_:)`.
    public func select(_ items: [String]) throws -> QueryRows {
        try snapshot.checkLive()
        let text = QuestionText(model: model.name, group: nil, select: items)
        return try text.relocating {
            try text.projection(model: model, layout: snapshot.layout).rows(keys, model: model, snapshot: snapshot)
        }
    }

    /// One row per distinct combination of the values of `keyPaths` (null is a value, every
    /// NaN one value after every number, -0 the same as 0, as SORT orders them), in key
    /// order: the key paths and `@count`, or the `select` items (group keys and `@count`,
    /// `@sum.kp`, `@avg.kp`, `@min.kp`, `@max.kp`, each optionally `AS NAME`).
    ///
    /// ```swift
    /// let byOrigin = try cars.grouped(by: "origin", select: "origin", "@count", "@avg.mpg AS mpg")
    /// ```
    /// A ``QueryError`` names the key path or item at fault and points into its text.
    public func grouped(by keyPaths: String..., select: String...) throws -> QueryRows {
        try grouped(by: keyPaths, select: select)
    }

    /// One row per distinct combination of the values of `keyPaths`: see `grouped(by:select:)`.
    public func grouped(by keyPaths: [String], select: [String] = []) throws -> QueryRows {
        try grouped(by: keyPaths, select: select, sumsReadAsFloat: [])
    }

    /// `grouped(by:select:)` whose `select` items at the indices `sumsReadAsFloat` are sums
    /// read as `Float`s: see `sum(of:readAsFloat:)`.
    package func grouped(by keyPaths: [String], select: [String], sumsReadAsFloat: Set<Int>) throws -> QueryRows {
        try snapshot.checkLive()
        let text = QuestionText(model: model.name, group: keyPaths, select: select)
        return try text.relocating {
            let binder = QueryBinder(layout: snapshot.layout, arguments: [], statement: nil)
            var grouping = try BoundGrouping(try text.query(), model: model, binder: binder)
            grouping.sumsReadAsFloat = sumsReadAsFloat
            return try grouping.rows(keys, model: model, snapshot: snapshot)
        }
    }

    private func select(_ items: [QuerySelectItem]) throws -> QueryRows {
        let binder = QueryBinder(layout: snapshot.layout, arguments: [], statement: nil)
        return try BoundProjection(items, model: model, binder: binder).rows(keys, model: model, snapshot: snapshot)
    }
}

/// The query `MODEL [GROUP(keys)] SELECT(items)` written from the arguments of `Results.select`
/// and `grouped(by:select:)`, so that they read as in statements, with each argument's place
/// in it: an error in the query is reported in the argument's own text.
private struct QuestionText {
    let text: String
    /// Each argument: what it is, its text and its UTF-8 offset in `text`.
    private let arguments: [(name: String, text: String, offset: Int)]

    init(model: String, group: [String]?, select: [String]) {
        var text = model
        var arguments: [(name: String, text: String, offset: Int)] = []
        func append(_ items: [String], clause: String, name: String) {
            text += " \(clause)("
            for (i, item) in items.enumerated() {
                if i > 0 { text += ", " }
                arguments.append(("\(name) \(i + 1)", item, text.utf8.count))
                text += item
            }
            text += ")"
        }
        if let group { append(group, clause: "GROUP", name: "grouped(by:) key path") }
        if !select.isEmpty { append(select, clause: "SELECT", name: "select item") }
        self.text = text
        self.arguments = arguments
    }

    /// The query, parsed once for every call with the same text (`ParsedQueryCache`).
    func query() throws -> Query { try ParsedQueryCache.shared.query(text) }

    /// The SELECT items bound to `model`: the binding `Snapshot.rows` keeps for the same text
    /// (`MODEL SELECT(items)`), so a repeated call neither parses nor binds them again.
    func projection(model: ModelLayout, layout: StoreLayout) throws -> BoundProjection {
        if case .projected(let cached)? = ParsedQueryCache.shared.binding(text, layout: layout), cached.model === model {
            return cached.projection
        }
        let query = try query()
        let binder = QueryBinder(layout: layout, arguments: [], statement: nil)
        // Without items the text is a plain query, whose answer is objects: nothing to keep.
        guard !query.select.isEmpty else { return try BoundProjection([], model: model, binder: binder) }
        let projected = try BoundProjectedQuery(query, binder: binder)
        ParsedQueryCache.shared.keep(.projected(projected), of: query, for: text, layout: layout)
        return projected.projection
    }

    /// Runs `body`; a `QueryError` from it is reported at its place in the argument it falls in.
    func relocating<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as QueryError {
            let offset = error.location.offset
            guard let argument = arguments.last(where: { $0.offset <= offset }), offset <= argument.offset + argument.text.utf8.count else {
                throw QueryError(error.kind, error.message, at: .start, in: nil)
            }
            // Line and column of the offset within the argument.
            var line = 1, column = 1
            for scalar in String(decoding: argument.text.utf8.prefix(offset - argument.offset), as: UTF8.self).unicodeScalars {
                if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
            }
            throw QueryError(error.kind, "\(argument.name) of '\(argument.text)': \(error.message)",
                             at: QuerySourceLocation(offset: offset - argument.offset, line: line, column: column), in: argument.text)
        }
    }
}
