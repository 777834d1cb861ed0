import Trove

/// One column of a SELECT or GROUP result: its name and how the text(s) PostgreSQL returns
/// for it read back as the value a store gives.
struct PostgresProjectedColumn {
    enum Reading {
        /// One value of this type, as `PostgresValues.output` writes it.
        case scalar(PropertyType)
        /// A JSON array of texts of this type (a key path through a list).
        case list(PropertyType)
        /// A link to an object of this model, which has no primary key: its `"@key"`, read as a
        /// `.reference`, as a store's rows hold such a link.
        case reference(String)
        /// A JSON array of such links' `"@key"`s (a key path through a list).
        case references(String)
        /// The average of decimals, as a store computes it: an exact sum and a count, divided
        /// and rounded here as a store does (`PostgresValues.decimalAverage`).
        case decimalAverage
        /// The sum of decimals, PostgreSQL's exact one rounded here as a store rounds it
        /// (`PostgresValues.decimalSum`).
        case decimalSum
    }

    let name: String
    let reading: Reading
    /// Whether its SQL can fail with PostgreSQL's "out of range" (22003): a sum of ints,
    /// floats or doubles, or an average of floats or doubles (`PostgresQueryTranslator.overflows`).
    var overflows = false
    /// Whether its SQL is the fast sum or average of floats or doubles (`doubleSum`): a value
    /// of it that is not finite is the exact form's to give.
    var fastSum = false

    /// How many SQL columns the value takes.
    var width: Int {
        if case .decimalAverage = reading { return 2 }
        return 1
    }
}

/// `SELECT` and `GROUP` in SQL, with the store's semantics (see `BoundProjection` and
/// `BoundGrouping` in Trove):
///
/// - A SELECT key path through to-one links is one value (null through a null link); through
///   a list, an array in the list's order.
/// - A group is one combination of GROUP's values, null a value like any other. Groups come in
///   the order of those values (null first; a link's value is its target's key, the column's
///   value) unless SORT says otherwise, and ties under SORT keep that order.
/// - `@sum` is 0 over no values; `@avg`, `@min` and `@max` skip nulls and are null over none;
///   `@avg` is a double (a decimal for decimals); NaN takes no part in any of them, nor in
///   `@avg`'s count; an infinity does (`doubleSum`).
extension PostgresQueryTranslator {
    /// The SQL of a query with SELECT or GROUP, and how to read its columns; each row ends with
    /// its identity (the object's key, or the group's values as JSON).
    mutating func rows(_ query: Query) throws -> (sql: String, columns: [PostgresProjectedColumn]) {
        let model = try model(query.model)
        // A fast sum is checked in the rows read; past OFFSET, LIMIT or DISTINCT PostgreSQL
        // computes rows no one reads, where the exact form could overflow.
        if query.offset > 0 || query.limit != nil || !query.distinct.isEmpty { exactSums = true }
        if !query.group.isEmpty { return try groups(query, model: model) }
        var sql: [String] = []
        var columns: [PostgresProjectedColumn] = []
        var items: [(names: [String], value: String?)] = []
        for item in query.select {
            let (expressions, column, sortValue) = try selected(item, model: model)
            sql += expressions
            columns.append(column)
            items.append(([item.name, item.text], sortValue))
        }
        return (try objects(query, model: model, columns: sql, items: items), columns)
    }

