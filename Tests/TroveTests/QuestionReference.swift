import Foundation
@testable import Trove

/// One item of a SELECT as the generator builds it, printed as the statement writes it.
struct RefSelectItem {
    enum Kind {
        /// `name`, `bestFriend.name`, `dogs.name`.
        case path([String])
        /// `dogs.@count`, `dogs.@avg.age`, `scores.@sum`.
        case listAggregate(collection: [String], function: AggregateFunction, property: [String]?)
        /// `@count`, `@sum.age`: only under GROUP.
        case groupAggregate(AggregateFunction, [String]?)
    }

    var kind: Kind
    var alias: String?

    /// The item as written without its `AS NAME`: the name of an unnamed item.
    var text: String {
        switch kind {
        case .path(let path):
            return path.joined(separator: ".")
        case let .listAggregate(collection, function, property):
            return collection.joined(separator: ".") + "." + function.rawValue + (property.map { "." + $0.joined(separator: ".") } ?? "")
        case let .groupAggregate(function, property):
            return function.rawValue + (property.map { "." + $0.joined(separator: ".") } ?? "")
        }
    }

    var name: String { alias ?? text }
    var written: String { text + (alias.map { " AS \($0)" } ?? "") }
}

/// The rows the reference answers a question with: named values, in order, and for a
/// projection the object each row shows.
struct RefRows {
    var names: [String]
    var rows: [[Value]]
    var objects: [UInt64]?
}

/// The reference's answers to questions (SELECT, the aggregate statements, GROUP), written from
/// the shell contract's "Questions: projections, aggregates, groups, paging" over the decoded
/// objects, sharing nothing with the engine's projection, grouping or aggregation.
extension ReferenceStore {
    /// A SORT key of a question: a key path of the model, or a SELECT item by its name or text.
    enum SortTarget {
        case path([String])
        case item(String)
    }

    // MARK: SELECT

    /// `MODEL where P SORT(...) DISTINCT(...) OFFSET(n) LIMIT(n) SELECT(items)`: the objects as
    /// `query` finds them (a SORT key may name an item), each as its items' values.
    func project(_ model: String, _ predicate: RefPredicate?, items: [RefSelectItem], sort: [(SortTarget, Bool)],
                 distinct: [[String]], offset: Int, limit: Int?) throws -> RefRows {
        let table = objects[model]!
        func item(_ name: String) -> RefSelectItem {
            items.first { $0.name == name } ?? items.first { $0.text == name }!
        }
        let keys = try query(model, predicate, sortValues: sort.map { target, ascending in
            switch target {
            case .path(let path): return ({ key in self.values(path, model: model, table[key]!).first ?? .null }, ascending)
            case .item(let name):
                let chosen = item(name)
                return ({ key in self.selected(chosen, model: model, table[key]!) }, ascending)
            }
        }, distinct: distinct, offset: offset, limit: limit)
        return RefRows(names: items.map(\.name), rows: keys.map { key in items.map { plain(selected($0, model: model, table[key]!)) } },
                       objects: keys)
    }

    /// An item's value for one object. A path gives one value through to-one links, null where
    /// a link on the way is null, and an array (in list order) once it crosses a list; a list
    /// aggregate folds the list's values as a predicate's does, and is null where a link before
    /// the list is null.
    func selected(_ item: RefSelectItem, model: String, _ object: Object) -> Value {
        switch item.kind {
        case .path(let path):
            guard let (owner, ownerModel, rest) = toOnePrefix(path, model: model, object) else { return .null }
            let value = owner[rest[0]]!
            if rest.count == 1 { return value }
            // `rest` starts at a list: every element's value of the rest of the path.
            let target = schema[ownerModel]![property: rest[0]]!.objectType!
            guard case .list(let elements) = value else { return .null }
            return .list(elements.flatMap { element -> [Value] in
                guard case .reference(let r) = element else { return [] }
                return values(Array(rest.dropFirst()), model: target, objects[target]![r.key]!)
            })
        case let .listAggregate(collection, function, property):
            guard let (owner, ownerModel, rest) = toOnePrefix(collection, model: model, object) else { return .null }
            guard case .list(var elements) = owner[rest[0]]! else { return .null }
            if let property {
                let target = targetModel(rest, from: ownerModel)
                elements = elements.map { element in
                    guard case .reference(let r) = element else { return .null }
                    return values(property, model: target, objects[target]![r.key]!).first ?? .null
                }
            }
            return fold(function, elements)
        case .groupAggregate:
            preconditionFailure("a group aggregate outside GROUP")
        }
    }

    /// The object `path` leads to through its to-one links, with its model and the rest of the
    /// path (starting at the last property or at the first list); nil when a link on the way
    /// is null.
    private func toOnePrefix(_ path: [String], model: String, _ object: Object) -> (Object, String, [String])? {
        var (current, currentModel, rest) = (object, model, path)
        while rest.count > 1 {
            let p = schema[currentModel]![property: rest[0]]!
            if p.type.isList || p.type.isLinkingObjects { break }
            guard case .reference(let r) = current[rest[0]]! else { return nil }
            currentModel = p.objectType!
            current = objects[currentModel]![r.key]!
            rest.removeFirst()
        }
        return (current, currentModel, rest)
    }

    /// A value as rows show it: a link is its target's primary key (a reference to its object
    /// when the target has none), in lists too.
    func plain(_ value: Value) -> Value {
        switch value {
        case .reference(let r):
            guard let key = schema[r.model]!.primaryKey else { return value }
            return objects[r.model]![r.key]![key]!
        case .list(let items):
            return .list(items.map(plain))
        default:
            return value
        }
    }

    // MARK: Aggregate statements

