/// A misuse of a repository's write protocol.
public enum RepositoryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// ``RepoSavingType/beginWrite()`` inside a write.
    case alreadyInWrite
    /// ``RepoSavingType/endWrite()``, ``RepoLifetimeType/addEntity(_:)`` or
    /// ``RepoLifetimeType/removeEntity(_:)`` outside a write.
    case notInWrite
    /// The entity was never handed out by this repository (or was already removed).
    case unknownEntity(String)

    public var description: String {
        switch self {
        case .alreadyInWrite: "a write is already in progress; end it first"
        case .notInWrite: "no write is in progress; call beginWrite() first"
        case .unknownEntity(let model): "this \(model) entity does not belong to the repository"
        }
    }
}
