/// What opening a store discarded to apply its schema: see ``Store/migrationLosses``.
public struct MigrationLosses: Sendable, Equatable {
    /// Why the data went.
    public enum Cause: Sendable, Equatable {
        /// A migration that the schema's higher `schemaVersion` allows, to that version.
        case migration(toSchemaVersion: Int)
        /// ``StoreConfiguration/deleteIfMigrationNeeded``: the schema needs a migration that is
        /// not allowed (`reason` says why), so every object was deleted.
        case reset(reason: String)
    }

    /// One thing discarded.
    public enum Loss: Sendable, Equatable {
        /// A model the schema removed, with its objects; for a reset, every model the store had.
        case model(String, objects: Int)
        /// A stored property the schema removed (or made one that holds no values), with its
        /// values. `model` is the model's name in the new schema.
        case property(model: String, property: String)
        /// The values of a property whose type changed to one its stored values cannot be read
        /// as: each object has the property's default instead.
        case values(model: String, property: String, from: PropertyType, to: PropertyType)
        /// The nulls of a property made required: each of the `objects` that held null has the
        /// property's default instead.
        case nulls(model: String, property: String, objects: Int)
    }

    public var cause: Cause
    /// For a migration: each model of the new schema in order (its properties' values, then
    /// its removed properties), then the removed models. For a reset: the store's models.
    public var losses: [Loss]

    public init(cause: Cause, losses: [Loss]) {
        self.cause = cause
        self.losses = losses
    }
}
