#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How to open a ``Store``: what Realm's `Realm.Configuration` holds.
///
/// ```swift
/// var config = StoreConfiguration(path: "app.trove")
/// config.schema = try Schema(contentsOf: URL(fileURLWithPath: "Schemas/People.json"))
/// let store = try Store(configuration: config)
/// ```
public struct StoreConfiguration: Sendable {
    /// The file, or nil for an in-memory store.
    public var path: String?
    /// For an in-memory store: stores opened with the same identifier in one process share
    /// their data (while one is open). Nil: a private in-memory store.
    public var inMemoryIdentifier: String?
    /// A 64-byte key to encrypt the file with AES-256-GCM.
    public var encryptionKey: [UInt8]?
    /// Open read-only: writes throw and the file is never modified.
    public var readOnly = false
    /// The schema to apply; nil opens with the schema stored in the file.
    public var schema: Schema?
    /// Called inside the migration transaction when the stored schema version is lower than
    /// ``schema``'s and the change needs it.
    public var migration: (@Sendable (Migration) throws -> Void)?
    /// Wipe the store instead of failing when ``schema`` needs a migration that is not allowed:
    /// changes that need a higher `schemaVersion` than the schema has, or a `schemaVersion`
    /// lower than the store's. Every object is deleted and the store starts from the schema;
    /// ``Store/migrationLosses`` lists the models deleted, with their objects.
    ///
    /// A migration that a higher `schemaVersion` allows runs as it does without this, and keeps
    /// the data: unlike Realm's `deleteRealmIfMigrationNeeded`, which deletes the file whenever
    /// a migration would run. A read-only open never wipes: it throws
    /// ``StoreError/migrationRequired(_:)``.
    public var deleteIfMigrationNeeded = false
    /// `.durable` (default): a commit returns once on disk; `.noSync` for bulk loads.
    public var durability: TroveDurability = .durable
    /// Shrink the file after a commit that leaves it (1 MiB or more) over 40% free, as
    /// ``Store/vacuum()`` does. On by default.
    public var compactsAutomatically = true
    /// Asked once as the store opens for writing, with the file's size and the bytes its data
    /// uses (Realm's `shouldCompactOnLaunch`); true runs ``Store/vacuum()`` before the open
    /// returns. Nil (the default) asks nothing.
    public var shouldCompactOnLaunch: (@Sendable (_ totalBytes: UInt64, _ usedBytes: UInt64) -> Bool)?
    /// How long a write waits for the writer lock while another writer (another process, or
    /// another thread or ``Store`` of this one) holds it, before it throws
    /// ``StoreError/StorageFailure/writerBusy(path:holder:waited:)``. Nil (the default) waits
    /// until the lock is free, as Realm does: only a write transaction ever holds it, and the
    /// kernel frees it when its process dies, so a wait ends when that writer does, and an app
    /// need not retry every write that meets another. `.zero` fails at once (SQLite's
    /// default); a duration bounds the wait (SQLite's and GRDB's busy timeout).
    /// ``Store/busyTimeout`` changes it on an open store.
    public var busyTimeout: Duration?
    /// Called once, with the pid of the process holding the writer lock when known, when a
    /// write has waited one second for it: for a message such as the shell's.
    public var onLongWriterWait: (@Sendable (_ holder: Int32?) -> Void)?

    public init(path: String? = nil, schema: Schema? = nil) {
        self.path = path
        self.schema = schema
    }

    /// An in-memory store shared by every configuration with this identifier.
    public static func inMemory(identifier: String? = nil, schema: Schema? = nil) -> StoreConfiguration {
        var c = StoreConfiguration(path: nil, schema: schema)
        c.inMemoryIdentifier = identifier
        return c
    }
}

/// When a commit reaches the disk.
public enum TroveDurability: Sendable {
    case durable
    case noSync
}
