import Trove

/// An item of a typed SELECT: a property of the model (or of a model it links to through
/// to-one links), or in a grouped query a group aggregate (`@count`, `@sum.price`, ...); each
/// optionally named, as the query language's `ITEM AS NAME`.
///
/// ```swift
/// let byOrigin = try cars.grouped(by: \.origin, select: [.property(\.origin), .count, .average(\.mpg).named("mpg")])
/// ```
///
/// The aggregates take the types the query language aggregates: `sum` and `average` of
/// numbers (``QueryableSummand``), `min` and `max` of numbers and dates
/// (``QueryableExtremum``), optional or not; `.sum(\.name)` does not compile.
public struct ModelSelectItem<T: PersistentModel> {
    private enum Kind {
        case property(AnyKeyPath)
        case count
        case aggregate(String, AnyKeyPath)
    }

    private let kind: Kind
    private var name: String?

    private init(_ kind: Kind) { self.kind = kind }

    /// The value of a property: `\.name`, or through to-one links, `\.team?.name`
    /// (`team.name`; null when a link on the way is).
    public static func property<V>(_ keyPath: KeyPath<T, V>) -> Self { Self(.property(keyPath)) }
    /// The number of objects of the group: `@count`.
    public static var count: Self { Self(.count) }
    /// The sum of a numeric property over the group, nulls skipped: `@sum.price`; 0 when the
    /// group has no value.
    public static func sum<V: QueryableSummand>(_ keyPath: KeyPath<T, V>) -> Self { Self(.aggregate("sum", keyPath)) }
    /// The mean of a numeric property over the group, nulls skipped: `@avg.price`; null when
    /// the group has no value.
    public static func average<V: QueryableSummand>(_ keyPath: KeyPath<T, V>) -> Self { Self(.aggregate("avg", keyPath)) }
    /// The least value of a numeric or date property over the group, nulls skipped:
    /// `@min.price`; null when the group has no value.
    public static func min<V: QueryableExtremum>(_ keyPath: KeyPath<T, V>) -> Self { Self(.aggregate("min", keyPath)) }
    /// The greatest value of a numeric or date property over the group, nulls skipped:
    /// `@max.price`; null when the group has no value.
    public static func max<V: QueryableExtremum>(_ keyPath: KeyPath<T, V>) -> Self { Self(.aggregate("max", keyPath)) }

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
        case .count: "@count"
        case .aggregate(let function, let keyPath): "@\(function).\(try T.questionPath(keyPath))"
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
    /// The values of `keyPaths` of each object, as rows in the results' order: the typed form
    /// of `Results.select(_:)`, whose columns are the key paths as the query language writes
    /// them (`"name"`, `"team.name"`, `"#like"` for a property named as a reserved word).
    ///
    /// ```swift
    /// let rows = try snapshot.objects(Person.self, sortBy: [.init(\.name)]).select(\.name, \.bestFriend?.name)
    /// ```
    public func select(_ keyPaths: PartialKeyPath<T>...) throws -> QueryRows {
        try results.select(keyPaths.map { try T.questionPath($0) })
    }

    /// The values of `items` of each object (properties, each optionally named), as rows.
    ///
    /// The group aggregates (`.count`, `.sum`, ...) belong to ``grouped(by:select:)``: here
    /// they are an error naming the item, as in the string form.
    public func select(_ items: [ModelSelectItem<T>]) throws -> QueryRows {
        try results.select(items.map { try $0.text() })
    }

    /// One row per distinct combination of the values of `keyPaths` (null is a value), in key
    /// order: the typed form of `Results.grouped(by:select:)`. Each row holds the key paths and
    /// `@count`, or the `select` items (the group's key paths, its count and aggregates).
    ///
    /// ```swift
    /// let byTeam = try snapshot.objects(Person.self).grouped(by: \.team?.name, select: [.property(\.team?.name), .count, .max(\.age).named("oldest")])
    /// ```
    public func grouped(by keyPaths: PartialKeyPath<T>..., select items: [ModelSelectItem<T>] = []) throws -> QueryRows {
        try results.grouped(by: keyPaths.map { try T.questionPath($0) }, select: items.map { try $0.text() })
    }
}

extension PersistentModel {
    /// The key path an aggregate, a SELECT or a GROUP reads, as the query language writes it
    /// (`team.name`, `#matches` for a reserved word), or an error naming the model.
    static func questionPath(_ keyPath: AnyKeyPath) throws -> String {
        try storedPath(keyPath, toBe: "aggregated, selected or grouped by").queryKeyPath.description
    }
}
