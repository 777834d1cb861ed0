import Synchronization
import Trove

/// The schemas derived from model types (``Trove/Schema/init(_:schemaVersion:)``), by type:
/// what a typed fetch from an ``Trove/InMemoryRepository`` needs each time, derived once.
enum DerivedSchemaCache {
    private static let schemas = Mutex<[ObjectIdentifier: Schema]>([:])

    /// The schema of `type` and of every model it links to.
    static func schema<T: PersistentModel>(of type: T.Type) throws -> Schema {
        if let schema = schemas.withLock({ $0[ObjectIdentifier(type)] }) { return schema }
        // Derived outside the lock: two threads may both derive it, to the same value.
        let schema = try Schema(type)
        schemas.withLock { $0[ObjectIdentifier(type)] = schema }
        return schema
    }
}
