/// `GROUP(k, ...)` with its SELECT, SORT, OFFSET and LIMIT, bound to the schema: one row per
/// distinct combination of the key paths' values (null is a value), holding group keys and
/// group aggregates.
///
/// Groups come in the order of their key values (null first) unless SORT says otherwise;
/// ties under SORT keep that order.
struct BoundGrouping {
    enum Column {
        /// The value of `GROUP`'s key path at this index.
        case key(Int)
        /// `@count`: the objects in the group.
        case count
        /// `@sum.kp`, `@avg.kp`, `@min.kp`, `@max.kp`.
        case aggregate(AggregateFunction, BoundKeyPath)
    }

    let keys: [BoundKeyPath]
    /// The printed columns, then any that only SORT reads.
    private(set) var columns: [(name: String, text: String, column: Column)] = []
    /// How many of `columns` are printed.
    let printed: Int
    private(set) var sort: [(column: Int, ascending: Bool)] = []
    let offset: Int
    let limit: Int?

    init(_ query: Query, model: ModelLayout, binder: QueryBinder) throws {
        let keys = try query.group.map { try binder.orderingKeyPath($0, model: model, clause: "GROUP", allowsLinks: true) }
        self.keys = keys
        if query.select.isEmpty {
            columns = zip(query.group, keys).enumerated().map { i, pair in
                let text = pair.0.description
                return (text, text, .key(i))
            }
            columns.append(("@count", "@count", .count))
        } else {
            for item in query.select {
                columns.append((item.name, item.text, try Self.column(item, keys: keys, model: model, binder: binder)))
            }
        }
        printed = columns.count
        offset = query.offset
        limit = query.limit
        for descriptor in query.sort {
            sort.append((try sortColumn(descriptor.keyPath, model: model, binder: binder), descriptor.ascending))
        }
    }

    private static func column(_ item: QuerySelectItem, keys: [BoundKeyPath], model: ModelLayout, binder: QueryBinder) throws -> Column {
        switch item.kind {
        case .keyPath(let path):
            let bound = try binder.selectedKeyPath(path, model: model)
            guard let index = keys.firstIndex(where: { $0.text == bound.text }) else {
                throw binder.error(.invalidKeyPath, "'\(bound.text)' is not a GROUP key path: a grouped SELECT holds GROUP's key paths and group aggregates (@count, @avg.\(bound.text), ...)", at: item.range.start)
            }
            return .key(index)
        case .listAggregate(let aggregate):
            throw binder.error(.invalidAggregate, "a list aggregate (\(aggregate.collection).\(aggregate.function)) does not apply to a group; use a group aggregate such as \(aggregate.function)\(aggregate.property.map { ".\($0)" } ?? "")", at: item.range.start)
        case .groupAggregate(.count, _):
            return .count
        case .groupAggregate(let function, let path):
            guard let path else { throw binder.error(.invalidAggregate, "\(function) needs a key path", at: item.range.start) }
            return .aggregate(function, try binder.aggregatedKeyPath(path, model: model, function: function, name: function.rawValue))
        }
    }

    /// The column a SORT key names: a SELECT item by its name or text, or a GROUP key path.
    private mutating func sortColumn(_ path: QueryKeyPath, model: ModelLayout, binder: QueryBinder) throws -> Int {
        let written = path.description
        if let index = columns[..<printed].firstIndex(where: { $0.name == written }) ?? columns[..<printed].firstIndex(where: { $0.text == written }) {
            return index
        }
        let neither = "SORT of groups takes a SELECT item's name or text or a GROUP key path; '\(written)' is neither"
        if written.hasPrefix("@") { throw binder.error(.invalidKeyPath, neither, at: path.range.start) }
        let bound = try binder.selectedKeyPath(path, model: model)
        guard let key = keys.firstIndex(where: { $0.text == bound.text }) else {
            throw binder.error(.invalidKeyPath, neither, at: path.range.start)
        }
        if let index = columns.firstIndex(where: { if case .key(key) = $0.column { true } else { false } }) { return index }
        columns.append((written, written, .key(key)))
        return columns.count - 1
    }

