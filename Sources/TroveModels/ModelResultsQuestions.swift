import Trove

/// An item of a SELECT whose rows are ``Trove/QueryRows``: a property of the model (or of a
/// model it links to through to-one links), or in a grouped query a group aggregate
/// (`@count`, `@sum.price`, ...); each optionally named, as the query language's
/// `ITEM AS NAME`.
///
/// ```swift
/// let byOrigin = try cars.grouped(by: \.origin, select: [.property(\.origin), .count, .average(\.mpg).named("mpg")])
/// ```
///
/// The aggregates are ``ModelAggregate``'s: `.sum(\.name)` does not compile. Rows of Swift
/// values come from `select(_:)` of key paths and ``ModelResults/grouped(by:aggregating:)``.
public struct ModelSelectItem<T: PersistentModel> {
    private enum Kind {
        case property(AnyKeyPath)
        case aggregate(ModelAggregateFunction, AnyKeyPath?)
    }

    private let kind: Kind
    private var name: String?

    private init(_ kind: Kind) { self.kind = kind }

    /// The item of an aggregate: see ``ModelAggregate``.
    init(aggregate function: ModelAggregateFunction, _ keyPath: AnyKeyPath?) {
        self.init(.aggregate(function, keyPath))
    }

    /// The value of a property: `\.name`, or through to-one links, `\.team?.name`
    /// (`team.name`; null when a link on the way is).
    public static func property<V>(_ keyPath: KeyPath<T, V>) -> Self { Self(.property(keyPath)) }
    /// The number of objects of the group: `@count`.
    public static var count: Self { ModelAggregate<T, Int>.count.item }
    /// The sum of a numeric property over the group: see ``ModelAggregate/sum(_:)``.
    public static func sum<V: QueryableSummand>(_ keyPath: KeyPath<T, V>) -> Self { ModelAggregate<T, V.Number>.sum(keyPath).item }
    /// The mean of a numeric property over the group: see ``ModelAggregate/average(_:)``.
    public static func average<V: QueryableSummand>(_ keyPath: KeyPath<T, V>) -> Self { ModelAggregate<T, Double?>.average(keyPath).item }
    /// The least value of a numeric or date property over the group: see ``ModelAggregate/min(_:)``.
    public static func min<V: QueryableExtremum>(_ keyPath: KeyPath<T, V>) -> Self { ModelAggregate<T, V.Extremum?>.min(keyPath).item }
    /// The greatest value of a numeric or date property over the group: see ``ModelAggregate/max(_:)``.
    public static func max<V: QueryableExtremum>(_ keyPath: KeyPath<T, V>) -> Self { ModelAggregate<T, V.Extremum?>.max(keyPath).item }

    /// The item under `name` (`ITEM AS name`) in place of its text. A name is written as a
    /// property's is, letters, digits and `_`, not starting with a digit (a reserved word such
    /// as `in` may be one): the query that selects an item named otherwise is an error naming
    /// it, before it runs.
    public func named(_ name: String) -> Self {
        var item = self
        item.name = name
        return item
    }

    /// The item as the query language writes it: `team.name`, `@avg.mpg AS mpg`.
    func text() throws -> String {
        let item = switch kind {
        case .property(let keyPath): try T.questionPath(keyPath)
        case .aggregate(let function, nil): "@\(function.rawValue)"
        case .aggregate(let function, let keyPath?): "@\(function.rawValue).\(try T.questionPath(keyPath))"
        }
        guard let name else { return item }
        return "\(item) AS \(try Self.alias(name))"
    }

    /// `name` as an AS name is written, `#in` for a reserved word, or an error naming it when
    /// the query language cannot write it.
    private static func alias(_ name: String) throws -> String {
        guard SchemaName.isValid(name, underscoreFirst: true) else {
            throw ModelQueryError("'\(name)' cannot name a SELECT item of \(T.modelName): a name (ITEM AS NAME) has only letters, digits and _, and does not start with a digit")
        }
        return QueryKeyPath(components: [QueryIdentifier(name)]).description
    }
}

extension ModelResults {
    /// The values of `keyPaths` of each object, in the results' order, as Swift values: a
    /// tuple per object, or the value itself for one key path. A key path through an optional
    /// link gives an optional (null when a link on the way is), a link its model, a list an
    /// array. The query is the string form's `Results.select(_:)` of the key paths as the
    /// query language writes them (`name`, `bestFriend.name`).
    ///
    /// ```swift
    /// let people = try snapshot.objects(Person.self, sortBy: [.init(\.name)])
    /// let rows = try people.select(\.name, \.bestFriend?.name)   // [(String, String?)]
    /// let names = try people.select(\.name)                       // [String]
    /// ```
    ///
    /// A stored value that does not decode as its key path's type (a store opened with a
    /// schema that disagrees with the model) is a ``ModelDecodingError`` naming the item.
    public func select<each V: Decodable>(_ keyPaths: repeat KeyPath<T, each V>) throws -> [(repeat each V)] {
        var items: [String] = []
        var links: [String?] = []
        for keyPath in repeat each keyPaths {
            let column = try SelectColumnCache.column(keyPath)
            items.append(column.text)
            links.append(column.link)
        }
        let rows = try results.select(items)
        return try rows.map { row in
            var reader = TypedRowReader<T>(row: row, items: items, links: links, snapshot: results.snapshot)
            return (repeat try reader.value((each V).self))
        }
    }