    /// A SELECT item over one object: its SQL, its column, and what SORT orders by when it
    /// names the item (nil when SORT cannot: an array).
    private mutating func selected(_ item: QuerySelectItem, model: ModelSchema) throws -> ([String], PostgresProjectedColumn, String?) {
        switch item.kind {
        case .keyPath(let keyPath):
            let path = try resolve(keyPath, model: model, alias: "t0")
            let keyless = path.objectModel.flatMap { $0.primaryKey == nil ? $0.name : nil }
            guard let subquery = path.subquery else {
                return ([PostgresValues.output(path.expression, type: path.type)],
                        PostgresProjectedColumn(name: item.name, reading: keyless.map(PostgresProjectedColumn.Reading.reference) ?? .scalar(path.type)),
                        Self.ordered(path.expression, path.type))
            }
            let order = subquery.order.isEmpty ? "" : " ORDER BY \(subquery.order.joined(separator: ", "))"
            let array = "(SELECT COALESCE(json_agg((\(PostgresValues.output(path.expression, type: path.type)))::pg_catalog.text\(order)), '[]') "
                + "FROM \(subquery.from) WHERE \(subquery.correlation))"
            return ([Self.nullThroughLinks(array, subquery)],
                    PostgresProjectedColumn(name: item.name, reading: keyless.map(PostgresProjectedColumn.Reading.references) ?? .list(path.type)), nil)
        case .listAggregate(let aggregate):
            let (expressions, column) = try listAggregate(aggregate, model: model, name: item.name)
            // SORT orders by the aggregate's value (an average of decimals: its sum over its count).
            let order = expressions.count == 2 ? Self.decimalAverage(quotient: Self.decimalQuotient(sum: expressions[0], count: expressions[1])) : expressions[0]
            return (expressions, column, order)
        case .groupAggregate(let function, _):
            throw Self.refusal(.invalidAggregate, "\(function) is a group aggregate: it needs GROUP(...) before SELECT; a list aggregate reads a list (dogs.\(function))", at: item.range)
        }
    }

    /// `dogs.@count`, `nums.@sum`, `dogs.@avg.age` of each object, typed as a store types them
    /// (null when a to-one link on the way to the list is null), and its column, named `name`.
    private mutating func listAggregate(_ aggregate: QueryExpression.Aggregate, model: ModelSchema, name: String) throws -> ([String], PostgresProjectedColumn) {
        if let size = try byteSize(aggregate, model: model, alias: "t0") { return ([size], PostgresProjectedColumn(name: name, reading: .scalar(.int))) }
        let value = try aggregatedValues(aggregate, model: model, alias: "t0")
        let subquery = value.subquery!
        let from = "FROM \(subquery.from) WHERE \(subquery.correlation)"
        let (expressions, reading) = aggregated(aggregate.function, value.expression, type: value.type)
        return (expressions.map { Self.nullThroughLinks("(SELECT \($0) \(from))", subquery) },
                PostgresProjectedColumn(name: name, reading: reading, overflows: Self.overflows(aggregate.function, type: value.type),
                                        fastSum: readsFastSum(aggregate.function, type: value.type)))
    }

    /// `sql`, a value of `subquery`'s rows, or NULL when the object the subquery starts from
    /// is reached through a null link (`bestFriend.dogs`): as in a store, a SELECT item through
    /// a null link is null, not an empty list's `[]` or 0.
    private static func nullThroughLinks(_ sql: String, _ subquery: Subquery) -> String {
        guard let outer = subquery.outer, !outer.hasPrefix("t0.") else { return sql }
        return "CASE WHEN \(outer) IS NULL THEN NULL ELSE \(sql) END"
    }

    /// The average of decimals as a store rounds it (`DecimalSum.average`: 39 significant
    /// digits where they fit a `Decimal`'s 128-bit significand, else 38, half away from zero,
    /// at most 128 places), so that a comparison or SORT meets the value a store computes;
    /// `quotient` is a SELECT of one row whose `q` is the average to 200 places, null over no
    /// values. The exponent of the first digit is a logarithm's floor, corrected where the
    /// logarithm's own rounding crosses a power of ten.
    static func decimalAverage(quotient: String) -> String {
        let first = "floor(log(NULLIF(abs(q), 0)))::int"
        let exponent = "CASE WHEN abs(q) >= ('1e' || (e0 + 1))::numeric THEN e0 + 1 WHEN abs(q) < ('1e' || e0)::numeric THEN e0 - 1 ELSE e0 END"
        let places = "CASE WHEN abs(round(q, 38 - e)) * ('1e' || (38 - e))::numeric <= 340282366920938463463374607431768211455 THEN 38 - e ELSE 37 - e END"
        return "(SELECT CASE WHEN q = 0 THEN 0::numeric ELSE round(round(q, \(places)), 128) END "
            + "FROM (SELECT q, \(exponent) AS e FROM (SELECT q, \(first) AS e0 FROM (\(quotient)) AS a0) AS a1) AS a2)"
    }

    /// The exact sum of decimals `value`, 0 over none. A NaN adds nothing, as in a store
    /// (PostgreSQL's sum with a 'NaN' is 'NaN', which no `Decimal` reads).
    static func decimalSum(_ value: String) -> String {
        "COALESCE(\(skippingNaN("sum(\(value))", value, type: .decimal)), 0)"
    }

