/// `GROUP(k, ...)` with its SELECT, SORT, OFFSET and LIMIT, bound to the schema: one row per
/// distinct combination of the key paths' values (null is a value, and every NaN one value:
/// `GroupingKey`), holding group keys and group aggregates.
///
/// Groups come in the order of their key values (null first; a link's value is its target's
/// primary key, or its object key when the target has none) unless SORT says otherwise; ties
/// under SORT keep that order.
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
    /// The columns whose sums of floats are read as `Float`s (the typed API's groups):
    /// see `AggregateAccumulator.readsAsFloat`.
    var sumsReadAsFloat: Set<Int> = []

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
                throw binder.error(.invalidKeyPath, QuerySelectItem.notGroupKey(bound.text, type: bound.kind.propertyType, multiValued: bound.isToMany),
                                   at: item.range.start)
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
        if let index = try binder.sortItem(path, in: columns[..<printed].map { ($0.name, $0.text) }) {
            return index
        }
        let neither = binder.error(.invalidKeyPath, "SORT of groups takes a SELECT item's name or text or a GROUP key path; '\(written)' is neither", at: path.range.start)
        guard !written.hasPrefix("@"), let bound = try? binder.selectedKeyPath(path, model: model),
              let key = keys.firstIndex(where: { $0.text == bound.text }) else { throw neither }
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

    /// One group as it is gathered: its key values, its objects' count and its aggregates.
    struct Group {
        let key: [Value]
        var count = 0
        var accumulators: [AggregateAccumulator]
    }

    /// The readers of the aggregated columns' values, in column order.
    typealias AggregateReaders = [(RecordView, UInt64) throws -> Value]

    func aggregateReaders(_ reader: KeyPathReader) throws -> AggregateReaders {
        try columns.compactMap { column in
            if case .aggregate(_, let path) = column.column { return try reader.valueReader(path) }
            return nil
        }
    }

    /// Whether a group's rows need its objects' records (for aggregates other than `@count`).
    var readsObjects: Bool {
        columns.contains { if case .aggregate = $0.column { true } else { false } }
    }

    /// An empty group of `key`.
    func group(_ key: [Value]) -> Group {
        Group(key: key, accumulators: columns.indices.compactMap { c in
            if case .aggregate(let function, let path) = columns[c].column {
                var accumulator = AggregateAccumulator(function, kind: path.kind, of: path.text, at: path.range.start)
                accumulator.readsAsFloat = sumsReadAsFloat.contains(c)
                return accumulator
            }
            return nil
        })
    }

    /// Adds the object `key` with `record` to `group`.
    func add(_ record: RecordView, _ key: UInt64, to group: inout Group, _ readers: AggregateReaders) throws {
        group.count += 1
        for (a, read) in readers.enumerated() {
            group.accumulators[a].add(try read(record, key))
        }
    }

    /// The group rows of the objects `objectKeys` of `model`.
    func rows(_ objectKeys: [UInt64], model: ModelLayout, snapshot: Snapshot) throws -> QueryRows {
        try gathered(snapshot) { add in
            let tree = try snapshot.objectsTree(model)
            let reader = KeyPathReader(snapshot: snapshot)
            for key in objectKeys {
                _ = try reader.withRecord(tree, key) { try add($0, key) }
            }
        }
    }

    /// The group rows of every object of `model`, read in one scan of its records (rather than
    /// a lookup per object).
    func rows(scanning model: ModelLayout, snapshot: Snapshot) throws -> QueryRows {
        try gathered(snapshot) { add in
            try snapshot.scan(model) { key, record in
                try add(record, key)
                return true
            }
        }
    }

    /// The rows of the objects `feed` hands to the closure it is given, grouped by hashing
    /// their key values, then ordered by them.
    private func gathered(_ snapshot: Snapshot, _ feed: ((RecordView, UInt64) throws -> Void) throws -> Void) throws -> QueryRows {
        let reader = KeyPathReader(snapshot: snapshot)
        let keyReaders = try keys.map { try reader.valueReader($0) }
        let readers = try aggregateReaders(reader)
        var groupIndex: [GroupingKey: Int] = [:]
        var groups: [Group] = []
        try feed { record, key in
            let values = try keyReaders.map { try $0(record, key) }
            let g: Int
            if let found = groupIndex[GroupingKey(values)] {
                g = found
            } else {
                g = groups.count
                groupIndex[GroupingKey(values)] = g
                groups.append(group(values))
            }
            try add(record, key, to: &groups[g], readers)
        }
        // Stable: groups of keys that compare equal keep the order they were met in. A link
        // orders by its target's primary key, the value rows print for it.
        let linked = keys.contains { if case .object = $0.kind { true } else { false } }
        let values = linked ? try groups.map { try $0.key.map { try RowValue.plain($0, snapshot) } } : groups.map(\.key)
        let order = groups.indices.sorted { x, y in
            let c = Self.compare(values[x], values[y])
            return c != 0 ? c < 0 : x < y
        }
        return try finish(order.map { groups[$0] }, snapshot: snapshot)
    }

    /// The rows of `groups`, which come in the order of their key values: SORT, OFFSET and
    /// LIMIT applied.
    func finish(_ groups: [Group], snapshot: Snapshot) throws -> QueryRows {
        // One row of every column per group, as rows print them (a link is its target's
        // primary key, and orders so).
        let table: [[Value]] = try groups.map { group in
            var a = 0
            return try columns.map { column in
                switch column.column {
                case .key(let k): return try RowValue.plain(group.key[k], snapshot)
                case .count: return .int(Int64(group.count))
                case .aggregate:
                    defer { a += 1 }
                    return try group.accumulators[a].value
                }
            }
        }
        var order = Array(groups.indices)
        if !sort.isEmpty {
            order.sort { x, y in
                for (column, ascending) in sort {
                    let c = ValueComparison.sortOrder(table[x][column], table[y][column])
                    if c != 0 { return ascending ? c < 0 : c > 0 }
                }
                return x < y
            }
        }
        let start = Swift.min(offset, order.count)
        let end = limit.map { Swift.min(order.count, start + Swift.min($0, order.count - start)) } ?? order.count
        let names = columns[..<printed].map(\.name)
        let rows = order[start..<end].map { g in
            QueryRow(names: names, values: Array(table[g][..<printed]), identity: .group(groups[g].key))
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