    /// The values of `items` of each object (properties, each optionally named), as rows of
    /// ``Trove/Value``s under the items' names.
    ///
    /// The group aggregates (`.count`, `.sum`, ...) belong to ``grouped(by:select:)``: here
    /// they are an error naming the item, as in the string form.
    public func select(_ items: [ModelSelectItem<T>]) throws -> QueryRows {
        try results.select(items.map { try $0.text() })
    }

    /// One row per distinct combination of the values of `keyPaths` (null is a value), in key
    /// order, as Swift values: the group's key (a tuple for more than one key path) and the
    /// values of `aggregates` over its objects, typed as ``ModelAggregate``'s. Without
    /// aggregates, the distinct keys. The query is the string form's
    /// `Results.grouped(by:select:)` of the key paths and aggregates.
    ///
    /// ```swift
    /// let byTeam = try people.grouped(by: \.team?.name, aggregating: .count, .max(\.age))   // [(String?, Int, Int?)]
    /// let byPlace = try people.grouped(by: \.city, \.zip, aggregating: .count)               // [((String, String), Int)]
    /// let nicknames = try people.grouped(by: \.nickname)                                     // [String?]
    /// ```
    ///
    /// A stored key that does not decode as its key path's type is a ``ModelDecodingError``
    /// naming it; an aggregate its type cannot hold, a ``ModelQueryError`` naming it.
    public func grouped<each K: Decodable, each A>(by keyPaths: repeat KeyPath<T, each K>,
                                                   aggregating aggregates: repeat ModelAggregate<T, each A>) throws -> [((repeat each K), repeat each A)] {
        var keys: [String] = []
        var links: [String?] = []
        for keyPath in repeat each keyPaths {
            let column = try SelectColumnCache.column(keyPath)
            keys.append(column.text)
            links.append(column.link)
        }
        var items = keys
        var sumsReadAsFloat: Set<Int> = []
        for aggregate in repeat each aggregates {
            if aggregate.readsAsFloat { sumsReadAsFloat.insert(items.count) }
            items.append(try aggregate.item.text())
        }
        let rows = try results.grouped(by: keys, select: items, sumsReadAsFloat: sumsReadAsFloat)
        return try rows.map { row in
            var reader = TypedRowReader<T>(row: row, items: items, links: links, snapshot: results.snapshot)
            return ((repeat try reader.value((each K).self)), repeat try reader.value(of: each aggregates))
        }
    }

    /// One row per distinct combination of the values of `keyPaths` (null is a value), in key
    /// order, as rows of ``Trove/Value``s: the `select` items (the group's key paths, its
    /// count and aggregates), each under its name, as the string form's
    /// `Results.grouped(by:select:)`.
    ///
    /// ```swift
    /// let byTeam = try snapshot.objects(Person.self).grouped(by: \.team?.name, select: [.property(\.team?.name), .count, .max(\.age).named("oldest")])
    /// ```
    public func grouped(by keyPaths: PartialKeyPath<T>..., select items: [ModelSelectItem<T>]) throws -> QueryRows {
        try results.grouped(by: keyPaths.map { try T.questionPath($0) }, select: items.map { try $0.text() })
    }
}

/// Reads a row's values in order as the Swift types of a typed SELECT or GROUP: a key path's
/// through `ObjectDecoder` (the object layer's one reading of values as `Decodable` types), an
/// aggregate's through ``ModelAggregate``.
private struct TypedRowReader<T: PersistentModel> {
    let row: QueryRow
    let items: [String]
    /// The model each key path's column links to: a row holds its objects' primary keys.
    let links: [String?]
    let snapshot: Snapshot
    private var column = 0

    init(row: QueryRow, items: [String], links: [String?], snapshot: Snapshot) {
        self.row = row
        self.items = items
        self.links = links
        self.snapshot = snapshot
    }

    mutating func value<V: Decodable>(_ type: V.Type) throws -> V {
        defer { column += 1 }
        let value = row.values[column]
        do {
            let stored: Value
            do {
                stored = try links[column].map { try references(value, of: $0) } ?? value
            } catch {
                throw ModelDecodingError(error, model: T.modelName, item: items[column], value: value, expectedType: V.self)
            }
            return try ObjectDecoder.decode(V.self, from: stored, snapshot: snapshot)
        } catch let error as StoreError {
            throw error
        } catch {
            throw ModelDecodingError(error, model: T.modelName, item: items[column], value: value, expectedType: V.self)
        }
    }

    /// `value`, keys of `model` (one, or a list), as references to their objects: primary
    /// keys, or already references when `model` has no primary key (as rows hold links).
    private func references(_ value: Value, of model: String) throws -> Value {
        switch value {
        case .null, .reference: return value
        case .list(let keys): return .list(try keys.map { try references($0, of: model) })
        default: return try snapshot.object(model, primaryKey: value).map { .reference($0.reference) } ?? .null
        }
    }

    mutating func value<A>(of aggregate: ModelAggregate<T, A>) throws -> A {
        defer { column += 1 }
        return try aggregate.output(row.values[column])
    }
}

extension PersistentModel {
    /// The key path an aggregate, a SELECT or a GROUP reads, as the query language writes it
    /// (`team.name`, `#matches` for a reserved word), or an error naming the model.
    static func questionPath(_ keyPath: AnyKeyPath) throws -> String {
        try storedPath(keyPath, toBe: "aggregated, selected or grouped by").queryKeyPath.description
    }
}