    /// How many decimals `value` an average divides by: a NaN takes no part, as in a store.
    static func decimalCount(_ value: String) -> String {
        skippingNaN("count(\(value))", value, type: .decimal)
    }

    /// The condition that `value`, of `type`, is no NaN, or nil for a type that cannot hold
    /// one: a store's aggregates skip NaN (PostgreSQL's take it as a number). A decimal NaN is
    /// one written to the table by other means (Trove's writes refuse it). PostgreSQL orders
    /// NaN above every number, so `< 'NaN'` is all of them, and a range an index reads.
    static func notNaN(_ value: String, type: PropertyType) -> String? {
        type == .float || type == .double || type == .decimal ? "\(value) < 'NaN'" : nil
    }

    /// `function(value)` over the values of `value` (of `type`) that are no NaN.
    static func skippingNaN(_ function: String, _ value: String, type: PropertyType) -> String {
        notNaN(value, type: type).map { "\(function) FILTER (WHERE \($0))" } ?? function
    }

    /// The sum of fractional numbers `value` (of `type`) as a double, 0 over none, as a store
    /// adds them (`DoubleSum`): NaN skipped, the finite values summed apart from the
    /// infinities, so that their sum beyond the range of double is PostgreSQL's overflow
    /// whether or not an infinity comes first (PostgreSQL's `+` refuses only an infinity made
    /// of finite values), then the infinities added: +inf, -inf, or NaN when both are there.
    ///
    /// That is the `exact` form. The fast one adds every value but NaN in one sum, a third of
    /// the comparisons a row, and gives the same answer wherever it is finite:
    /// - Without an infinity among the values, it adds exactly what the exact form's finite
    ///   FILTER adds, in the same order: the same value, or the same overflow at the same row.
    /// - With one, its running sum is the exact form's finite one up to the first infinity,
    ///   then ±Infinity or NaN for good (PostgreSQL's `+` of an infinity neither overflows nor
    ///   comes back). So it overflows only where the exact form does (before that infinity), or
    ///   ends non-finite.
    ///
    /// So where the value is read (a statement's value, a SELECT or GROUP item), the fast form
    /// runs, a finite value of it is the answer, and a value that is not finite has the
    /// statement run again in the exact form (`PostgresQueryTranslator.exactSums`), whose
    /// value or overflow stands. Its `+ 0` makes a sum of -0.0 values +0.0, as a store's sum
    /// starts at +0.0 (the exact form's second term does the same). A condition, whose sums
    /// are not read, keeps the exact form.
    static func doubleSum(_ value: String, type: PropertyType, exact: Bool) -> String {
        guard type == .float || type == .double else { return "COALESCE(sum(\(value)::double precision), 0)" }
        let sum = "sum(\(value)::double precision)"
        guard exact else { return "(COALESCE(\(sum) FILTER (WHERE \(value) < 'NaN'), 0) + 0)" }
        // Two comparisons for the finite values (NaN orders above 'Infinity') and one for the
        // infinities, where lists of constants would compare each value with every one.
        return "(COALESCE(\(sum) FILTER (WHERE \(value) > '-Infinity' AND \(value) < 'Infinity'), 0)"
            + " + COALESCE(\(sum) FILTER (WHERE abs(\(value)) = 'Infinity'), 0))"
    }

    /// `min` or `max` (`name`) of `value`, of `type`: NaN orders with no value in a store, so
    /// it takes no part (PostgreSQL puts it after every number).
    static func extremum(_ name: String, _ value: String, type: PropertyType) -> String {
        skippingNaN("\(name)(\(value))", value, type: type)
    }

    /// `expression`, a value of a group's doubles or floats `value` (its GROUP key, `min` or
    /// `max`), with the zero of the group's first zero (in the order `key` gives the rows)
    /// where it is 0: a store keeps the first of equal values, and -0 equals 0, where
    /// PostgreSQL's returns any. The sign is the low bit of the least `2 * key + (x is -0)`
    /// over the group's zeros, one aggregate over the rows already read, compared only for
    /// zeros (reading the first object again would be a subquery the planner prices as run
    /// for every group, which brings in JIT compilation).
    static func firstZero(_ expression: String, of value: String, key: String) -> String {
        let firstIsNegative = "min(\(key) * 2 + (\(value)::pg_catalog.text = '-0')::integer) FILTER (WHERE \(value) = 0) % 2 = 1"
        return "CASE WHEN \(expression) <> 0 THEN \(expression) WHEN \(firstIsNegative) THEN -abs(\(expression)) ELSE abs(\(expression)) END"
    }

