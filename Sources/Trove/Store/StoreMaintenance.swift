import TroveStorage

/// How a store's file uses its space: what ``Store/statistics()`` reads.
///
/// Copy-on-write never changes a page in place: a write copies the pages it changes and frees
/// the old ones once no snapshot can see them. Later writes reuse free pages, and
/// ``Store/vacuum()`` (run automatically when over 40% of the file is free) moves the data
/// at the end of the file into them and shrinks the file.
public struct StoreStatistics: Sendable, Equatable {
    /// Bytes of the file (of the memory that holds it, for an in-memory store).
    public var fileBytes: UInt64
    public var pageSize: Int
    /// Pages of the latest version, the two meta pages included.
    public var pageCount: Int
    /// Pages the next writes will reuse.
    public var freePages: Int
    /// Pages freed by recent writes that an older snapshot may still read.
    public var pendingPages: Int
    /// Pages holding the latest version's data, indexes and free list.
    public var usedPages: Int { pageCount - freePages - pendingPages }
    /// The latest committed version (``Store/latestVersion``).
    public var version: UInt64

    public init(fileBytes: UInt64, pageSize: Int, pageCount: Int, freePages: Int, pendingPages: Int, version: UInt64) {
        self.fileBytes = fileBytes
        self.pageSize = pageSize
        self.pageCount = pageCount
        self.freePages = freePages
        self.pendingPages = pendingPages
        self.version = version
    }
}

/// What ``Store/vacuum()`` did.
public struct StoreVacuumReport: Sendable, Equatable {
    /// Bytes of the file before.
    public var bytesBefore: UInt64
    /// Bytes of the file after.
    public var bytesAfter: UInt64
    /// Whether an open snapshot (in any process) kept the file from shrinking as far as it
    /// could; a later vacuum shrinks it further.
    public var heldBySnapshots: Bool

    public init(bytesBefore: UInt64, bytesAfter: UInt64, heldBySnapshots: Bool) {
        self.bytesBefore = bytesBefore
        self.bytesAfter = bytesAfter
        self.heldBySnapshots = heldBySnapshots
    }
}

/// A commit that opening a store found failing its checks on disk, and set aside for the
/// one before it: see ``Store/discardedCommit``.
public struct DiscardedCommit: Sendable, Equatable {
    /// The version discarded; nil when the meta page that set it aside holds no meta of this
    /// store, so which version it was is unknown.
    public var version: UInt64?
    /// The version the store opened at instead: the one before, or after commits that did not
    /// wait for the disk (``TroveDurability/noSync``), an older one.
    public var openedVersion: UInt64
    /// The check it failed, naming the page.
    public var reason: String
    /// Whether what failed is the commit's meta page (one of the file's first two pages)
    /// itself: `version` is then what that page says, read unchecked. The next commit
    /// rewrites the page.
    public var metaPageFailed = false
    /// Whether a machine crash while the failed meta page was written can have left it, so
    /// that the commit never returned and nothing promised is lost. False when it is certain
    /// damage: the page is not a meta of this store, or this boot saw that commit return.
    public var metaPageMayBeTorn = false
}

extension Store {
    /// Set when this open found the newest commit on disk failing its checks, and opened an
    /// earlier version instead.
    ///
    /// A crash while a commit was being written does this, and loses nothing that had been
    /// promised: that commit never returned. Damage to the file looks the same, and then a
    /// commit that did return is gone, and the next write reuses its pages. An app should
    /// report it; the `trove` shell prints it as a warning.
    public var discardedCommit: DiscardedCommit? {
        storage.rollback.map {
            DiscardedCommit(version: $0.discarded, openedVersion: $0.openedAt, reason: $0.reason,
                             metaPageFailed: $0.damagedMetaSlot != nil, metaPageMayBeTorn: $0.metaMayBeTorn)
        }
    }

    /// Checks every page of the latest version: checksums, tree order, and that each page is
    /// used exactly once or free. Returns the problems found, each naming its page; empty when
    /// the store is sound.
    public func verify() throws -> [StoreProblem] {
        do { return try storage.verify().problems.map(StoreProblem.init) } catch let e as StorageError { throw StoreError(e) }
    }

