import Trove

/// Translates a query of Trove's query language into one SQL statement, every value a bound
/// parameter, with the semantics a store gives it.
///
/// - Comparisons follow Realm's null rules: null equals only null, `!=` a value is true for
///   null, and an ordering comparison with null is false. Every translated condition is
///   two-valued (never SQL's unknown), so `NOT` and `ALL` mean what they mean on a store.
/// - Strings compare, sort, group and match (but for `MATCHES`) by the Unicode scalar values
///   (`COLLATE "C"`) of their NFC forms, as in a store, and are stored as written; `[c]` folds
///   case as a store does (see `PostgresStringFolding`), `[d]` removes nonspacing marks after
///   canonical decomposition. A primary key names one spelling: a link, `get`, an update or
///   delete by key find the key as written, as a store's do.
/// - Key paths through to-one links become left joins (a null link gives null values);
///   paths through lists and linkingObjects become `EXISTS` subqueries, with `ANY` (the
///   default), `ALL` and `NONE` quantifiers.
/// - `SELECT` and `GROUP` become projections and `GROUP BY` (see `PostgresProjection`).
/// - `MATCHES` becomes `~` for the patterns whose meaning is the same in ICU's syntax and
///   PostgreSQL's, `MATCHES[c]` for those of ASCII characters (see
///   `PostgresRegularExpression`).
/// - What has no faithful translation (another `MATCHES` pattern, a pattern read from the
///   objects) is an error, never an approximate answer.
struct PostgresQueryTranslator {
    let schema: Schema
    let tables: PostgresTables
    /// The values of `$0`, `$1`, ... in the query text.
    let arguments: [Value]
    var parameters = SQLParameters()
    var aliasCount = 0
    /// Whether the sums and averages of floats and doubles whose values are read (a statement's
    /// value, SELECT and GROUP items) take the exact form rather than the fast one
    /// (`doubleSum`): for running again a statement that gave a fast one that is not finite.
    var exactSums = false
    /// The left joins of each open scope (the statement, then each `SUBQUERY` inside it).
    var scopes: [Scope] = [Scope()]

    struct Scope {
        var joins: [String] = []
        /// The alias joined for a link property of an alias: `"t0.owner"` -> `"t1"`.
        var joined: [String: String] = [:]
    }

    init(tables: PostgresTables, arguments: [Value] = []) {
        self.schema = tables.schema
        self.tables = tables
        self.arguments = arguments
    }

    /// The model a statement names.
    func model(_ name: QueryIdentifier) throws -> ModelSchema {
        guard let model = schema[name.name] else { throw Self.refusal(.unknownModel, UnknownModelName.message(name.name, among: schema.models.map(\.name)), at: name.range) }
        return model
    }

    /// A model the schema names (a link's target).
    func model(_ name: String) throws -> ModelSchema {
        guard let model = schema[name] else { throw PostgresError("the schema names no model '\(name)'") }
        return model
    }

    /// A construct of a statement the translator refuses, at its place in the statement, as a
    /// store's `QueryError`. What a store refuses is refused before translation
    /// (`QueryCheck`), so what reaches here is mostly what PostgreSQL cannot run the store's
    /// way (`.unsupported`).
    static func refusal(_ kind: QueryError.Kind, _ message: String, at range: QuerySourceRange) -> QueryError {
        QueryError(kind, message, at: range.start)
    }

    // MARK: Statements

    /// `SELECT` of the objects of `query` (their stored properties, in schema order, as
    /// `PostgresObjects` reads them).
    mutating func select(_ query: Query) throws -> String {
        guard query.select.isEmpty, query.group.isEmpty else { return try rows(query).sql }
        let model = try model(query.model)
        return try objects(query, model: model, columns: try outputColumns(model, alias: "t0"))
    }