    /// The exact average of decimals `value`, to 200 places, as `q`, for `decimalAverage`.
    static func decimalQuotient(sum: String, count: String) -> String {
        "SELECT round(\(sum), 200) / NULLIF(\(count), 0) AS q"
    }

    /// The average of `value` (of `type`) as a double, as a store takes it: the sum over the
    /// count, NaN in neither. PostgreSQL's `avg(double precision)` also sums the squares, which
    /// overflow from 1e155.
    ///
    /// PostgreSQL's `/` refuses a quotient that rounds to zero from a dividend that is not zero
    /// ("underflow", 22003: 5e-324 over 2), where a store's division gives ±0: a quotient of at
    /// most 2^-1075 (half the least subnormal, which rounds to the even 0) is the sum times 0,
    /// with its sign. Below 1e-300 the sum is scaled by 2^1075 exactly (two powers of two, no
    /// overflow), so the test is exact; `CASE` keeps the scaling from larger sums. PostgreSQL
    /// computes each of the repeated aggregates once.
    /// `exact`: the sum's form (`doubleSum`); the fast form's average is finite where its sum is.
    static func doubleAverage(_ value: String, type: PropertyType, exact: Bool) -> String {
        let count = skippingNaN("count(\(value))", value, type: type)
        guard type == .float || type == .double else { return "(sum(\(value)::double precision) / \(count))" }
        let sum = doubleSum(value, type: type, exact: exact), n = "NULLIF(\(count), 0)"
        return "(CASE WHEN abs(\(sum)) >= 1e-300 THEN \(sum) / \(n)"
            + " WHEN abs(\(sum)) * 4.149515568880993e180 * 9.755464219737476e142 <= \(n) THEN \(sum) * 0 ELSE \(sum) / \(n) END)"
    }

    /// Whether `aggregated(function, _, type: type)` can fail with PostgreSQL's "out of range"
    /// (22003): a sum of ints (numeric, cast to bigint) or of floats or doubles, an average
    /// of floats or doubles. An average of ints sums doubles no int reaches the range of, and
    /// decimals sum exactly.
    static func overflows(_ function: AggregateFunction, type: PropertyType) -> Bool {
        switch function {
        case .sum: type.isInteger || type == .float || type == .double
        case .avg: type == .float || type == .double
        default: false
        }
    }

    /// Whether `aggregated(function, _, type: type)` is a fast sum (`PostgresProjectedColumn.fastSum`).
    func readsFastSum(_ function: AggregateFunction, type: PropertyType) -> Bool {
        !exactSums && (function == .sum || function == .avg) && (type == .float || type == .double)
    }

    /// The SQL aggregate of `function` over `value` (of `type`) with the store's result types;
    /// a sum or average of floats or doubles in the fast form unless `exactSums` (`doubleSum`).
    /// `key`: the column ordering the rows as a store reads them, for the zero `min` and `max`
    /// of doubles show (`firstZero`); nil where the sign is left to PostgreSQL.
    func aggregated(_ function: AggregateFunction, _ value: String, type: PropertyType, key: String? = nil) -> ([String], PostgresProjectedColumn.Reading) {
        switch function {
        case .count, .size:
            return (["count(*)::bigint"], .scalar(.int))
        case .sum:
            if type.isInteger { return (["COALESCE(sum(\(value)), 0)::bigint"], .scalar(.int)) }
            if type == .decimal { return ([Self.decimalSum(value)], .decimalSum) }
            return ([Self.doubleSum(value, type: type, exact: exactSums)], .scalar(.double))
        case .avg:
            if type == .decimal { return ([Self.decimalSum(value), "\(Self.decimalCount(value))::bigint"], .decimalAverage) }
            return ([Self.doubleAverage(value, type: type, exact: exactSums)], .scalar(.double))
        case .min, .max:
            let name = String(function.rawValue.dropFirst())
            var extremum = Self.extremum(name, value, type: type)
            if let key, type == .double || type == .float { extremum = Self.firstZero(extremum, of: value, key: key) }
            return ([PostgresValues.output(extremum, type: type)], .scalar(type))
        }
    }

