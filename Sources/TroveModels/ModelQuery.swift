import Trove

/// A property of the model a typed query reads, as Realm Swift's `Query<T>` gives it: the `$0`
/// of `where { $0.age > 30 }`, and each `$0.property` after it.
///
/// ```swift
/// let found = try snapshot.objects(Person.self, where: { $0.age > 30 && $0.name.contains("a", options: .caseInsensitive) })
/// let rexOwners = try snapshot.objects(Person.self, where: { $0.bestFriend.name == "Rex" || $0.dogs.age > 10 })
/// ```
///
/// `Root` is the model queried and `Value` the Swift type of the property read. A member of
/// `$0` is a key path of the model (`@dynamicMemberLookup`), so a misspelt property or a value
/// of the wrong type does not compile. A member of a link (`$0.team.name`) reads through the
/// link, one of a list of links (`$0.dogs.age`) compares as any of the list's elements does
/// (`ANY dogs.age > $0`). Two properties compare (`$0.age < $0.limit`), one of them through
/// a list if need be (`$0.dogs.age > $0.age` is `ANY dogs.age > age`); two sides through
/// lists compile, and are the query language's error when the query runs. Comparing builds
/// a ``ModelCondition``; nothing here reads a store.
///
/// A range is `$0.age.contains(18...30)` (`BETWEEN`) or `$0.age.contains(18..<30)`
/// (`>=` and `<`). A `Bool` or `Bool?` property is a condition by itself (`$0.isGood`,
/// `!$0.isGood`, `$0.isGood && $0.age > 3`; see ``ModelConditionConvertible``). A list has
/// Realm's aggregates (`$0.dogs.age.avg > 3`, `$0.scores.max < 10`, `$0.dogs.born.min < date`,
/// `.sum`, `.count`; see ``QueryableSummand`` and ``QueryableExtremum`` for the types each
/// takes), `contains(where:)` and `allSatisfy(_:)` over its elements (`ANY`, `ALL`, and
/// `NONE` when negated; on a list reached through no other list, nested for one that is:
/// `$0.dogs.contains(where: { $0.owners.contains(where: ...) })`) and Realm's subquery count
/// (`($0.dogs.age > 3 && $0.dogs.name == "Rex").count > 0`).
/// Of Realm's `Query<T>`, these have no form here: an order of two optional properties
/// (`$0.rating < $0.limit` with both optional), `notEquals(_:options:)` (write
/// `!$0.name.equals(x, options: ...)`).
public typealias ModelQuery<Root: PersistentModel, Value> = ModelQueryExpression<Root, Value, QueryReach.One>

/// A ``ModelQuery`` that may read more than one value per object: `$0.dogs.age` is
/// `ModelQueryExpression<Person, Int, QueryReach.Many>`. Its comparisons are a
/// ``ModelQuery``'s (each one `ANY`); the `Reach` is why aggregates exist only where they
/// mean something: `sum`, `avg`, `min` and `max` of a property of the objects of one list
/// (`$0.dogs.age.sum`, not `$0.age.sum` nor `$0.dogs.owners.age.sum`), `count` of a list
/// reached through none (`$0.dogs.count`, not `$0.dogs.owners.count`).
@dynamicMemberLookup
public struct ModelQueryExpression<Root: PersistentModel, Value, Reach: QueryReachKind> {
    @usableFromInline let path: ModelQueryPath

    @inlinable init(path: ModelQueryPath) { self.path = path }
}

/// How many values a ``ModelQueryExpression`` reads per object: the `Reach` of its type.
public enum QueryReach {
    /// One value: a property of the model, or one reached through to-one links.
    public enum One: QueryReachKind {
        /// One list further, a value per element: `$0.bestFriend.dogs.age`.
        public typealias ThroughList = Many
    }
    /// A value per element of the one list of links (or of linking objects) the path crosses.
    public enum Many: QueryReachKind {
        /// One list further, values through two lists: `$0.dogs.owners.age`.
        public typealias ThroughList = ManyOfMany
    }
    /// Values through more than one list (`$0.dogs.owners.age`): compared as `ANY`, never
    /// aggregated, as an aggregate is of one list.
    public enum ManyOfMany: QueryReachKind {
        /// One list further, still values through more than one list.
        public typealias ThroughList = ManyOfMany
    }
}

/// A ``QueryReach``: `ThroughList` is the reach of a path one list of links further.
public protocol QueryReachKind {
    /// The reach of a path through one more list of links.
    associatedtype ThroughList: QueryReachKind
}

extension ModelQueryExpression where Value == Root, Reach == QueryReach.One {
    /// The queried object itself: the `$0` a `where` closure receives.
    @inlinable public init() { self.init(path: ModelQueryPath()) }
}

extension ModelQueryExpression where Value: PersistentModel {
    /// A property of the model: `$0.name`.
    @inlinable
    public subscript<V>(dynamicMember keyPath: KeyPath<Value, V>) -> ModelQueryExpression<Root, V, Reach> {
        ModelQueryExpression<Root, V, Reach>(path: path.appending(keyPath))
    }
}

extension ModelQueryExpression {
    /// A property of the object a to-one link points to: `$0.team.name`. A null link reads as
    /// null, as in a query string.
    @inlinable
    public subscript<M: PersistentModel, V>(dynamicMember keyPath: KeyPath<M, V>) -> ModelQueryExpression<Root, V, Reach> where Value == M? {
        ModelQueryExpression<Root, V, Reach>(path: path.appending(keyPath))
    }

    /// A property of the objects of a list of links (or of linking objects): `$0.dogs.age`.
    /// A comparison of it holds when it holds for any of them (`ANY dogs.age > $0`).
    @inlinable
    public subscript<M: PersistentModel, V>(dynamicMember keyPath: KeyPath<M, V>) -> ModelQueryExpression<Root, V, Reach.ThroughList> where Value == [M] {
        ModelQueryExpression<Root, V, Reach.ThroughList>(path: path.appending(keyPath))
    }
}

/// The key paths a ``ModelQuery`` reads, from the queried model: each one's root is the model
/// the one before it leads to. Compared by the key paths' identity first, as the literals of a
/// call site are one instance each time it runs. Sendable as key paths are: immutable once made.
@usableFromInline
struct ModelQueryPath: Hashable, @unchecked Sendable {
    /// The key paths before ``last``; empty (and not allocated) for a property of the model.
    @usableFromInline var links: [AnyKeyPath]
    /// The last key path, nil for the queried object itself.
    @usableFromInline var last: AnyKeyPath?
    /// The aggregate of the list the path reads it ends with (`tags.@count`, `dogs.@avg.age`).
    @usableFromInline var aggregate: ModelQueryAggregate?
    /// The subquery whose count the path is, with no key paths: `(condition).count`.
    @usableFromInline var subquery: ModelSubquery?

    @inlinable init() {
        links = []
        last = nil
        aggregate = nil
        subquery = nil
    }

    /// The parameters of a comparison of the path, given those of what it is compared with:
    /// a subquery's come first, as its text reads them (`SUBQUERY(...).@count > $n`). The one
    /// home of that order; a property's comparison with a value, which has no subquery, does
    /// not call it (``ModelCondition``'s `comparison`).
    @inlinable func arguments(then operands: [Value]) -> [Value] {
        guard let subquery else { return operands }
        return subquery.arguments + operands
    }

    @inlinable func appending(_ keyPath: AnyKeyPath) -> ModelQueryPath {
        var path = self
        if let last { path.links.append(last) }
        path.last = keyPath
        return path
    }

    /// Every key path, in order.
    var keyPaths: [AnyKeyPath] { links + (last.map { [$0] } ?? []) }
}
