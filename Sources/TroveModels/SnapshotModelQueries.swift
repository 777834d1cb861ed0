import Trove

extension Snapshot {
    /// The objects of `T` that the condition built by `query` selects, sorted and paged, in
    /// the style of Realm Swift's `objects(Person.self).where { ... }`:
    ///
    /// ```swift
    /// let found = try snapshot.objects(Person.self, where: { $0.age > 30 && $0.name.contains("a", options: .caseInsensitive) },
    ///                                  sortBy: [.init(\.name)], limit: 10)
    /// ```
    ///
    /// The closure builds a ``ModelCondition`` from key paths and values, checked by the
    /// compiler, or names a `Bool` property alone (``ModelConditionConvertible``); it runs as
    /// the query text it stands for (``ModelCondition/queryText()``), with each value a
    /// parameter, so a repeated query with new values is neither translated nor planned again,
    /// and uses the indexes the text would. A property that is not stored
    /// (computed, `@Transient`) or a model value compared is a ``ModelQueryError``.
    ///
    /// A reference to the method that is not a call is ambiguous with the `Predicate` overloads
    /// of the same name; the `#Predicate` overload says how to resolve it.
    ///
    /// Inlinable, so that the closure's comparisons run specialized for `T` in the caller.
    @inlinable
    public func objects<T: PersistentModel, C: ModelConditionConvertible<T>>(
        _ type: T.Type, where query: (ModelQuery<T, T>) -> C, sortBy: [ModelSortDescriptor<T>] = [],
        offset: Int = 0, limit: Int? = nil
    ) throws -> ModelResults<T> {
        let condition = query(ModelQuery()).modelCondition()
        if sortBy.isEmpty, offset == 0, limit == nil {
            let text = try ModelConditionCache.text(of: condition.node, signature: condition.signature, root: T.self)
            return ModelResults(try objects(T.modelName, where: text, arguments: condition.arguments))
        }
        return try fetch(FetchDescriptor(where: { _ in condition }, sortBy: sortBy, fetchOffset: offset, fetchLimit: limit))
    }

    /// The plan of the query `query` builds, as ``Trove/Snapshot/explain(_:arguments:)`` gives
    /// the plan of its text (it runs the query).
    public func explain<T: PersistentModel, C: ModelConditionConvertible<T>>(
        _ type: T.Type, where query: (ModelQuery<T, T>) -> C, sortBy: [ModelSortDescriptor<T>] = [],
        offset: Int = 0, limit: Int? = nil
    ) throws -> QueryPlan {
        try explain(FetchDescriptor(where: query, sortBy: sortBy, fetchOffset: offset, fetchLimit: limit))
    }
}
