/// A misuse of a repository's write protocol.
public enum RepositoryError: DescribedError, Equatable, Sendable {
    /// ``RepoSavingType/beginWrite()`` inside a write.
    case alreadyInWrite
    /// ``RepoSavingType/endWrite()``, ``RepoLifetimeType/addEntity(_:)`` or
    /// ``RepoLifetimeType/removeEntity(_:)`` outside a write.
    case notInWrite
    /// The entity was never handed out by this repository (or was already removed).
    case unknownEntity(String)
    /// A change to an entity of this model (named) that a save wrote in a transaction whose
    /// commit lost its connection: whether the database holds what that save wrote is
    /// unknown, so the entity is not saved again; fetch it again to see which (on PostgreSQL,
    /// through a new connection: the lost one is not reopened).
    case outcomeUnknown(String)

    public var description: String {
        switch self {
        case .alreadyInWrite: "a write is already in progress; end it first"
        case .notInWrite: "no write is in progress; call beginWrite() first"
        case .unknownEntity(let model): "this \(model) entity does not belong to the repository"
        case .outcomeUnknown(let model):
            "this \(model) entity was saved in a transaction whose commit lost its connection, so whether it was committed is unknown; fetch it again to change it"
        }
    }
}
