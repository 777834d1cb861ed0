/// Fetches entities.
///
/// The predicate is a Swift closure rather than query text, so that every repository
/// evaluates it the same way, whatever it stores in: swapping the repository is a
/// compile-time choice that changes no results. The store-backed ``TroveRepository`` also
/// offers ``TroveRepository/fetch(_:where:_:)`` with the query language and indexes.
public protocol RepoQueryType {
    /// The saved entities of `type` that satisfy `predicate` (all when nil), in the order
    /// they were first saved. Each call hands out new instances.
    func fetch<T: EntityType>(_ type: T.Type, predicate: ((T) throws -> Bool)?) throws -> [T]
}