    // MARK: Groups

    /// The value a group of GROUP's `keyPath` (resolved from `root` as `path`) shows, as
    /// `PostgresValues.output` writes it: a store groups canonically equivalent strings as one
    /// and shows the spelling of the group's first object (in the order objects were saved), so
    /// a string is that object's: the one whose `"@key"` is the group's least, read again
    /// through its unique index. A group so keeps one number, where collecting its values to
    /// pick the first (`array_agg`) would hold them all. So is the zero of a group of 0.0 and
    /// -0.0 (one value to GROUP), by `firstZero`.
    private mutating func groupValue(_ keyPath: QueryKeyPath, _ path: Path, model: ModelSchema, root: String) throws -> String {
        guard path.objectModel == nil, [.string, .double, .float].contains(path.type) else { return PostgresValues.output(path.expression, type: path.type) }
        guard path.type == .string else { return Self.firstZero(path.expression, of: path.expression, key: "\(root).\(PostgresTables.orderColumn)") }
        let first = nextAlias("f")
        scopes.append(Scope())
        let value = try resolve(keyPath, model: model, alias: first)
        let joins = scopes.removeLast().joins.joined()
        return "(SELECT \(value.expression) FROM \(tables.table(model.name)) AS \(first)\(joins)"
            + " WHERE \(first).\(PostgresTables.orderColumn) = min(\(root).\(PostgresTables.orderColumn)))"
    }

    /// The SQL of a group key's part of its group's identity: the same for every value GROUP
    /// takes as one.
    private static func groupIdentity(_ key: (text: String, path: Path, value: String)) -> String {
        guard key.path.objectModel == nil else { return key.value }
        switch key.path.type {
        case .string: return distinguished(key.path)
        case .double, .float: return "(CASE WHEN \(key.path.expression) = 0 THEN 0 ELSE \(key.path.expression) END)"
        default: return key.value
        }
    }

