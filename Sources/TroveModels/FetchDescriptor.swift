#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

/// What a typed fetch returns: the objects of `T` a predicate selects, sorted, paged.
///
/// ```swift
/// var request = FetchDescriptor<Person>(predicate: #Predicate { $0.age > 30 }, sortBy: [.init(\.name)])
/// request.fetchLimit = 10
/// let people = try snapshot.fetch(request)
/// ```
///
/// The condition is a `#Predicate`, or a `where:` closure as `Snapshot.objects(_:where:)`
/// takes one: `FetchDescriptor<Person>(where: { $0.age > 30 }, sortBy: [.init(\.name)], fetchLimit: 10)`.
public struct FetchDescriptor<T: PersistentModel> {
    /// The `#Predicate` condition, or nil.
    public var predicate: Predicate<T>?
    /// The condition a `where:` closure built, or nil. With a ``predicate`` as well, an object
    /// is selected when both hold; with neither, every object is.
    public var condition: ModelCondition<T>?
    /// The sort keys, most significant first.
    public var sortBy: [ModelSortDescriptor<T>]
    /// How many results to skip (`OFFSET`).
    public var fetchOffset: Int
    /// The maximum number of results (`LIMIT`), or nil.
    public var fetchLimit: Int?

    /// A fetch of the objects `predicate` selects (every object when nil), in the order of
    /// `sortBy`, `fetchOffset` skipped, at most `fetchLimit`.
    public init(predicate: Predicate<T>? = nil, sortBy: [ModelSortDescriptor<T>] = [], fetchOffset: Int = 0, fetchLimit: Int? = nil) {
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchOffset = fetchOffset
        self.fetchLimit = fetchLimit
    }

    /// A fetch of the objects the condition built by `query` selects, in the order of
    /// `sortBy`, `fetchOffset` skipped, at most `fetchLimit`:
    ///
    /// ```swift
    /// let request = FetchDescriptor<Person>(where: { $0.age > 30 && $0.dog.name == "Rex" }, sortBy: [.init(\.name)], fetchLimit: 10)
    /// ```
    ///
    /// The closure runs here, once; the descriptor keeps the ``ModelCondition`` it returns.
    public init<C: ModelConditionConvertible<T>>(where query: (ModelQuery<T, T>) -> C, sortBy: [ModelSortDescriptor<T>] = [],
                                                 fetchOffset: Int = 0, fetchLimit: Int? = nil) {
        self.init(sortBy: sortBy, fetchOffset: fetchOffset, fetchLimit: fetchLimit)
        condition = query(ModelQuery()).modelCondition()
    }

    /// The query statement and its parameters: the text `explain` and the shell would run.
    public func queryText() throws -> (text: String, arguments: [Value]) {
        let (filter, arguments) = try self.filter()
        return (try Query.text(of: T.self, where: filter, sortBy: sortBy, offset: fetchOffset, limit: fetchLimit), arguments)
    }

    /// The predicate and the condition as one query predicate (both hold), nil for none, and
    /// its parameters: the predicate's, then the condition's.
    func filter() throws -> (predicate: QueryPredicate?, arguments: [Value]) {
        var filter: QueryPredicate?
        var arguments: [Value] = []
        if let predicate {
            (filter, arguments) = try PredicateTranslator.translate(predicate)
        }
        if let condition {
            let translated = filter == nil
                ? try ModelConditionCache.translation(of: condition.node, root: T.self).condition
                : try ModelConditionTranslator.predicate(of: condition.node, root: T.self, firstParameter: arguments.count)
            filter = filter.map { QueryPredicate.and(flattening: $0, translated) } ?? translated
            arguments += condition.arguments
        }
        return (filter, arguments)
    }
}

/// A sort key of a typed fetch: a stored property of the model and an order, where SwiftData
/// takes a `SortDescriptor`: `[.init(\.age, order: .reverse), .init(\.name)]`.
///
/// The key path names a property of the model, or one of a linked model through optional
/// to-one links, `.init(\Task.project?.title)`, which sorts as the query's `project.title`
/// does: an object whose link is null sorts as a null value. A key path through a list, to a
/// computed or `@Transient` property, or through a link to a model whose table is listed by
/// hand is a ``ModelQueryError`` when the fetch runs.
public struct ModelSortDescriptor<T: PersistentModel> {
    /// The property sorted by, or the property of a linked model.
    public var keyPath: PartialKeyPath<T>
    /// `.forward` for ascending, `.reverse` for descending.
    public var order: SortOrder

    /// Sorts by a property whose values are `Comparable`.
    public init<V: Comparable>(_ keyPath: KeyPath<T, V>, order: SortOrder = .forward) {
        self.keyPath = keyPath
        self.order = order
    }

    /// Sorts by an optional property; nil sorts first in ascending order.
    public init<V: Comparable>(_ keyPath: KeyPath<T, V?>, order: SortOrder = .forward) {
        self.keyPath = keyPath
        self.order = order
    }

    /// Sorts by an enum stored as its raw values (`enum Mood: String, StorableProperty`), as the
    /// query's `SORT` does: by the stored raw values (`"grumpy"` before `"happy"`), not by the
    /// order of the cases nor by the enum's own `<`. Disfavored, so that a `Comparable` enum
    /// picks the overload above (which sorts the same way) and a key that fits neither is
    /// reported as not `Comparable`.
    @_disfavoredOverload
    public init<V: RawRepresentable & StorableProperty>(_ keyPath: KeyPath<T, V>, order: SortOrder = .forward)
    where V.RawValue: StorableScalar & Comparable {
        self.keyPath = keyPath
        self.order = order
    }

    /// Sorts by an optional enum stored as its raw values; nil sorts first in ascending order.
    @_disfavoredOverload
    public init<V: RawRepresentable & StorableProperty>(_ keyPath: KeyPath<T, V?>, order: SortOrder = .forward)
    where V.RawValue: StorableScalar & Comparable {
        self.keyPath = keyPath
        self.order = order
    }
}
