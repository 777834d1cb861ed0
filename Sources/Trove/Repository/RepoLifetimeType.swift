/// Creates and removes entities; only inside a write (``RepoSavingType``).
public protocol RepoLifetimeType {
    /// A new blank entity of `type`, saved at ``RepoSavingType/endWrite()`` with whatever
    /// values it has by then.
    func addEntity<T: EntityType>(_ type: T.Type) throws -> T
    /// Removes `entity` from the store at ``RepoSavingType/endWrite()``.
    func removeEntity(_ entity: some EntityType) throws
}

/// A repository that fetches, creates, removes and saves: write code against this and
/// choose ``TroveRepository`` or ``InMemoryRepository`` where it is made.
public typealias Repository = RepoQueryType & RepoSavingType & RepoLifetimeType
