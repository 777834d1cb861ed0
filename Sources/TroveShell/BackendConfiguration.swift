/// How to open the store, from the command line.
public struct BackendConfiguration: Sendable, Equatable {
    /// A file path, or nil for a transient in-memory store (`:memory:` or no DATABASE).
    public var databasePath: String?
    /// The `--schema` file's path and contents (the shell reads it, so that an unreadable
    /// file is a usage error with exit status 2).
    public var schema: (path: String, text: String)?
    public var readOnly: Bool
    public var resetOnMigration: Bool
    /// The 64-byte key of an encrypted store (`--key-file`); a new store made with one is
    /// encrypted.
    public var encryptionKey: [UInt8]?
    /// How long a write waits for another writer (`--timeout`); nil waits until it is done.
    public var busyTimeout: Duration?

    public init(databasePath: String?, schema: (path: String, text: String)?, readOnly: Bool, resetOnMigration: Bool,
                encryptionKey: [UInt8]? = nil, busyTimeout: Duration? = nil) {
        self.databasePath = databasePath
        self.schema = schema
        self.readOnly = readOnly
        self.resetOnMigration = resetOnMigration
        self.encryptionKey = encryptionKey
        self.busyTimeout = busyTimeout
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.databasePath == b.databasePath && a.schema?.path == b.schema?.path && a.schema?.text == b.schema?.text
            && a.readOnly == b.readOnly && a.resetOnMigration == b.resetOnMigration && a.encryptionKey == b.encryptionKey
            && a.busyTimeout == b.busyTimeout
    }
}
