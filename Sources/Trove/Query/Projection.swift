/// `SELECT(item, ...)` over objects, bound to the schema: what each row holds, read from the
/// records straight (only the selected properties are decoded).
struct BoundProjection {
    enum Source {
        /// One value through to-one links (null through a null link), or an array through a list.
        case path(BoundKeyPath)
        /// `dogs.@count`, `dogs.@avg.age`.
        case listAggregate(BoundAggregate)
    }

    struct Item {
        let name: String
        let text: String
        let source: Source
    }

    let items: [Item]
    /// The slot of each item, when every item is a stored scalar of the object itself: rows
    /// then decode those slots and nothing else.
    private let slots: [AggregatedSlot]?

    var columns: [String] { items.map(\.name) }

    /// The plan's step.
    var step: String { "SELECT \(items.map(\.text).joined(separator: ", ")) (decodes only the selected properties)" }

    /// Binds the items of `select` against `model`; group aggregates are refused here.
    init(_ select: [QuerySelectItem], model: ModelLayout, binder: QueryBinder) throws {
        items = try select.map { item in
            switch item.kind {
            case .keyPath(let path):
                return Item(name: item.name, text: item.text, source: .path(try binder.selectedKeyPath(path, model: model)))
            case .listAggregate(let aggregate):
                return Item(name: item.name, text: item.text,
                            source: .listAggregate(try binder.selectedAggregate(aggregate, range: item.range, model: model)))
            case .groupAggregate(let function, _):
                throw binder.error(.invalidAggregate, "\(function) is a group aggregate: it needs GROUP(...) before SELECT; a list aggregate reads a list (dogs.\(function))", at: item.range.start)
            }
        }
        var slots: [AggregatedSlot] = []
        for item in items {
            guard case .path(let path) = item.source, let slot = try AggregatedSlot(path) else { break }
            slots.append(slot)
        }
        self.slots = slots.count == items.count ? slots : nil
    }

    /// What a SORT key orders projected objects by: a key path of the model, or a SELECT
    /// item that reads one value per object and is no key path (a list aggregate).
    enum SortKey {
        case path(BoundKeyPath)
        case item(Int)
    }

    /// The SORT key `path`: a key path of `model`, or when no property has that name, a
    /// SELECT item named or written so. An item that reads an array (its path crosses a list)
    /// or a link is refused, as SORT on its key path is: a store has no order for arrays of
    /// values, nor SQL for one.
    func sortKey(_ path: QueryKeyPath, model: ModelLayout, binder: QueryBinder) throws -> SortKey {
        do {
            return .path(try binder.orderingKeyPath(path, model: model, clause: "SORT", allowsLinks: false))
        } catch let error as QueryError where error.kind == .unknownProperty {
            let written = path.description
            guard let index = try binder.sortItem(path, in: items.map { ($0.name, $0.text) }) else {
                throw binder.error(.invalidKeyPath, "SORT takes a key path of '\(model.name)' or a SELECT item's name or text; '\(written)' is neither", at: path.range.start)
            }
            switch items[index].source {
            case .listAggregate:
                return .item(index)
            case .path(let bound) where bound.isToMany:
                throw binder.error(.invalidKeyPath, "SORT needs one value per object; the SELECT item '\(written)' is an array ('\(bound.text)' crosses a list)", at: path.range.start)
            case .path(let bound) where bound.property.isLink:
                throw binder.error(.invalidKeyPath, "SORT needs a value; the SELECT item '\(written)' is a link (sort by one of its properties, such as '\(bound.text).\(bound.property.target?.primaryKey?.name ?? "name")')", at: path.range.start)
            case .path(let bound):
                return .path(bound)
            }
        }
    }

    /// The text of each SORT key, for the plan: a key path, or the item's name.
    func sortTexts(_ keys: [(SortKey, Bool)]) -> [String] {
        keys.map { key, _ in
            switch key {
            case .path(let path): path.text
            case .item(let index): items[index].name
            }
        }
    }

    /// A reader of the value SORT orders by for `key`.
    func sortReader(_ key: SortKey, _ evaluator: PredicateEvaluator) throws -> (RecordView, UInt64) throws -> Value {
        switch key {
        case .path(let path): return try evaluator.reader.valueReader(path)
        case .item(let index): return try Self.reader(items[index].source, evaluator)
        }
    }

