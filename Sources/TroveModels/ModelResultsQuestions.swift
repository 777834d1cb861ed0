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
    /// The sum of a numeric property over the group, nulls skipped: `@sum.price`.
    public static func sum<V: QueryableSummand>(_ keyPath: KeyPath<T, V>) -> Self { Self(.aggregate("sum", keyPath)) }
    /// The mean of a numeric property over the group, nulls skipped: `@avg.price`.
    public static func average<V: QueryableSummand>(_ keyPath: KeyPath<T, V>) -> Self { Self(.aggregate("avg", keyPath)) }
    /// The least value of a numeric or date property over the group: `@min.price`.
    public static func min<V: QueryableExtremum>(_ keyPath: KeyPath<T, V>) -> Self { Self(.aggregate("min", keyPath)) }
    /// The greatest value of a numeric or date property over the group: `@max.price`.
    public static func max<V: QueryableExtremum>(_ keyPath: KeyPath<T, V>) -> Self { Self(.aggregate("max", keyPath)) }

    /// The item under `name` (`ITEM AS name`) in place of its text.
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
        return name.map { "\(item) AS \($0)" } ?? item
    }
}

extension ModelResults {
    /// The values of `keyPaths` of each object, as rows in the results' order: the typed form
    /// of `Results.select(_:)`, whose columns are the key paths as the query language writes
    /// them (`"name"`, `"team.name"`).
    ///
    /// ```swift
    /// let rows = try snapshot.objects(Person.self, sortBy: [.init(\.name)]).select(\.name, \.bestFriend?.name)
    /// ```
    public func select(_ keyPaths: PartialKeyPath<T>...) throws -> QueryRows {
        try results.select(keyPaths.map { try T.questionPath($0) })
    }

    /// The values of `items` of each object (properties, each optionally named), as rows.
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
    /// The dotted path of a key path an aggregate, a SELECT or a GROUP reads, or an error naming the model.
    static func questionPath(_ keyPath: AnyKeyPath) throws -> String {
        guard let path = propertyPath(keyPath), path.schema.isStored else {
            throw ModelQueryError("\(keyPath) is not a stored property of \(modelName), nor one of a linked model through to-one links; only properties of the model tables (not computed or @Transient ones) can be aggregated, selected or grouped by")
        }
        return path.dotted
    }
}