    private mutating func groups(_ query: Query, model: ModelSchema) throws -> (sql: String, columns: [PostgresProjectedColumn]) {
        let root = "t0"
        // The group keys: one value per object, a link allowed (its target's key).
        var keys: [(text: String, path: Path, value: String)] = []
        for keyPath in query.group {
            let path = try resolve(keyPath, model: model, alias: root)
            guard path.subquery == nil else {
                throw Self.refusal(.invalidKeyPath, "GROUP needs one value per object; '\(keyPath)' crosses a list", at: keyPath.range)
            }
            keys.append((keyPath.description, path, try groupValue(keyPath, path, model: model, root: root)))
        }
        /// Each column: its name, its text, its SQL, how it reads, and the SQL SORT orders it by.
        var columns: [(name: String, text: String, sql: [String], reading: PostgresProjectedColumn.Reading, order: String)] = []
        var overflowing: Set<Int> = [], fast: Set<Int> = []
        func keyColumn(_ index: Int, name: String, text: String) -> (String, String, [String], PostgresProjectedColumn.Reading, String) {
            let path = keys[index].path
            let reading: PostgresProjectedColumn.Reading = path.objectModel.flatMap { $0.primaryKey == nil ? .reference($0.name) : nil } ?? .scalar(path.type)
            return (name, text, [keys[index].value], reading, Self.ordered(path.expression, path.type))
        }
        if query.select.isEmpty {
            for index in keys.indices { columns.append(keyColumn(index, name: keys[index].text, text: keys[index].text)) }
            columns.append(("@count", "@count", ["count(*)::bigint"], .scalar(.int), "count(*)"))
        } else {
            for item in query.select {
                switch item.kind {
                case .keyPath(let keyPath):
                    guard let index = keys.firstIndex(where: { $0.text == keyPath.description }) else {
                        let path = try resolve(keyPath, model: model, alias: root)
                        throw Self.refusal(.invalidKeyPath, QuerySelectItem.notGroupKey(keyPath.description, type: path.objectModel == nil ? path.type : nil,
                                                                                          multiValued: path.subquery != nil),
                                           at: item.range)
                    }
                    columns.append(keyColumn(index, name: item.name, text: item.text))
                case .listAggregate(let aggregate):
                    throw Self.refusal(.invalidAggregate, "a list aggregate (\(aggregate.collection).\(aggregate.function)) does not apply to a group; use a group aggregate such as \(aggregate.function)\(aggregate.property.map { ".\($0)" } ?? "")", at: item.range)
                case .groupAggregate(.count, _), .groupAggregate(.size, _):
                    columns.append((item.name, item.text, ["count(*)::bigint"], .scalar(.int), "count(*)"))
                case .groupAggregate(let function, let keyPath):
                    guard let keyPath else { throw Self.refusal(.invalidAggregate, "\(function) needs a key path", at: item.range) }
                    let path = try resolve(keyPath, model: model, alias: root)
                    guard path.subquery == nil else {
                        throw Self.refusal(.invalidKeyPath, "\(function) needs one value per object; '\(keyPath)' crosses a list", at: keyPath.range)
                    }
                    if let refusal = function.refusal(named: "\(function)", of: keyPath.description, type: path.objectModel == nil ? path.type : nil,
                                                      being: path.objectModel.map { "an object of \($0.name)" } ?? "\(path.type)") {
                        throw Self.refusal(.typeMismatch, refusal, at: keyPath.range)
                    }
                    let (sql, reading) = aggregated(function, path.expression, type: path.type, key: "\(root).\(PostgresTables.orderColumn)")
                    if Self.overflows(function, type: path.type) { overflowing.insert(columns.count) }
                    if readsFastSum(function, type: path.type) { fast.insert(columns.count) }
                    let order = function == .avg && path.type == .decimal
                        ? Self.decimalAverage(quotient: Self.decimalQuotient(sum: Self.decimalSum(path.expression), count: Self.decimalCount(path.expression))) : sql[0]
                    columns.append((item.name, item.text, sql, reading, order))
                }
            }
        }
        var order: [String] = []
        for descriptor in query.sort {
            let written = descriptor.keyPath.description
            let value: String
            if let column = columns.first(where: { $0.name == written }) ?? columns.first(where: { $0.text == written }) {
                value = column.order
            } else {
                let neither = Self.refusal(.invalidKeyPath, "SORT of groups takes a SELECT item's name or text or a GROUP key path; '\(written)' is neither",
                                           at: descriptor.keyPath.range)
                guard !written.hasPrefix("@"), let key = keys.first(where: { $0.text == written }) else { throw neither }
                value = Self.ordered(key.path.expression, key.path.type)
            }
            order.append(value + (descriptor.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST"))
        }
        // Then the groups' own order: by their values, null first; links to keys that are
        // canonically equivalent strings tie, and keep the order they were met in.
        order += keys.map { Self.ordered($0.path.expression, $0.path.type) + " ASC NULLS FIRST" }
        if keys.contains(where: { $0.path.objectModel != nil && $0.path.type == .string }) {
            order.append("min(\(root).\(PostgresTables.orderColumn))")
        }
        let condition = try query.predicate.map { try self.condition($0, model: model, alias: root) } ?? "true"
        // What tells a group apart across runs (`watch`) is its values as GROUP tells them
        // apart (a string's NFC form, as a store's group keys compare; a zero of either sign as
        // 0, as `GroupingKey` takes it), not the spelling it shows: that reading of the group's
        // first row is made once, for its column, and the sign of a zero depends on which row
        // PostgreSQL reads first.
        let identity = "json_build_array(\(keys.map(Self.groupIdentity).joined(separator: ", ")))::pg_catalog.text"
        var sql = "SELECT \((columns.flatMap(\.sql) + [identity]).joined(separator: ", "))"
            + " FROM \(tables.table(model.name)) AS \(root)" + scopes[0].joins.joined()
            + " WHERE \(condition) GROUP BY \(keys.map { Self.distinguished($0.path) }.joined(separator: ", "))"
            + " ORDER BY \(order.joined(separator: ", "))"
        if query.offset > 0 { sql += " OFFSET \(parameters.add(String(query.offset)))::bigint" }
        if let limit = query.limit { sql += " LIMIT \(parameters.add(String(limit)))::bigint" }
        return (sql, columns.indices.map {
            PostgresProjectedColumn(name: columns[$0].name, reading: columns[$0].reading, overflows: overflowing.contains($0), fastSum: fast.contains($0))
        })
    }
}