    /// `sum|avg|min|max MODEL.KEYPATH [where P]` over the objects the predicate finds.
    func aggregate(_ function: AggregateFunction, _ model: String, _ path: [String], _ predicate: RefPredicate?) throws -> Value {
        let table = objects[model]!
        return fold(function, try filter(model, predicate).map { values(path, model: model, table[$0]!).first ?? .null })
    }

    /// The contract's folds: `@count` counts every value; `sum` is 0 over no values; `avg`,
    /// `min` and `max` ignore nulls and are null when none is left; `avg` of integers is
    /// fractional; decimals stay decimal; `min` and `max` also order dates.
    func fold(_ function: AggregateFunction, _ values: [Value]) -> Value {
        if function == .count { return .int(Int64(values.count)) }
        let present = values.filter { !$0.isNull && !Self.isNaN($0) }
        let decimals = present.contains { if case .decimal = $0 { true } else { false } }
        let integers = present.allSatisfy { if case .int = $0 { true } else { false } }
        switch function {
        case .sum:
            if decimals { return .decimal(present.reduce(Decimal(0)) { $0 + Self.decimal($1)! }) }
            if integers { return .int(present.reduce(Int64(0)) { if case .int(let i) = $1 { $0 + i } else { $0 } }) }
            return .double(Self.fractionalSum(present.map(Self.double)) ?? .nan)
        case .avg:
            guard !present.isEmpty else { return .null }
            if decimals { return .decimal(present.reduce(Decimal(0)) { $0 + Self.decimal($1)! } / Decimal(present.count)) }
            return .double((Self.fractionalSum(present.map(Self.double)) ?? .nan) / Double(present.count))
        case .min:
            return present.min { Self.sortOrder($0, $1) < 0 } ?? .null
        case .max:
            return present.max { Self.sortOrder($0, $1) < 0 } ?? .null
        default:
            preconditionFailure("\(function) is not a fold")
        }
    }

    // MARK: GROUP

    /// `MODEL where P GROUP(keys) SELECT(items) SORT(...) OFFSET(n) LIMIT(n)`: one row per
    /// distinct combination of the keys' values (null is a value), in the order of those values
    /// (null first; links by their targets' object keys), then by SORT over the items' names
    /// or texts (ties keep that order), then OFFSET and LIMIT over the groups. Without SELECT a
    /// group shows its key paths and `@count`.
    func group(_ model: String, _ predicate: RefPredicate?, keys: [[String]], items: [RefSelectItem]?,
               sort: [(String, Bool)], offset: Int, limit: Int?) throws -> RefRows {
        let table = objects[model]!
        let items = items ?? keys.map { RefSelectItem(kind: .path($0)) } + [RefSelectItem(kind: .groupAggregate(.count, nil))]
        var groups: [(key: [Value], members: [UInt64])] = []
        for object in try filter(model, predicate) {
            let key = keys.map { values($0, model: model, table[object]!).first ?? .null }
            // Equal as DISTINCT takes them: null equals null, a link is its target, NaN is NaN.
            if let g = groups.firstIndex(where: { Self.sameKey($0.key, key) }) {
                groups[g].members.append(object)
            } else {
                groups.append((key, [object]))
            }
        }
        groups.sort { a, b in
            for (x, y) in zip(a.key, b.key) {
                let order = Self.groupOrder(x, y)
                if order != 0 { return order < 0 }
            }
            return false
        }
        func value(_ item: RefSelectItem, _ group: (key: [Value], members: [UInt64])) -> Value {
            switch item.kind {
            case .path(let path):
                return group.key[keys.firstIndex(of: path)!]
            case let .groupAggregate(function, property):
                return fold(function, group.members.map { member in
                    property.map { values($0, model: model, table[member]!).first ?? .null } ?? .int(1)
                })
            case .listAggregate:
                preconditionFailure("a list aggregate in a grouped SELECT")
            }
        }
        var rows = groups.map { group in items.map { value($0, group) } }
        if !sort.isEmpty {
            let columns = sort.map { name, ascending in
                (items.firstIndex { $0.name == name } ?? items.firstIndex { $0.text == name }!, ascending)
            }
            rows = rows.enumerated().sorted { a, b in
                for (column, ascending) in columns {
                    let order = Self.groupOrder(a.element[column], b.element[column])
                    if order != 0 { return ascending ? order < 0 : order > 0 }
                }
                return a.offset < b.offset
            }.map(\.element)
        }
        rows = Array(rows.dropFirst(offset))
        if let limit { rows = Array(rows.prefix(limit)) }
        return RefRows(names: items.map(\.name), rows: rows.map { $0.map(plain) })
    }

    /// Whether two answers agree: numbers by value (an integer average may come as a double,
    /// and sums of doubles added in another order round apart), lists element by element.
    static func same(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.list(let x), .list(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case _ where number(a) != nil || number(b) != nil:
            guard let x = number(a), let y = number(b) else { return false }
            return x == y || (x.isNaN && y.isNaN) || abs(x - y) <= 1e-9 * max(1, abs(y))
        default: return a == b
        }
    }

    /// A number's value as a double; nil for anything else.
    static func number(_ v: Value) -> Double? {
        switch v {
        case .int, .float, .double: double(v)
        case .decimal(let d): NSDecimalNumber(decimal: d).doubleValue
        default: nil
        }
    }

    /// The default order of groups: as SORT orders values, a link by its target's object key.
    static func groupOrder(_ a: Value, _ b: Value) -> Int {
        if case .reference(let x) = a, case .reference(let y) = b { return x.key < y.key ? -1 : x.key == y.key ? 0 : 1 }
        return sortOrder(a, b)
    }
}
