/// A ``Repository`` that also fetches by a predicate in the query language, evaluated where
/// the entities are kept (with a store's indexes, or as SQL): what typed predicates
/// translate to.
public protocol QueryLanguageRepository: Repository {
    /// The saved entities of `type` matching `predicate`, with `$0`, `$1`, ... bound to
    /// `arguments`, in the order they were first saved.
    func fetch<T: EntityType>(_ type: T.Type, where predicate: String, arguments: [Value]) throws -> [T]
}
