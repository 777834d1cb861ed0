/// When a commit reaches the disk.
public enum Durability: Sendable, Equatable {
    /// A commit returns once it is on stable storage (one `fdatasync`). The default.
    case durable
    /// A commit returns once it is in the OS page cache. A process crash loses nothing; an OS
    /// crash or power loss may lose the commits since the last durable one (never more, and never
    /// leaves a torn store): for bulk loads. ``Storage/sync()`` makes everything durable.
    case noSync
}

/// How a store is opened.
public struct StorageOptions: Sendable {
    /// Open read-only: writes fail with ``StorageError/readOnly`` and the file is never modified.
    /// Works on files the process cannot write.
    public var readOnly: Bool = false
    public var durability: Durability = .durable
    /// A 64-byte key (as Realm takes it) to encrypt every page with AES-256-GCM, or nil.
    public var encryptionKey: [UInt8]? = nil
    /// Page size for a new store; an existing store keeps its own. A power of two, 4096...65536.
    public var pageSize: Int = 4096
    /// Reader slots in the lock file: the most concurrent read transactions across all processes.
    public var maxReaders: Int = 254
    /// Dirty pages a write transaction keeps in memory before it writes leaves out early, so that
    /// a huge transaction runs in bounded memory.
    public var maxDirtyBytes: Int = 256 << 20
    /// Verify each page's checksum whenever it is read, not only in ``Storage/verify()`` and
    /// crash recovery. Costs a hash per page visit.
    public var verifyChecksumsOnRead: Bool = false
    /// Run ``Storage/vacuum()`` after a commit that leaves a file of 1 MiB or more over 40%
    /// free, so that the file shrinks back after large deletes and updates. On by default.
    public var compactsAutomatically: Bool = true
    /// How long a write transaction waits for the writer lock while another writer (another
    /// process, or another thread or `Storage` of this one) holds it, before it throws
    /// ``StorageError/writerBusy(path:holder:waited:)``. Nil (the default) waits until the lock
    /// is free, as Realm and LMDB do, whose single writer is this one's: the lock is only ever
    /// held for a write transaction and the kernel frees it when its process dies, so waiting
    /// never deadlocks across processes, and an application need not turn every concurrent
    /// write into an error to retry. `.zero` fails at once, as SQLite does by default; a
    /// duration bounds the wait, as SQLite's and GRDB's busy timeout do.
    public var busyTimeout: Duration? = nil
    /// Called once, with the pid of the process holding the writer lock when known, when a
    /// write transaction has waited one second for it (the shell says who it waits for).
    public var onLongWriterWait: (@Sendable (_ holder: Int32?) -> Void)? = nil

    public init() {}
}
