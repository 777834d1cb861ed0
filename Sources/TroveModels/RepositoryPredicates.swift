#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

extension QueryLanguageRepository {
    /// The saved entities of `type` that `predicate` selects, by the query it translates to
    /// (run by the store with its indexes, or by PostgreSQL as SQL).
    public func fetch<T: EntityType & PersistentModel>(_ type: T.Type, matching predicate: Predicate<T>) throws -> [T] {
        let translated = try PredicateTranslationCache.translate(predicate)
        return try fetch(type, where: translated.text, arguments: translated.arguments)
    }

    /// The saved entities of `type` that the condition built by `query` selects, by the query
    /// text it stands for (``ModelCondition/queryText()``), its values parameters, run as a
    /// string predicate is (by the store with its indexes, or by PostgreSQL as SQL):
    ///
    /// ```swift
    /// let active = try repo.fetch(Account.self, where: { $0.isActive == true && $0.logins > 1 })
    /// ```
    public func fetch<T: EntityType & PersistentModel, C: ModelConditionConvertible<T>>(_ type: T.Type, where query: (ModelQuery<T, T>) -> C) throws -> [T] {
        let condition = query(ModelQuery()).modelCondition()
        return try fetch(type, where: condition.predicateText(), arguments: condition.arguments)
    }
}

extension InMemoryRepository {
    /// The saved entities of `type` that `predicate` selects. The predicate is checked to
    /// translate as it would for a store, so that code moving between the two repositories
    /// meets the same errors.
    public func fetch<T: EntityType & PersistentModel>(_ type: T.Type, matching predicate: Predicate<T>) throws -> [T] {
        _ = try PredicateTranslator.translate(predicate)
        return try fetch(type, predicate: { try predicate.evaluate($0) })
    }
}

extension InMemoryRepository {
    /// The saved entities of `type` that the condition built by `query` selects. The condition
    /// runs as its query text (``ModelCondition/queryText()``) runs in a store, by Trove's
    /// evaluator, never a second one: over a scratch in-memory store of `type`'s derived
    /// schema (`type` and every model it links to) that holds this repository's entities of
    /// those models, so that links, lists and linkingObjects resolve as in a store.
    ///
    /// Each fetch writes every such entity into a new store: O(N) in the entities held, which
    /// suits a test double, not large data. A repository in memory saves what a store refuses
    /// (it checks little of a schema, and nothing without one); such entities make this fetch
    /// throw the store's error, where a ``TroveRepository`` would have refused the save: two
    /// entities with one primary key (saved by `InMemoryRepository()`) are
    /// ``StoreError/duplicatePrimaryKey(model:value:)`` naming the key, a link to an entity
    /// nothing holds is ``StoreError/linkTargetNotFound(property:model:primaryKey:)``.
    ///
    /// ```swift
    /// let active = try repo.fetch(Account.self, where: { $0.isActive == true && $0.logins > 1 })
    /// ```
    public func fetch<T: EntityType & PersistentModel, C: ModelConditionConvertible<T>>(_ type: T.Type, where query: (ModelQuery<T, T>) -> C) throws -> [T] {
        let condition = query(ModelQuery()).modelCondition()
        return try fetch(type, where: condition.predicateText(), arguments: condition.arguments,
                       schema: DerivedSchemaCache.schema(of: T.self))
    }
}
