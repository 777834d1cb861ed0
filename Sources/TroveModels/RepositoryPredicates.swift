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