    /// The rows of the objects `keys` of `model`, in that order.
    func rows(_ keys: [UInt64], model: ModelLayout, snapshot: Snapshot) throws -> QueryRows {
        let names = columns
        if let slots {
            let records = try KeyOrderRecords(try snapshot.objectsTree(model), snapshot: snapshot)
            var rows: [QueryRow] = []
            rows.reserveCapacity(keys.count)
            for key in keys {
                if let values = try records.withRecord(key, { record in try slots.map { try $0.value(record) } }) {
                    rows.append(QueryRow(names: names, values: values, identity: .object(ObjectReference(model: model.name, key: key))))
                }
            }
            return QueryRows(columns: names, rows: rows)
        }
        let evaluator = PredicateEvaluator(snapshot: snapshot)
        let readers = try items.map { try Self.reader($0.source, evaluator) }
        // Keys in SORT order are most often ascending runs (a page in primary-key order, in
        // insertion order): one cursor reads them, a descent only where a run breaks.
        let records = try KeyOrderRecords(try evaluator.reader.tree(model), snapshot: snapshot)
        var rows: [QueryRow] = []
        rows.reserveCapacity(keys.count)
        for key in keys {
            let values = try records.withRecord(key) { record in
                try readers.map { try RowValue.plain(try $0(record, key), snapshot) }
            }
            if let values { rows.append(QueryRow(names: names, values: values, identity: .object(ObjectReference(model: model.name, key: key)))) }
        }
        return QueryRows(columns: names, rows: rows)
    }

    static func reader(_ source: Source, _ evaluator: PredicateEvaluator) throws -> (RecordView, UInt64) throws -> Value {
        switch source {
        case .listAggregate(let aggregate):
            return try nullThroughLinks(aggregate.values, evaluator, try evaluator.aggregator(aggregate))
        case .path(let path) where !path.isToMany:
            return try evaluator.reader.valueReader(path)
        case .path(let path):
            let visit = try evaluator.reader.visitor(path)
            let decode = KeyPathReader.decoder(path)
            return try nullThroughLinks(path, evaluator) { record, key in
                var values: [Value] = []
                _ = try visit(record, key) { payload in
                    values.append(try decode(payload))
                    return false
                }
                return .list(values)
            }
        }
    }

    /// `read`, or null when a to-one link on the way to `path`'s first list is null: a
    /// SELECT item through a null link is null (`bestFriend.dogs.name`, `maker.cars.@count`),
    /// not the empty array or the 0 of an empty list. (A predicate reads such a list as
    /// empty: `ANY` is false, `ALL` true.)
    private static func nullThroughLinks(_ path: BoundKeyPath, _ evaluator: PredicateEvaluator,
                                         _ read: @escaping (RecordView, UInt64) throws -> Value) throws -> (RecordView, UInt64) throws -> Value {
        let links = path.hops.prefix { $0.isLink }
        guard path.isToMany, let last = links.last, let target = last.target else { return read }
        let chain = BoundKeyPath(hops: Array(links.dropLast()), terminal: .property(last), kind: .object(target),
                                 text: links.map(\.name).joined(separator: "."), range: path.range)
        let link = try evaluator.reader.valueReader(chain)
        return { record, key in try link(record, key).isNull ? .null : try read(record, key) }
    }
}

/// Values as rows hold them: a link is its target's primary key, as objects print it; a link
/// to a model without a primary key stays a `.reference`, since its object key tells nothing
/// (the shell prints that object nested, as `export` does).
enum RowValue {
    static func plain(_ value: Value, _ snapshot: Snapshot) throws -> Value {
        switch value {
        case .reference(let reference):
            guard let model = snapshot.layout.byName[reference.model] else { return .null }
            guard let pk = model.primaryKey else { return value }
            return try snapshot.withRecord(model, reference.key) { try $0.value(of: pk) } ?? .null
        case .list(let items):
            return .list(try items.map { try plain($0, snapshot) })
        default:
            return value
        }
    }
}