    /// The plan's steps after the objects are found.
    var steps: [String] {
        var steps = ["GROUP \(keys.map(\.text).joined(separator: ", ")) (one pass, groups in key order)"]
        if !sort.isEmpty {
            steps.append("SORT groups by " + sort.map { "\(columns[$0.column].name) \($0.ascending ? "ASC" : "DESC")" }.joined(separator: ", "))
        }
        if offset > 0 { steps.append("OFFSET \(offset) groups") }
        if let limit { steps.append("LIMIT \(limit) groups") }
        return steps
    }

    /// The group rows of the objects `objectKeys` of `model`.
    func rows(_ objectKeys: [UInt64], model: ModelLayout, snapshot: Snapshot) throws -> QueryRows {
        let reader = KeyPathReader(snapshot: snapshot)
        let keyReaders = try keys.map { try reader.valueReader($0) }
        var aggregated: [(column: Int, read: (RecordView, UInt64) throws -> Value, function: AggregateFunction, kind: ValueKind)] = []
        for (i, column) in columns.enumerated() {
            if case .aggregate(let function, let path) = column.column {
                aggregated.append((i, try reader.valueReader(path), function, path.kind))
            }
        }
        let tree = try reader.tree(model)
        var groupIndex: [[Value]: Int] = [:]
        var groupKeys: [[Value]] = []
        var counts: [Int] = []
        var accumulators: [[AggregateAccumulator]] = []
        for key in objectKeys {
            _ = try reader.withRecord(tree, key) { record in
                let values = try keyReaders.map { try $0(record, key) }
                let g: Int
                if let found = groupIndex[values] {
                    g = found
                } else {
                    g = groupKeys.count
                    groupIndex[values] = g
                    groupKeys.append(values)
                    counts.append(0)
                    accumulators.append(aggregated.map { AggregateAccumulator($0.function, kind: $0.kind) })
                }
                counts[g] += 1
                for (a, entry) in aggregated.enumerated() {
                    accumulators[g][a].add(try entry.read(record, key))
                }
            }
        }
        // One row of every column per group, the keys as read (for ordering).
        var table: [[Value]] = []
        table.reserveCapacity(groupKeys.count)
        for g in groupKeys.indices {
            var a = 0
            table.append(columns.map { column in
                switch column.column {
                case .key(let k): return groupKeys[g][k]
                case .count: return .int(Int64(counts[g]))
                case .aggregate:
                    defer { a += 1 }
                    return accumulators[g][a].value
                }
            })
        }
        var order = Array(groupKeys.indices)
        order.sort { Self.compare(groupKeys[$0], groupKeys[$1]) < 0 }
        if !sort.isEmpty {
            let rank = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
            order.sort { x, y in
                for (column, ascending) in sort {
                    let c = ValueComparison.sortOrder(table[x][column], table[y][column])
                    if c != 0 { return ascending ? c < 0 : c > 0 }
                }
                return rank[x]! < rank[y]!
            }
        }
        let start = Swift.min(offset, order.count)
        let end = limit.map { Swift.min(order.count, start + Swift.min($0, order.count - start)) } ?? order.count
        let names = columns[..<printed].map(\.name)
        let rows = try order[start..<end].map { g in
            QueryRow(names: names, values: try table[g][..<printed].map { try RowValue.plain($0, snapshot) },
                     identity: .group(groupKeys[g]))
        }
        return QueryRows(columns: names, rows: rows)
    }

    private static func compare(_ a: [Value], _ b: [Value]) -> Int {
        for (x, y) in zip(a, b) {
            let c = ValueComparison.sortOrder(x, y)
            if c != 0 { return c }
        }
        return 0
    }
}