    /// The objects of `query` (sorted, distinct, paged), each as `columns` read from the
    /// object `t0`, then its key. `items` are the SELECT items SORT may name: their names and
    /// texts, and the SQL of their values (nil for one SORT cannot take).
    mutating func objects(_ query: Query, model: ModelSchema, columns: [String], items: [(names: [String], value: String?)] = []) throws -> String {
        let root = "t0"
        // The object's key last, for telling objects apart across runs (`watch`).
        let columns = columns + [keyOutput(model, alias: root)]
        let condition = try query.predicate.map { try self.condition($0, model: model, alias: root) } ?? "true"
        var order: [String] = []
        var sortValues: [String] = []
        for descriptor in query.sort {
            let path: Path
            do {
                path = try resolve(descriptor.keyPath, model: model, alias: root)
            } catch let error as QueryError {
                // A SELECT item's name or text, when it is no key path of the model.
                let written = descriptor.keyPath.description
                guard let item = items.first(where: { $0.names.contains(written) }) else { throw error }
                guard let value = item.value else {
                    throw Self.refusal(.invalidKeyPath, "SORT takes a key path of '\(model.name)' or a SELECT item's name or text; '\(written)' is neither",
                                       at: descriptor.keyPath.range)
                }
                order.append(value + (descriptor.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST"))
                sortValues.append(value)
                continue
            }
            guard path.subquery == nil, path.objectModel == nil, path.type.isScalar else {
                throw Self.refusal(.invalidKeyPath, "cannot sort by '\(descriptor.keyPath)': SORT takes a key path to one value", at: descriptor.keyPath.range)
            }
            // A property of the object itself that cannot be null orders the same without the
            // store's null order; said plainly, it matches an index's order, so a page can
            // walk the index rather than sort every match.
            let keyPath = descriptor.keyPath
            let neverNull = keyPath.variable == nil && keyPath.names.count == 1 && model[property: keyPath.names[0]]?.isOptional == false
            let value = Self.ordered(path.expression, path.type)
            order.append(value + (descriptor.ascending ? (neverNull ? " ASC" : " ASC NULLS FIRST") : (neverNull ? " DESC" : " DESC NULLS LAST")))
            sortValues.append(value)
        }
        // `"@key"` breaks ties as a store does; after the primary key (unique, never null) no
        // tie is left, and an object pinned by its primary key has nothing to be ordered with.
        let primaryKey = model.primaryKey.map { "\(root).\(PostgresTables.quoted($0))" }
        let sortsByKey = primaryKey.map(sortValues.contains) ?? false
        order.append("\(root).\(PostgresTables.orderColumn)")
        let from = "\(tables.table(model.name)) AS \(root)" + scopes[0].joins.joined()
        var sql: String
        if query.distinct.isEmpty {
            sql = "SELECT \(columns.joined(separator: ", ")) FROM \(from) WHERE \(condition)"
            if model.primaryKeyProperty?.type == .string || !(model.primaryKey.map { Self.pins(query.predicate, primaryKey: $0) } ?? false) {
                sql += " ORDER BY \((sortsByKey ? order.dropLast() : order[...]).joined(separator: ", "))"
            }
        } else {
            // The first object of each combination in the sorted order (by its `"@key"`), then
            // the sorted order again; `columns` are computed for the objects kept alone, as a
            // store computes a SELECT item only for them (an item that overflows in an object
            // DISTINCT drops is no error).
            var keys: [String] = []
            for keyPath in query.distinct {
                let path: Path
                do {
                    path = try resolve(keyPath, model: model, alias: root)
                } catch let error as QueryError where error.kind == .unknownProperty {
                    guard let message = query.distinctNamingItem(keyPath) else { throw error }
                    throw Self.refusal(.invalidKeyPath, message, at: keyPath.range)
                }
                guard path.subquery == nil else {
                    throw Self.refusal(.invalidKeyPath, "DISTINCT needs one value per object; '\(keyPath)' crosses a list", at: keyPath.range)
                }
                keys.append(Self.distinguished(path))
            }
            let from = "\(tables.table(model.name)) AS \(root)" + scopes[0].joins.joined()
            let ordinals = order.indices.map { "o\($0)" }
            let orderValues = sortValues + ["\(root).\(PostgresTables.orderColumn)"]
            let inner = "SELECT " + zip(orderValues, ordinals).map { "\($0) AS \($1)" }.joined(separator: ", ")
                + ", row_number() OVER (PARTITION BY \(keys.joined(separator: ", ")) ORDER BY \(order.joined(separator: ", "))) AS rank"
                + " FROM \(from) WHERE \(condition)"
            let outerOrder = zip(ordinals, descriptorsDirections(query.sort)).map { "d.\($0)\($1)" }
            sql = "SELECT \(columns.joined(separator: ", ")) FROM \(from) JOIN (\(inner)) AS d ON \(root).\(PostgresTables.orderColumn) = d.\(ordinals.last!) AND d.rank = 1"
                + " ORDER BY \(outerOrder.joined(separator: ", "))"
        }
        // OFFSET and LIMIT are integers of the query's text, written as they are: a bound
        // LIMIT leaves PostgreSQL's generic plan of the prepared statement unsure how many
        // rows are wanted, so it plans each run anew.
        if query.offset > 0 { sql += " OFFSET \(query.offset)" }
        if let limit = query.limit { sql += " LIMIT \(limit)" }
        return sql
    }

    /// The SQL a store orders values of `type` by: a string's NFC form (canonically equivalent
    /// spellings tie, and keep their objects' order), any other value itself.
    static func ordered(_ expression: String, _ type: PropertyType) -> String {
        type == .string ? PostgresStringFolding.nfc(expression) : expression
    }

    /// The SQL by which DISTINCT and GROUP tell values of `path` apart, as a store does: a
    /// string by its NFC form, a link by its target (the key as stored), anything else by itself.
    static func distinguished(_ path: Path) -> String {
        path.objectModel == nil ? ordered(path.expression, path.type) : path.expression
    }

    /// Whether `predicate` holds for one object at most: it requires `primaryKey == constant`
    /// (a key that is no string: canonically equivalent string keys are two objects that one
    /// string matches).
    static func pins(_ predicate: QueryPredicate?, primaryKey: String) -> Bool {
        switch predicate?.kind {
        case .comparison(let c):
            guard c.op == .equal, c.quantifier == nil, c.options.isEmpty else { return false }
            let path: QueryExpression
            if c.left.isConstant { path = c.right } else if c.right.isConstant { path = c.left } else { return false }
            guard case .keyPath(let keyPath) = path.kind else { return false }
            return keyPath.variable == nil && keyPath.names == [primaryKey]
        case .and(let operands):
            return operands.contains { pins($0, primaryKey: primaryKey) }
        default:
            return false
        }
    }

    private func descriptorsDirections(_ sort: [QuerySortDescriptor]) -> [String] {
        sort.map { $0.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST" } + [""]
    }

    /// `sum|avg|min|max MODEL.KEYPATH [where P]` (or `count MODEL [where P]`): one row, one column, the aggregate in the
    /// text `PostgresValues.value` reads as `resultType`. As in a store, nulls are skipped,
    /// `sum` is 0 over no values and the others null, and `avg` is a double (a decimal for
    /// decimals).
    mutating func aggregate(_ statement: QueryAggregateStatement) throws -> (sql: String, resultType: PropertyType) {
        let model = try model(statement.model)
        if statement.function == .count {
            return (try count(model, where: statement.predicate), .int)
        }
        guard let keyPath = statement.keyPath else {
            throw Self.refusal(.invalidKeyPath, "\(statement.function) needs MODEL.KEYPATH", at: statement.model.range)
        }
        let root = "t0"
        let path = try resolve(keyPath, model: model, alias: root)
        let name = String(statement.function.rawValue.dropFirst())
        guard path.subquery == nil, path.objectModel == nil else {
            throw Self.refusal(.invalidKeyPath, "\(name) takes a key path to one value per object; '\(keyPath)' is not one", at: keyPath.range)
        }
        let type = path.type
        if let refusal = statement.function.refusal(named: name, of: keyPath.description, type: type, being: "\(type)") {
            throw Self.refusal(.typeMismatch, refusal, at: keyPath.range)
        }
        var condition = try statement.predicate.map { try self.condition($0, model: model, alias: root) } ?? "true"
        let value = path.expression
        let expression: String
        let resultType: PropertyType
        switch statement.function {
        case .sum:
            if type.isInteger {
                (expression, resultType) = ("COALESCE(sum(\(value)), 0)::bigint", .int)
            } else if type == .decimal {
                (expression, resultType) = (Self.decimalSum(value), .decimal)
            } else {
                (expression, resultType) = (Self.doubleSum(value, type: type, exact: exactSums), .double)
            }
        case .avg:
            if type == .decimal {
                // Divided on this side, as a store divides (`PostgresValues.decimalAverage`).
                (expression, resultType) = ("\(Self.decimalSum(value)), \(Self.decimalCount(value))::bigint", .decimal)
            } else {
                (expression, resultType) = (Self.doubleAverage(value, type: type, exact: exactSums), .double)
            }
        case .min, .max:
            // NaN is left out by the statement's WHERE, not a FILTER: PostgreSQL answers `min` or
            // `max` of an indexed column from one end of the index only for an aggregate
            // without a FILTER.
            (expression, resultType) = (PostgresValues.output("\(name)(\(value))", type: type), type)
            let from = " FROM \(tables.table(model.name)) AS \(root)" + scopes[0].joins.joined()
            if type == .double || type == .float {
                // A store keeps the first of equal values, so a zero is the first matching
                // object's zero; read by a subquery that runs only when the answer is 0.
                let first = "SELECT \(value)\(from) WHERE (\(condition)) AND \(value) = 0 ORDER BY \(root).\(PostgresTables.orderColumn) LIMIT 1"
                let extremum = "SELECT \(expression) AS m\(from) WHERE (\(condition)) AND \(value) < 'NaN'"
                return ("SELECT CASE WHEN m IS NULL OR m <> 0 THEN m ELSE (\(first)) END FROM (\(extremum)) AS extremum", resultType)
            }
            if let number = Self.notNaN(value, type: type) { condition = "(\(condition)) AND \(number)" }
        case .count, .size:
            throw Self.refusal(.invalidAggregate, "count is its own statement", at: statement.model.range)
        }
        let sql = "SELECT \(expression) FROM \(tables.table(model.name)) AS \(root)" + scopes[0].joins.joined() + " WHERE \(condition)"
        return (sql, resultType)
    }

    /// The keys (the columns links refer to) of the objects of `model` matching `predicate`.
    /// `count MODEL [where P]`: the one SQL `count(_:where:)`, `explain` and `watch` run.
    mutating func count(_ model: ModelSchema, where predicate: QueryPredicate?) throws -> String {
        "SELECT count(*) FROM (\(try keys(model, where: predicate))) AS matched"
    }

    /// How many objects of `model` whose `"@key"` is above `low` and at most `high` satisfy
    /// each of `predicates`: a statement that tests every one of them on every such object
    /// (`PostgresStore.overflowingSum`'s re-check). The bounds are bound parameters, so that
    /// re-checks of one predicate share one prepared statement.
    mutating func counts(_ model: ModelSchema, each predicates: [QueryPredicate], above low: Int64, through high: Int64) throws -> String {
        let root = "t0"
        let counts = try predicates.map { "count(*) FILTER (WHERE \(try condition($0, model: model, alias: root)))" }
        let key = "\(root).\(PostgresTables.orderColumn)"
        let above = parameters.add(String(low)), through = parameters.add(String(high))
        return "SELECT \(counts.joined(separator: ", ")) FROM \(tables.table(model.name)) AS \(root)"
            + scopes[0].joins.joined() + " WHERE \(key) > \(above)::int8 AND \(key) <= \(through)::int8"
    }

    mutating func keys(_ model: ModelSchema, where predicate: QueryPredicate?) throws -> String {
        let root = "t0"
        let condition = try predicate.map { try self.condition($0, model: model, alias: root) } ?? "true"
        return "SELECT \(root).\(tables.keyColumn(model)) FROM \(tables.table(model.name)) AS \(root)"
            + scopes[0].joins.joined() + " WHERE \(condition)"
    }

    /// The condition a write's `WHERE` puts on the rows of `model` (the table under the alias
    /// `t0`) for those matching `predicate`: the predicate itself, or (when it reads through
    /// links, which need joins) the key's membership in the matching keys.
    mutating func rowCondition(_ model: ModelSchema, where predicate: QueryPredicate?) throws -> String {
        let root = "t0"
        let condition = try predicate.map { try self.condition($0, model: model, alias: root) } ?? "true"
        guard !scopes[0].joins.isEmpty else { return condition }
        let key = "\(root).\(tables.keyColumn(model))"
        return "\(key) IN (SELECT \(key) FROM \(tables.table(model.name)) AS \(root)" + scopes[0].joins.joined() + " WHERE \(condition))"
    }

    /// The key of the object `alias` as a row of objects ends with it (`PostgresObjects.keys`).
    func keyOutput(_ model: ModelSchema, alias: String) -> String {
        // Read as it is, a key's text is its `::text` (but a bool's, `t` for `true`): the cast
        // would be made for every row a sort reads, the text only for the rows sent.
        let key = "\(alias).\(tables.keyColumn(model))"
        return model.primaryKeyProperty?.type == .bool ? key + "::pg_catalog.text" : key
    }

    /// The SQL reading each stored property of `model` from `alias`: scalars and links as
    /// `PostgresValues.output` writes them, lists as a JSON array of those texts.
    func outputColumns(_ model: ModelSchema, alias: String) throws -> [String] {
        try model.properties.filter(\.isStored).map { property in
            let column = "\(alias).\(PostgresTables.quoted(property.name))"
            switch property.type {
            case .link(let target):
                return PostgresValues.output(column, type: try keyProperty(target))
            case .list(let element):
                let value: String
                if case .link(let target) = element {
                    value = PostgresValues.output("l.value", type: try keyProperty(target))
                } else {
                    value = PostgresValues.output("l.value", type: element)
                }
                return "(SELECT COALESCE(json_agg((\(value))::pg_catalog.text ORDER BY l.position), '[]') FROM "
                    + "\(tables.listTable(model.name, property.name)) AS l WHERE l.owner = \(alias).\(tables.keyColumn(model)))"
            default:
                return PostgresValues.output(column, type: property.type)
            }
        }
    }

    /// The type of the values links to `model` hold: its primary key's, or `int` for `"@key"`.
    func keyProperty(_ model: String) throws -> PropertyType {
        try self.model(model).primaryKeyProperty?.type ?? .int
    }

    // MARK: Key paths

    /// A key path resolved to SQL.
    struct Path {
        /// The SQL of the value reached (inside `subquery` when there is one).
        var expression: String
        /// The scalar type of the value (a link's key type for a link).
        var type: PropertyType
        /// For a path through a list or linkingObjects: the `FROM ... WHERE` of the subquery
        /// whose rows are the values reached.
        var subquery: Subquery?
        /// The model of the object reached, when the path ends at objects (a link or a list of
        /// links) rather than a scalar.
        var objectModel: ModelSchema?
        var objectAlias: String?
    }

    struct Subquery {
        /// `"Person.dogs" AS l1 JOIN "Dog" AS t2 ON ...`
        var from: String
        /// `l1.owner = t0."@key"`
        var correlation: String
        /// The SQL ordering the rows as a store visits them: by list position, linking
        /// objects (each once) in the order they were saved.
        var order: [String] = []
        /// The key column of the object the first step starts from (`t1."id"`): null when a
        /// to-one link on the way to the list is null.
        var outer: String?

        func exists(_ condition: String) -> String {
            "EXISTS (SELECT 1 FROM \(from) WHERE \(correlation) AND \(condition))"
        }

        /// `subquery` with `from` joined on `condition`; the first step of a to-many path
        /// starts one, correlated to the outer row by `condition`.
        static func joining(_ subquery: Subquery?, _ from: String, on condition: String, order: [String], outer: String) -> Subquery {
            guard var subquery else { return Subquery(from: from, correlation: condition, order: order, outer: outer) }
            subquery.from += " JOIN \(from) ON \(condition)"
            subquery.order += order
            return subquery
        }
    }

    mutating func nextAlias(_ prefix: String) -> String {
        aliasCount += 1
        return "\(prefix)\(aliasCount)"
    }

    /// Resolves `keyPath` from the object `alias` of `model`. `variables` gives the model and
    /// alias each `SUBQUERY` variable stands for (nil model for an element of a primitive list).
    mutating func resolve(_ keyPath: QueryKeyPath, model: ModelSchema, alias: String,
                          variables: [String: (ModelSchema?, String, PropertyType?)] = [:]) throws -> Path {
        var current = model
        var currentAlias = alias
        if let variable = keyPath.variable {
            guard let bound = variables[variable.name] else {
                throw Self.refusal(.unknownVariable, "unknown variable '$\(variable.name)'", at: variable.range)
            }
            guard let boundModel = bound.0 else {
                guard keyPath.components.isEmpty, let type = bound.2 else {
                    throw Self.refusal(.unknownProperty, "'$\(variable.name)' is a value of a list and has no properties", at: keyPath.range)
                }
                return Path(expression: bound.1, type: type)
            }
            current = boundModel
            currentAlias = bound.1
        }
        var subquery: Subquery?
        let names = keyPath.names
        guard !names.isEmpty else { throw Self.refusal(.invalidKeyPath, "'\(keyPath)' names no property", at: keyPath.range) }
        for (i, name) in names.enumerated() {
            let at = keyPath.components[i].range
            guard let property = current[property: name] else {
                throw Self.refusal(.unknownProperty, "'\(current.name)' has no property '\(name)'", at: at)
            }
            let isLast = i == names.count - 1
            let column = "\(currentAlias).\(PostgresTables.quoted(name))"
            switch property.type {
            case .link(let target):
                let targetModel = try self.model(target)
                if isLast {
                    return Path(expression: column, type: try keyProperty(target), subquery: subquery,
                                objectModel: targetModel, objectAlias: nil)
                }
                let joined = nextAlias("t")
                let join = " LEFT JOIN \(tables.table(target)) AS \(joined) ON \(joined).\(tables.keyColumn(targetModel)) = \(column)"
                if subquery != nil {
                    subquery!.from += join
                } else if let existing = scopes[scopes.count - 1].joined["\(currentAlias).\(name)"] {
                    current = targetModel
                    currentAlias = existing
                    continue
                } else {
                    scopes[scopes.count - 1].joins.append(join)
                    scopes[scopes.count - 1].joined["\(currentAlias).\(name)"] = joined
                }
                current = targetModel
                currentAlias = joined
            case .list(let element):
                let list = nextAlias("l")
                let side = "\(tables.listTable(current.name, name)) AS \(list)"
                let outer = "\(currentAlias).\(tables.keyColumn(current))"
                let owner = "\(list).owner = \(outer)"
                var from = side
                if case .link(let target) = element {
                    let targetModel = try self.model(target)
                    let joined = nextAlias("t")
                    from += " JOIN \(tables.table(target)) AS \(joined) ON \(joined).\(tables.keyColumn(targetModel)) = \(list).value"
                    subquery = Subquery.joining(subquery, from, on: owner, order: ["\(list).position"], outer: outer)
                    if isLast {
                        return Path(expression: "\(joined).\(tables.keyColumn(targetModel))", type: try keyProperty(target),
                                    subquery: subquery, objectModel: targetModel, objectAlias: joined)
                    }
                    current = targetModel
                    currentAlias = joined
                } else {
                    subquery = Subquery.joining(subquery, from, on: owner, order: ["\(list).position"], outer: outer)
                    guard isLast else { throw Self.refusal(.unknownProperty, "'\(name)' is a list of values and has no properties", at: at) }
                    return Path(expression: "\(list).value", type: element, subquery: subquery)
                }
            case .linkingObjects(let origin, let originProperty):
                let originModel = try self.model(origin)
                guard let link = originModel[property: originProperty] else { throw PostgresError("'\(origin)' has no property '\(originProperty)'") }
                let joined = nextAlias("t")
                var from: String
                var correlation: String
                let order = ["\(joined).\(PostgresTables.orderColumn)"]
                if link.type.isList {
                    let list = nextAlias("l")
                    // An object that lists the target twice links to it once, as in a store.
                    from = "(SELECT DISTINCT owner, value FROM \(tables.listTable(origin, originProperty))) AS \(list) "
                        + "JOIN \(tables.table(origin)) AS \(joined) ON \(joined).\(tables.keyColumn(originModel)) = \(list).owner"
                    correlation = "\(list).value = \(currentAlias).\(tables.keyColumn(current))"
                } else {
                    from = "\(tables.table(origin)) AS \(joined)"
                    correlation = "\(joined).\(PostgresTables.quoted(originProperty)) = \(currentAlias).\(tables.keyColumn(current))"
                }
                subquery = Subquery.joining(subquery, from, on: correlation, order: order,
                                            outer: "\(currentAlias).\(tables.keyColumn(current))")
                if isLast {
                    return Path(expression: "\(joined).\(tables.keyColumn(originModel))", type: try keyProperty(origin),
                                subquery: subquery, objectModel: originModel, objectAlias: joined)
                }
                current = originModel
                currentAlias = joined
            default:
                guard isLast else { throw Self.refusal(.unknownProperty, "'\(name)' is a \(property.type) and has no properties", at: at) }
                return Path(expression: column, type: property.type, subquery: subquery)
            }
        }
        throw Self.refusal(.invalidKeyPath, "'\(keyPath)' reaches no value", at: keyPath.range)
    }

    // MARK: Predicates

    /// The two-valued SQL condition of `predicate` on the object `alias` of `model`.
    mutating func condition(_ predicate: QueryPredicate, model: ModelSchema, alias: String,
                            variables: [String: (ModelSchema?, String, PropertyType?)] = [:]) throws -> String {
        switch predicate.kind {
        case .constant(let value):
            return value ? "true" : "false"
        case .not(let operand):
            return "NOT (\(try condition(operand, model: model, alias: alias, variables: variables)))"
        case .and(let operands), .or(let operands):
            let conditions = try operands.map { try condition($0, model: model, alias: alias, variables: variables) }
            let isAnd = if case .and = predicate.kind { true } else { false }
            return Self.inOrder(conditions[...], sums: operands.map(Self.holdsSum)[...], and: isAnd)
        case .between(let between):
            let bounds = QueryExpression.list([between.lower, between.upper])
            return try comparison(quantifier: between.quantifier, between.value, .between, [], bounds, at: predicate.range,
                                  model: model, alias: alias, variables: variables)
        case .comparison(let c):
            return try comparison(quantifier: c.quantifier, c.left, Operator(c.op), c.options, c.right, at: c.operatorRange,
                                  model: model, alias: alias, variables: variables)
        }
    }

    /// `conditions` joined by `AND` (`and`) or `OR`, tested in the order written from each one
    /// after the first that holds a sum or an average (`sums`) on. A store stops at the first
    /// operand that decides (after its slot comparisons), so a later sum is never computed for
    /// an object the earlier operands decide; PostgreSQL orders a `WHERE`'s conjuncts by cost,
    /// and would compute it, and could refuse it as "out of range" where a store answers. A
    /// `CASE` fixes the order; an `AND` keeps its first operands as conjuncts of their own too
    /// (when they hold no sum, so repeating them is cheap), where an index can serve them.
    /// Conditions are two-valued, so `CASE` gives what `AND` and `OR` give.
    static func inOrder(_ conditions: ArraySlice<String>, sums: ArraySlice<Bool>, and: Bool) -> String {
        let separator = and ? " AND " : " OR "
        guard let pinned = sums.indices.dropFirst().first(where: { sums[$0] }) else {
            return "(" + conditions.joined(separator: separator) + ")"
        }
        let first = "(" + conditions[..<pinned].joined(separator: separator) + ")"
        let rest = inOrder(conditions[pinned...], sums: sums[pinned...], and: and)
        guard and else { return "(CASE WHEN \(first) THEN true ELSE \(rest) END)" }
        let ordered = "CASE WHEN \(first) THEN \(rest) ELSE false END"
        return sums[..<pinned].contains(true) ? "(\(ordered))" : "(\(first) AND \(ordered))"
    }

    /// Whether `predicate` computes a sum or an average of a list (which PostgreSQL can
    /// refuse as "out of range").
    static func holdsSum(_ predicate: QueryPredicate) -> Bool {
        switch predicate.kind {
        case .constant: false
        case .not(let operand): holdsSum(operand)
        case .and(let operands), .or(let operands): operands.contains(where: holdsSum)
        case .comparison(let c): holdsSum(c.left) || holdsSum(c.right)
        case .between(let b): holdsSum(b.value) || holdsSum(b.lower) || holdsSum(b.upper)
        }
    }

    private static func holdsSum(_ expression: QueryExpression) -> Bool {
        switch expression.kind {
        case .aggregate(let aggregate): aggregate.function == .sum || aggregate.function == .avg
        case .subqueryCount(let subquery): holdsSum(subquery.predicate)
        default: false
        }
    }

    /// The query language's operators, as the store's evaluator binds them.
    typealias Operator = BoundOperator

    /// An operand: SQL over one value, possibly inside a to-many subquery.
    private struct Operand {
        var expression: String
        var type: PropertyType
        var subquery: Subquery?
        /// Whether the value is never SQL's null (a stored property of the object itself that
        /// is not optional, a count): its comparisons need no null guard.
        var isNeverNull = false
        /// Whether the value is a link's key: links compare by identity, so its key is not
        /// folded to NFC as a string value is.
        var isObject = false
    }

    /// `left op right`; `at` is the operator's place (a `BETWEEN`'s, the predicate's), where
    /// a refusal of the comparison points.
    private mutating func comparison(quantifier: Quantifier?, _ left: QueryExpression, _ op: Operator,
                                     _ options: StringComparisonOptions, _ right: QueryExpression, at location: QuerySourceRange,
                                     model: ModelSchema, alias: String,
                                     variables: [String: (ModelSchema?, String, PropertyType?)]) throws -> String {
        // `constant IN listPath`: any element equals the constant.
        if op == .in, left.isConstant, !right.isConstant {
            return try comparison(quantifier: quantifier ?? .any, right, .equal, options, left, at: location,
                                  model: model, alias: alias, variables: variables)
        }
        var op = op
        var (left, right) = (left, right)
        if left.isConstant, !right.isConstant {
            guard let swapped = op.swapped else {
                return try constantSubjectTest(quantifier: quantifier, left, op, options, right, at: location,
                                               model: model, alias: alias, variables: variables)
            }
            (left, right, op) = (right, left, swapped)
        }
        guard !left.isConstant else { throw Self.refusal(.typeMismatch, "a comparison needs a key path on one side", at: left.range) }
        var computed: [String] = []
        let subject = computedOnce(try operand(left, model: model, alias: alias, variables: variables), left, into: &computed)
        /// `test`, with the aggregates it reads computed once for it.
        func fenced(_ test: String) -> String {
            computed.isEmpty ? test : "(SELECT \(test) FROM \(computed.joined(separator: ", ")))"
        }
        var test: String
        if right.isConstant {
            test = try constantTest(subject, op, options, right, at: location)
        } else {
            let other = computedOnce(try operand(right, model: model, alias: alias, variables: variables), right, into: &computed)
            guard subject.subquery == nil || other.subquery == nil else {
                throw Self.refusal(.typeMismatch, "only one side of a comparison may be a list", at: right.range)
            }
            // `keyPath IN listPath`: any element of the list equals the value.
            if op == .in {
                guard other.subquery != nil else { throw Self.refusal(.typeMismatch, "IN takes a list", at: right.range) }
                op = .equal
            }
            test = try valueTest(subject.expression, op, options, other.expression, type: subject.type, rightType: other.type, at: location,
                                 foldLeft: !subject.isObject, foldRight: !other.isObject)
            if let subquery = other.subquery { return fenced(quantified(quantifier, subquery, test)) }
        }
        if let subquery = subject.subquery { return fenced(quantified(quantifier, subquery, test)) }
        if quantifier != nil, quantifier != .any {
            throw Self.refusal(.invalidQuantifier, "\(quantifier!) needs a key path that crosses a list", at: left.range)
        }
        return fenced(test)
    }

    /// `operand` (the value of `expression`) as a column of a one-row subquery added to
    /// `computed`, when it is a sum, average, minimum or maximum of a list: a comparison names
    /// its value more than once (the NaN and null guards, BETWEEN's two bounds), and
    /// PostgreSQL would run the list's subquery at each. `OFFSET 0` keeps the planner from
    /// pulling the subquery up, which would copy the expression back into each place.
    private mutating func computedOnce(_ operand: Operand, _ expression: QueryExpression, into computed: inout [String]) -> Operand {
        guard case .aggregate(let aggregate) = expression.kind, operand.subquery == nil else { return operand }
        switch aggregate.function {
        case .sum, .avg, .min, .max:
            let alias = nextAlias("v")
            computed.append("(SELECT \(operand.expression) AS v OFFSET 0) AS \(alias)")
            var once = operand
            once.expression = "\(alias).v"
            return once
        case .count, .size:
            return operand
        }
    }

    /// `constant op keyPath` for an operator with no mirror image (`'abc' CONTAINS name`,
    /// `'abc' LIKE pattern`): the constant is the subject, folded on this side by the store's
    /// code, the key path's values the needle or pattern, folded in SQL.
    private mutating func constantSubjectTest(quantifier: Quantifier?, _ constant: QueryExpression, _ op: Operator,
                                              _ options: StringComparisonOptions, _ keyPath: QueryExpression, at location: QuerySourceRange,
                                              model: ModelSchema, alias: String,
                                              variables: [String: (ModelSchema?, String, PropertyType?)]) throws -> String {
        guard op == .beginsWith || op == .endsWith || op == .contains || op == .like else {
            throw Self.refusal(.unsupported, "\(op.symbol) with a constant on its left is not translated to PostgreSQL", at: location)
        }
        let other = try operand(keyPath, model: model, alias: alias, variables: variables)
        guard other.type == .string else {
            throw Self.refusal(.unsupported, "\(op.symbol) of \(other.type) values is not translated to PostgreSQL: it applies to strings there", at: location)
        }
        let (value, source) = try value(constant, as: .string, options)
        guard !value.isNull else {
            throw Self.refusal(.typeMismatch, "nil cannot be compared with \(op.symbol); only == and != take nil", at: constant.range)
        }
        let subject = try bind((value, source), as: .string, options, at: constant.range)
        let test = try valueTest(subject, op, options, other.expression, type: .string, at: location, foldLeft: false)
        if let subquery = other.subquery { return quantified(quantifier, subquery, test) }
        return test
    }

    private func quantified(_ quantifier: Quantifier?, _ subquery: Subquery, _ test: String) -> String {
        switch quantifier ?? .any {
        case .any: subquery.exists(test)
        case .all: "NOT " + subquery.exists("NOT (\(test))")
        case .noneOf: "NOT " + subquery.exists(test)
        }
    }

    private mutating func operand(_ expression: QueryExpression, model: ModelSchema, alias: String,
                                  variables: [String: (ModelSchema?, String, PropertyType?)]) throws -> Operand {
        switch expression.kind {
        case .keyPath(let keyPath):
            let path = try resolve(keyPath, model: model, alias: alias, variables: variables)
            let property = keyPath.variable == nil && keyPath.names.count == 1 ? model[property: keyPath.names[0]] : nil
            let isNeverNull = path.subquery == nil && property.map { !$0.isOptional && $0.isStored && $0.type.isScalar } ?? false
            return Operand(expression: path.expression, type: path.type, subquery: path.subquery, isNeverNull: isNeverNull,
                           isObject: path.objectModel != nil)
        case .aggregate(let aggregate):
            if let size = try byteSize(aggregate, model: model, alias: alias, variables: variables) {
                return Operand(expression: size, type: .int)
            }
            let value = try aggregatedValues(aggregate, model: model, alias: alias, variables: variables)
            let from = "FROM \(value.subquery!.from) WHERE \(value.subquery!.correlation)"
            switch aggregate.function {
            case .count, .size: return Operand(expression: "(SELECT count(*) \(from))", type: .int, isNeverNull: true)
            // Typed as a store types them, which is how a constant compared with them is read.
            case .sum:
                let type: PropertyType = value.type.isInteger ? .int : value.type == .decimal ? .decimal : .double
                if type == .decimal { return Operand(expression: "(SELECT \(Self.decimalSum(value.expression)) \(from))", type: type) }
                // An int sum is numeric in PostgreSQL: the cast is where it leaves bigint's
                // range, as a store's leaves Int64's.
                // The exact form: a condition's sum is not read, so a fast one that is not
                // finite would go unseen (`doubleSum`).
                let sum = type == .double ? Self.doubleSum(value.expression, type: value.type, exact: true) : "COALESCE(sum(\(value.expression)), 0)::bigint"
                return Operand(expression: "(SELECT \(sum) \(from))", type: type)
            case .avg:
                if value.type == .decimal {
                    let quotient = Self.decimalQuotient(sum: Self.decimalSum(value.expression), count: Self.decimalCount(value.expression)) + " \(from)"
                    return Operand(expression: Self.decimalAverage(quotient: quotient), type: .decimal)
                }
                return Operand(expression: "(SELECT \(Self.doubleAverage(value.expression, type: value.type, exact: true)) \(from))", type: .double)
            case .min: return Operand(expression: "(SELECT \(Self.extremum("min", value.expression, type: value.type)) \(from))", type: value.type)
            case .max: return Operand(expression: "(SELECT \(Self.extremum("max", value.expression, type: value.type)) \(from))", type: value.type)
            }
        case .subqueryCount(let sub):
            let path = try resolve(sub.collection, model: model, alias: alias, variables: variables)
            guard let subquery = path.subquery else {
                throw Self.refusal(.invalidKeyPath, "SUBQUERY needs a list; '\(sub.collection)' is not one", at: sub.collection.range)
            }
            var bound = variables
            if let target = path.objectModel, let targetAlias = path.objectAlias {
                bound[sub.variable.name] = (target, targetAlias, nil)
            } else {
                bound[sub.variable.name] = (nil, path.expression, path.type)
            }
            scopes.append(Scope())
            let test = try condition(sub.predicate, model: model, alias: alias, variables: bound)
            let joins = scopes.removeLast().joins.joined()
            return Operand(expression: "(SELECT count(*) FROM \(subquery.from)\(joins) WHERE \(subquery.correlation) AND \(test))", type: .int, isNeverNull: true)
        case .literal, .parameter:
            throw Self.refusal(.typeMismatch, "a comparison needs a key path on one side", at: expression.range)
        }
    }

    /// `string.@size` or `data.@size`: the value's length in bytes (UTF-8 for a string), or nil
    /// for an aggregate of a list.
    mutating func byteSize(_ aggregate: QueryExpression.Aggregate, model: ModelSchema, alias: String,
                           variables: [String: (ModelSchema?, String, PropertyType?)] = [:]) throws -> String? {
        guard aggregate.function == .size else { return nil }
        let path = try resolve(aggregate.collection, model: model, alias: alias, variables: variables)
        guard path.subquery == nil, path.type == .string || path.type == .data else { return nil }
        return "octet_length(\(path.expression))::bigint"
    }

    /// The values a list aggregate (`dogs.@count`, `nums.@sum`, `dogs.@avg.age`) reads: the
    /// path to them, inside the list's subquery.
    mutating func aggregatedValues(_ aggregate: QueryExpression.Aggregate, model: ModelSchema, alias: String,
                                   variables: [String: (ModelSchema?, String, PropertyType?)] = [:]) throws -> Path {
        let path = try resolve(aggregate.collection, model: model, alias: alias, variables: variables)
        guard let subquery = path.subquery else {
            throw Self.refusal(.invalidAggregate, "\(aggregate.function) applies to a list; '\(aggregate.collection)' is not one", at: aggregate.collection.range)
        }
        switch aggregate.function {
        case .count, .size:
            return path
        case .sum, .avg, .min, .max:
            var value = path
            if let property = aggregate.property {
                guard let target = path.objectModel, let targetAlias = path.objectAlias else {
                    throw Self.refusal(.invalidAggregate, "'\(aggregate.collection)' is a list of values: \(aggregate.function) takes no property", at: property.range)
                }
                // The property is read in the list's subquery, through to-one links only.
                var inner = PostgresQueryTranslator(tables: tables, arguments: arguments)
                inner.aliasCount = aliasCount + 100
                inner.parameters = parameters
                let reached = try inner.resolve(property, model: target, alias: targetAlias)
                guard reached.subquery == nil, reached.objectModel == nil else {
                    throw Self.refusal(.invalidKeyPath, "\(aggregate.function) needs a single value per object; '\(property)' is reached through a list", at: property.range)
                }
                parameters = inner.parameters
                aliasCount = inner.aliasCount
                value = Path(expression: reached.expression, type: reached.type,
                             subquery: Subquery(from: subquery.from + inner.scopes[0].joins.joined(), correlation: subquery.correlation,
                                                order: subquery.order, outer: subquery.outer))
            } else if path.objectModel != nil {
                throw Self.refusal(.invalidAggregate, "\(aggregate.function) over a list of objects needs a property: '\(aggregate.collection).\(aggregate.function).property'",
                                   at: aggregate.collection.range)
            }
            if let refusal = aggregate.function.refusal(named: "\(aggregate.function)", of: "\(aggregate.collection)", type: value.type, holding: "\(value.type)") {
                throw Self.refusal(.typeMismatch, refusal, at: aggregate.collection.range)
            }
            return value
        }
    }

    // MARK: Values

    /// The constant `expression` as a value of `type`, and where a parameter binding it comes
    /// from.
    private mutating func value(_ expression: QueryExpression, as type: PropertyType,
                                _ options: StringComparisonOptions = []) throws -> (Value, ParameterSource) {
        do {
            switch expression.kind {
            case .literal(let literal):
                if case .null = literal { return (.null, .fixed) }
                return (try Self.refusingNUL(try Coercion.comparand(.literal(literal), as: type, for: ""), argument: nil, at: expression.range), .fixed)
            case .parameter(let index):
                guard arguments.indices.contains(index) else {
                    throw Self.refusal(.invalidParameter, "$\(index) is not bound: \(arguments.count) arguments were given", at: expression.range)
                }
                return (try Self.refusingNUL(try argument(arguments[index], as: type, index: index), argument: index, at: expression.range),
                        .argument(index: index, element: nil, type: type, options: options, isPattern: false))
            default:
                throw Self.refusal(.typeMismatch, "expected a value", at: expression.range)
            }
        } catch let error as CoercionError {
            throw Self.refusal(.typeMismatch, error.description, at: expression.range)
        }
    }

    /// `value`, unless it is text holding a NUL character, which PostgreSQL text cannot hold:
    /// refused where the constant stands, a string literal or the argument `$argument`, in
    /// `PostgresError.nulCharacter`'s words. A store finds no string equal to it.
    private static func refusingNUL(_ value: Value, argument: Int?, element: Int? = nil, at range: QuerySourceRange) throws -> Value {
        if case .string(let text) = value, text.utf8.contains(0) {
            throw refusal(.unsupported, PostgresError.nulCharacter(argument: argument, element: element).message, at: range)
        }
        return value
    }

    /// An argument as a value of `type`; one that becomes null (the text `null`) or a number
    /// beyond `type` (bound as another type) makes the SQL depend on more than the arguments'
    /// shape.
    private mutating func argument(_ value: Value, as type: PropertyType, index: Int) throws(CoercionError) -> Value {
        let coerced = try Self.argument(value, as: type, index: index)
        if coerced.isNull, !value.isNull { parameters.isReusable = false }
        if Self.boundType(coerced, type) != type { parameters.isReusable = false }
        return coerced
    }

    /// An argument as a comparand of `type`, by the store's own `Coercion.comparand`: a string
    /// meeting another type is read as a literal of that type, as the shell's `--arg` values
    /// are, and a number beyond `type` stays a double.
    static func argument(_ value: Value, as type: PropertyType, index: Int) throws(CoercionError) -> Value {
        switch (type, value) {
        case (_, .null): return .null
        // A value of the compared property's own kind is itself: no name is made for an error.
        case (.bool, .bool), (.int, .int), (.int64, .int), (.float, .float), (.double, .double), (.string, .string),
             (.date, .date), (.data, .data), (.decimal, .decimal), (.uuid, .uuid):
            return value
        default: break
        }
        if case .string(let text) = value, type != .string { return try Coercion.comparand(.text(text), as: type, for: "$\(index)") }
        return try Coercion.comparand(.value(value), as: type, for: "$\(index)")
    }

    /// The type a comparand of `type` is bound as: `type`, or for a number beyond it (the
    /// double `Coercion.comparand` leaves) a type that holds it exactly, so that PostgreSQL
    /// compares by value as a store does: `numeric` against integers and decimals (`id > 4.5`
    /// is not `id > 4`; `dec < 1e200` holds for every decimal), `double precision` against a
    /// float.
    static func boundType(_ value: Value, _ type: PropertyType) -> PropertyType {
        guard case .double = value, type != .double else { return type }
        return type == .float ? .double : .decimal
    }

    /// The constants of `IN`'s or `BETWEEN`'s list, as values of `type`, each with its source.
    private mutating func constantList(_ constant: QueryExpression, as type: PropertyType,
                                       _ options: StringComparisonOptions) throws -> [(Value, ParameterSource)] {
        if case .literal(.list(let list)) = constant.kind { return try list.map { try value($0, as: type, options) } }
        if case .parameter(let index) = constant.kind, arguments.indices.contains(index), case .list(let values) = arguments[index] {
            do {
                return try values.enumerated().map { element, item in
                    (try Self.refusingNUL(try argument(item, as: type, index: index), argument: index, element: element + 1, at: constant.range),
                     .argument(index: index, element: element, type: type, options: options, isPattern: false))
                }
            } catch let error as CoercionError {
                throw Self.refusal(.typeMismatch, error.description, at: constant.range)
            }
        }
        throw Self.refusal(.typeMismatch, "IN and BETWEEN take a list: {a, b, ...}", at: constant.range)
    }

    private mutating func constantTest(_ subject: Operand, _ op: Operator, _ options: StringComparisonOptions,
                                       _ constant: QueryExpression, at location: QuerySourceRange) throws -> String {
        let type = subject.type
        switch op {
        case .in, .between:
            let elements = try constantList(constant, as: type, op == .between ? [] : options)
            if op == .between {
                guard elements.count == 2 else { throw Self.refusal(.typeMismatch, "BETWEEN takes two bounds: {lower, upper}", at: constant.range) }
                if elements.contains(where: \.0.isNull) { return "false" }
                let lower = try valueTest(subject.expression, .greaterOrEqual, [], try bind(elements[0], as: type, [], at: constant.range), type: type,
                                          at: location, foldRight: false, rightIsConstant: true, leftIsNeverNull: subject.isNeverNull)
                let upper = try valueTest(subject.expression, .lessOrEqual, [], try bind(elements[1], as: type, [], at: constant.range), type: type,
                                          at: location, foldRight: false, rightIsConstant: true, leftIsNeverNull: subject.isNeverNull)
                return "(\(lower) AND \(upper))"
            }
            guard !elements.isEmpty else { return "false" }
            return "(" + (try elements.map { element in
                element.0.isNull ? "(\(subject.expression) IS NULL)"
                    : try valueTest(subject.expression, .equal, options, try bind(element, as: type, options, at: constant.range), type: type,
                                    at: location, foldRight: false, rightIsConstant: true, leftIsNeverNull: subject.isNeverNull)
            }).joined(separator: " OR ") + ")"
        default:
            let (value, source) = try value(constant, as: type, options)
            if value.isNull {
                switch op {
                case .equal: return "(\(subject.expression) IS NULL)"
                case .notEqual: return "(\(subject.expression) IS NOT NULL)"
                default: throw Self.refusal(.typeMismatch, "nil cannot be compared with \(op.symbol); only == and != take nil", at: constant.range)
                }
            }
            if op == .matches {
                return try matches(subject, options, value, source, constant: constant, at: location)
            }
            if op == .like {
                guard case .string(let pattern) = value else { throw Self.refusal(.typeMismatch, "LIKE takes a string", at: constant.range) }
                var patternSource = source
                if case .argument(let index, let element, let type, let options, _) = source {
                    patternSource = .argument(index: index, element: element, type: type, options: options, isPattern: true)
                }
                let placeholder = parameters.add(Self.likePattern(pattern, options: options), from: patternSource)
                return "COALESCE(\(PostgresStringFolding.comparable(subject.expression, options)) LIKE \(placeholder), false)"
            }
            return try valueTest(subject.expression, op, options, try bind((value, source), as: type, options, at: constant.range), type: type,
                                 at: location, foldRight: false, rightIsConstant: true, leftIsNeverNull: subject.isNeverNull)
        }
    }

    /// A bound constant, folded by the store's own code under `options`; `at` is where the
    /// constant stands, for one PostgreSQL cannot hold (a date out of its range).
    private mutating func bind(_ constant: (Value, ParameterSource), as type: PropertyType, _ options: StringComparisonOptions,
                               at location: QuerySourceRange) throws -> String {
        do {
            return try PostgresValues.sql(Self.folded(constant.0, options), type: Self.boundType(constant.0, type), &parameters, from: constant.1)
        } catch let error as PostgresError {
            throw Self.refusal(.unsupported, error.message, at: location)
        }
    }

    /// A constant as the store's own code compares it under `options`: a string folded, in NFC.
    static func folded(_ value: Value, _ options: StringComparisonOptions) -> Value {
        guard case .string(let s) = value else { return value }
        return .string(PostgresStringFolding.foldConstant(s, options))
    }

    /// The two-valued test `left op right` on SQL values of `type`, with Realm's null rules.
    ///
    /// With `rightIsConstant` (a bound value that is not null) `=` and the orderings are
    /// written as `left op right AND left IS NOT NULL`: as two-valued as `IS NOT DISTINCT FROM`
    /// and `COALESCE(..., false)`, but an index condition for PostgreSQL's planner, so a point
    /// lookup or a range on an indexed column reads the index instead of scanning. When
    /// `leftIsNeverNull` too, `left op right` is two-valued as it is: the guard is left out,
    /// the statement then being the one a person would write.
    /// `at` is the operator's place, where a refusal points.
    private func valueTest(_ left: String, _ op: Operator, _ options: StringComparisonOptions, _ right: String,
                           type: PropertyType, rightType: PropertyType? = nil, at location: QuerySourceRange, foldLeft: Bool = true, foldRight: Bool = true,
                           rightIsConstant: Bool = false, leftIsNeverNull: Bool = false) throws -> String {
        if !options.isEmpty, type != .string {
            throw Self.refusal(.invalidModifier, "[c] and [d] apply to strings only", at: location)
        }
        // Strings compare by their NFC forms (folded under options), as in a store.
        let l = foldLeft && type == .string ? PostgresStringFolding.comparable(left, options) : left
        let r = foldRight && type == .string ? PostgresStringFolding.comparable(right, options) : right
        // NaN equals and orders with nothing in a store; PostgreSQL has 'NaN' = 'NaN' and puts
        // it after every number. Each side is guarded by its own type (an int sum beside a
        // double's is a bigint, which no 'NaN' reads as); equal values are NaN on both or neither.
        func mayBeNaN(_ type: PropertyType) -> Bool { type == .float || type == .double || type == .decimal }
        let leftNaN = mayBeNaN(type), rightNaN = mayBeNaN(rightType ?? type)
        let hasNaN = leftNaN || rightNaN, either = leftNaN ? l : r
        switch op {
        case .equal:
            let nan = hasNaN ? " AND \(either) <> 'NaN'" : ""
            if rightIsConstant && leftIsNeverNull { return nan.isEmpty ? "\(l) = \(r)" : "(\(l) = \(r)\(nan))" }
            return rightIsConstant ? "(\(l) = \(r)\(nan) AND \(l) IS NOT NULL)"
                : hasNaN ? "(\(l) IS NOT DISTINCT FROM \(r) AND \(either) IS DISTINCT FROM 'NaN')" : "(\(l) IS NOT DISTINCT FROM \(r))"
        case .notEqual:
            return hasNaN ? "(\(l) IS DISTINCT FROM \(r) OR \(either) IS NOT DISTINCT FROM 'NaN')" : "(\(l) IS DISTINCT FROM \(r))"
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard type.isNumeric || type == .string || type == .date else {
                throw Self.refusal(.invalidOperator, "'\(op.sql)' does not order \(type) values", at: location)
            }
            let nan = (leftNaN ? " AND \(l) <> 'NaN'" : "") + (rightNaN ? " AND \(r) <> 'NaN'" : "")
            if rightIsConstant && leftIsNeverNull { return "(\(l) \(op.sql) \(r)\(nan))" }
            return rightIsConstant ? "(\(l) \(op.sql) \(r)\(nan) AND \(l) IS NOT NULL)" : "COALESCE(\(l) \(op.sql) \(r)\(nan), false)"
        case .beginsWith, .endsWith, .contains:
            guard type == .string else { throw Self.refusal(.unsupported, "\(op.symbol) of \(type) values is not translated to PostgreSQL: it applies to strings there", at: location) }
            switch op {
            case .beginsWith: return "COALESCE(starts_with(\(l), \(r)), false)"
            case .endsWith: return "COALESCE(right(\(l), char_length(\(r))) = \(r) AND char_length(\(r)) <= char_length(\(l)), false)"
            default: return "COALESCE(strpos(\(l), \(r)) > 0, false)"
            }
        case .like:
            return "COALESCE(\(l) LIKE \(Self.likePattern(sql: r)), false)"
        case .matches:
            throw Self.refusal(.unsupported, "MATCHES with a pattern that is not a constant is not translated to PostgreSQL: only a constant pattern can be checked to mean the same in ICU's syntax and PostgreSQL's", at: location)
        case .in, .between:
            throw Self.refusal(.unsupported, "\(op.symbol) is not translated to PostgreSQL here", at: location)
        }
    }

    /// `subject MATCHES pattern` for a constant pattern, which an ARE matches as ICU does (see
    /// `PostgresRegularExpression`): otherwise refused at the operator. `[d]` removes
    /// nonspacing marks from both sides as a store does; `[c]` is written into the pattern,
    /// ICU's case-insensitive matching being no fold of both sides (`ß` matches `ss` but not
    /// `s{2}`).
    private mutating func matches(_ subject: Operand, _ options: StringComparisonOptions, _ value: Value, _ source: ParameterSource,
                                  constant: QueryExpression, at location: QuerySourceRange) throws -> String {
        guard subject.type == .string, case .string(let pattern) = value else {
            throw Self.refusal(.unsupported, "MATCHES of \(subject.type) values is not translated to PostgreSQL: it applies to strings there", at: location)
        }
        // An invalid pattern is the store's error, at the pattern.
        _ = try RegularExpressionPattern(pattern, options: options, at: constant.range.start)
        // [d] folds both sides; [c] is in the translated pattern, the subject as it is.
        let folding = options.subtracting(.caseInsensitive)
        let caseInsensitive = options.contains(.caseInsensitive)
        let expression: String
        do {
            // Without [d] the pattern meets the text as stored, as in a store: not normalized.
            let folded = folding.isEmpty ? pattern : PostgresStringFolding.foldConstant(pattern, folding)
            expression = try PostgresRegularExpression.translate(folded, caseInsensitive: caseInsensitive)
        } catch {
            let name = caseInsensitive ? "MATCHES[c]" : "MATCHES"
            throw Self.refusal(.unsupported, "\(name) is not translated to PostgreSQL for this pattern: \(error.reason)", at: location)
        }
        // An argument's pattern decides whether it is translated: the SQL is not kept for others.
        if case .argument = source { parameters.isReusable = false }
        let placeholder = parameters.add(expression, from: .fixed)
        return "COALESCE(\(PostgresStringFolding.fold(subject.expression, folding)) ~ \(placeholder), false)"
    }

    /// A LIKE pattern of the query language (`*` any run, `?` one character, no escape) as
    /// SQL LIKE's, folded as the subject is.
    static func likePattern(_ pattern: String, options: StringComparisonOptions) -> String {
        var sql = ""
        for scalar in PostgresStringFolding.foldConstant(pattern, options).unicodeScalars {
            switch scalar {
            case "*": sql += "%"
            case "?": sql += "_"
            case "%", "_", "\\": sql += "\\" + String(scalar)
            default: sql.unicodeScalars.append(scalar)
            }
        }
        return sql
    }

    /// The SQL LIKE pattern of a query-language pattern computed in SQL (`expression`, already
    /// folded): PostgreSQL's own `\`, `%` and `_` escaped first, then `*` and `?` turned
    /// into `%` and `_`, as `likePattern(_:options:)` does for a constant. E'' strings keep
    /// the backslashes whatever `standard_conforming_strings` says.
    static func likePattern(sql expression: String) -> String {
        var sql = expression
        for (from, to) in [(#"E'\\'"#, #"E'\\\\'"#), ("'%'", #"E'\\%'"#), ("'_'", #"E'\\_'"#), ("'*'", "'%'"), ("'?'", "'_'")] {
            sql = "replace(\(sql), \(from), \(to))"
        }
        return sql
    }
}

extension BoundOperator {
    /// The SQL spelling of an ordering or equality operator; empty for the others, which the
    /// translator spells as functions and patterns.
    fileprivate var sql: String {
        switch self {
        case .equal: "="
        case .notEqual: "<>"
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        default: ""
        }
    }
}