    /// How the file uses its space, read from the latest version.
    public func statistics() throws -> StoreStatistics {
        let s: StorageStats
        do { s = try storage.stats() } catch let e as StorageError { throw StoreError(e) }
        return StoreStatistics(fileBytes: s.fileBytes, pageSize: s.pageSize, pageCount: s.pageCount,
                               freePages: s.freePages, pendingPages: s.pendingPages, version: s.transactionID)
    }

    /// Shrinks the file while other readers and writers, in this process or another, go on:
    /// the data at the end of the file moves into free pages nearer its start, in ordinary
    /// commits, and the file is cut back once no snapshot reads its end. A snapshot kept open
    /// (here or in another process) keeps the pages it reads, and can keep the file from
    /// shrinking until it ends. A crash part way leaves the store as its last commit did.
    /// Its commits change no object and wake none of this store's commit observers
    /// (``observeCommits(_:)``).
    ///
    /// - Returns: the file's size before and after.
    @discardableResult
    public func vacuum() throws -> StoreVacuumReport {
        // The write held here would wait for itself.
        guard !isWritingOnCurrentThread else { throw StoreError.invalidArgument("vacuum cannot run inside a write") }
        do {
            let r = try vacuumingOnCurrentThread { try storage.vacuum() }
            return StoreVacuumReport(bytesBefore: r.bytesBefore, bytesAfter: r.bytesAfter, heldBySnapshots: r.heldByReaders)
        } catch let e as StorageError {
            throw StoreError(e)
        }
    }

    /// Writes a compacted copy of the latest version to a new file at `path`, as Realm's
    /// `writeCopy(toFile:encryptionKey:)` does: the copy has no free pages and full pages of
    /// data, so it is as small as the data allows. Other writers, in this process or another,
    /// go on meanwhile; the copy holds the version that was latest at the call, and leaves out
    /// a write transaction that is still open.
    ///
    /// The copy's pages are full, where ``vacuum()`` keeps the pages as they are: to replace
    /// the store with it, stop every writer (a later commit would be lost with the old
    /// file), then replace the file with the copy and remove the old file's `-lock` and
    /// `-log` before any process opens it again.
    ///
    /// - Parameters:
    ///   - path: where to write; nothing may exist there yet.
    ///   - encryptionKey: the copy's 64-byte key, or nil for an unencrypted copy (whatever the
    ///     store's own key), as in Realm.
    /// - Returns: the size of the copy in bytes.
    /// - Throws: ``StoreError/storage(_:)`` if `path` exists or the copy cannot be written; a
    ///   copy that fails part way is removed.
    @discardableResult
    public func writeCopy(toFile path: String, encryptionKey: [UInt8]? = nil) throws -> UInt64 {
        do {
            var options = StorageOptions()
            options.encryptionKey = encryptionKey
            options.pageSize = storage.pageSize
            return try storage.compact(to: path, options: options).bytesAfter
        } catch let e as StorageError {
            throw StoreError(e)
        }
    }
}

extension Store {
    /// Changes the encryption key of the store file at `path` from `currentKey` to `newKey`:
    /// every page is written again with the new key. A nil `currentKey` encrypts a plain
    /// store; a nil `newKey` decrypts one, leaving a plain store.
    ///
    /// The store must be closed everywhere: no `Store` on the file in this process (release
    /// every one first) nor in another. Processes that open it meanwhile wait, then open the
    /// re-keyed file, and need the new key. A copy with the new key is written beside the
    /// file (`PATH-rekey`), synced and verified, then renamed over it: if the process or the
    /// machine stops at any point, the file opens with exactly one of the two keys.
    ///
    /// - Throws: ``StoreError/storage(_:)``: ``StoreError/StorageFailure/inUse(path:)`` when the
    ///   store is open elsewhere, ``StoreError/StorageFailure/wrongEncryptionKey(path:)`` or
    ///   ``StoreError/StorageFailure/keyNeeded(path:)`` when `currentKey` does not open it,
    ///   ``StoreError/StorageFailure/invalidArgument(_:)`` for a key that is not 64 bytes.
    ///   The file is unchanged unless the error came after the rename (a failed sync of the
    ///   directory): then it holds the new key.
    public static func changeEncryptionKey(ofStoreAt path: String, from currentKey: [UInt8]?, to newKey: [UInt8]?) throws {
        var options = StorageOptions()
        options.encryptionKey = currentKey
        do {
            try Storage.changeEncryptionKey(path: path, options: options, to: newKey)
        } catch let e as StorageError {
            throw StoreError(e)
        }
    }
}
