#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import TroveStorage
#if canImport(Glibc)
import Glibc
#endif

/// An object database: models from a schema, objects with primary keys, indexes, links, lists
/// and inverse relationships, ACID writes and snapshot reads.
///
/// ```swift
/// let store = try Store(configuration: .init(path: "app.trove", schema: schema))
/// try store.write { tx in
///     try tx.insert("Person", ["id": 1, "name": "Ada"])
/// }
/// let name = try store.read { try $0.object("Person", primaryKey: 1)?.string("name") }
/// ```
///
/// A `Store` is safe to share between threads. Writes are serialized (across processes too);
/// reads never wait for them. A write nested in another on the same thread joins it.
public final class Store: @unchecked Sendable {
    public let configuration: StoreConfiguration
    let storage: Storage
    private(set) var layout: StoreLayout
    /// The schema the store was opened with (or found in the file).
    public var schema: Schema { layout.schema }
    /// What this open discarded to apply ``StoreConfiguration/schema``: what a migration did not
    /// keep (removed models with their objects, removed properties, the values of properties
    /// whose type changed), before ``StoreConfiguration/migration`` ran; or every model a
    /// ``StoreConfiguration/deleteIfMigrationNeeded`` reset deleted, with its objects. Nil when
    /// nothing was discarded. An app should report it; the `trove` shell prints it as a warning.
    public private(set) var migrationLosses: MigrationLosses?

    private let state = Lock()
    private var activeWrite: (thread: pthread_t, tx: Transaction)?
    /// The threads running ``vacuum()``, whose commits commit observers leave unreported.
    private var vacuuming: [pthread_t] = []
    private var observers: [UUID: @Sendable (StoreCommit) -> Void] = [:]
    /// The threads reporting a commit to the observers, each with the commits its observers
    /// made meanwhile, reported next.
    private var notifying: [(thread: pthread_t, pending: [StoreCommit])] = []
    let backgroundQueue = DispatchQueue(label: "trove.store.background", qos: .userInitiated, attributes: .concurrent)

    static let metaTree = "_trove"
    /// The object layer's format, stored in the meta tree with the schema: what its trees
    /// hold. A store of a newer one is refused at open. Narrower encodings of the same trees
    /// ride on the storage format instead (`Meta.formatVersion`), which every build checks.
    static let formatVersion: Int64 = 1

    /// Opens (or creates) a store and applies the configuration's schema, migrating if needed.
    public init(configuration: StoreConfiguration) throws {
        self.configuration = configuration
        var options = StorageOptions()
        options.readOnly = configuration.readOnly
        options.encryptionKey = configuration.encryptionKey
        options.durability = configuration.durability == .durable ? .durable : .noSync
        options.compactsAutomatically = configuration.compactsAutomatically
        options.busyTimeout = configuration.busyTimeout
        options.onLongWriterWait = configuration.onLongWriterWait
        do {
            if let path = configuration.path {
                storage = try Storage(path: path, options: options)
            } else {
                storage = try MemoryStores.shared.storage(identifier: configuration.inMemoryIdentifier, options: options)
            }
        } catch let e as StorageError {
            throw StoreError(e)
        }
        layout = StoreLayout(schema: try! Schema(models: []), ids: [:], nextModelID: 1)
        (layout, migrationLosses) = try SchemaInstaller(store: self).install()
        if !configuration.readOnly, let shouldCompact = configuration.shouldCompactOnLaunch {
            let s = try statistics()
            if shouldCompact(s.fileBytes, UInt64(s.usedPages) * UInt64(s.pageSize)) { try vacuum() }
        }
    }

    /// Opens the store at `path` with `schema` (or the schema stored in it).
    public convenience init(path: String, schema: Schema? = nil) throws {
        try self.init(configuration: StoreConfiguration(path: path, schema: schema))
    }

    /// How long a write waits for another writer before it throws
    /// ``StoreError/StorageFailure/writerBusy(path:holder:waited:)``; nil waits until that
    /// writer is done. Starts as ``StoreConfiguration/busyTimeout``; a change applies to the
    /// next write.
    public var busyTimeout: Duration? {
        get { storage.busyTimeout }
        set { storage.busyTimeout = newValue }
    }

    // MARK: Transactions

    /// Runs `body` on a snapshot of the newest commit.
    public func read<R>(_ body: (Snapshot) throws -> R) throws -> R {
        let s = try beginRead()
        defer { s.end() }
        do { return try body(s) } catch { throw StoreError.wrapping(error) }
    }

    /// Starts a snapshot; end it with ``Snapshot/end()`` when done (a live snapshot keeps the
    /// pages it sees from being reused).
    public func beginRead() throws -> Snapshot {
        do {
            return Snapshot(store: self, transaction: try storage.beginRead())
        } catch let e as StorageError {
            throw StoreError(e)
        }
    }

    /// Runs `body` in a write transaction and commits it, returning what `body` returns (for
    /// example the primary keys it wrote). If `body` throws, nothing is written. A `write`
    /// nested inside another on the same thread runs in the enclosing transaction: when it
    /// throws and the outer body catches the error and goes on, what it wrote before throwing
    /// commits with the rest. (A `PostgresStore.atomically` unit nested in another has a
    /// savepoint, and undoes its own writes when it throws.)
    @discardableResult
    public func write<R>(_ body: (Transaction) throws -> R) throws -> R {
        if configuration.readOnly { throw StoreError.readOnly }
        state.lock()
        if let active = activeWrite, pthread_equal(active.thread, pthread_self()) != 0 {
            let tx = active.tx
            state.unlock()
            return try body(tx)
        }
        state.unlock()

        let tx = try startWriteTransaction()
        do {
            let result = try body(tx)
            let changes = committedChanges(tx)
            do {
                try tx.writeTx.commit()
            } catch let e as StorageError {
                throw StoreError(e)
            }
            tx.isLive = false
            // Ended before observers run: a write they make is a transaction of its own.
            endActiveWrite(tx)
            tx.endUndoHandlers(undone: false)
            if !changes.isEmpty { notify(StoreCommit(version: tx.writeTx.snapshotID + 1, changes: changes)) }
            return result
        } catch {
            tx.isLive = false
            tx.writeTx.abort()
            endActiveWrite(tx)
            tx.endUndoHandlers(undone: true)
            throw StoreError.wrapping(error)
        }
    }

    /// Starts a write transaction that stays open across calls, for callers that cannot wrap
    /// their writes in one closure (the shell's `begin` ... `commit`). End it with
    /// ``Transaction/commit()`` or ``Transaction/rollback()``; until then ``write(_:)`` on
    /// this thread joins it, and other writers (threads and processes) wait.
    public func beginWrite() throws -> Transaction {
        if configuration.readOnly { throw StoreError.readOnly }
        state.lock()
        if let active = activeWrite, pthread_equal(active.thread, pthread_self()) != 0 {
            state.unlock()
            throw StoreError.invalidArgument("a write transaction is already open on this thread")
        }
        state.unlock()
        let tx = try startWriteTransaction()
        tx.isExplicit = true
        return tx
    }

    /// Waits for the file's write lock, then registers the transaction as this thread's, so
    /// that nested writes join it.
    private func startWriteTransaction() throws -> Transaction {
        let tx: Transaction
        do {
            tx = Transaction(store: self, transaction: try storage.beginWrite())
        } catch let e as StorageError {
            throw StoreError(e)
        }
        state.lock(); activeWrite = (pthread_self(), tx); state.unlock()
        return tx
    }

    /// Commits or aborts a transaction from ``beginWrite()``.
    func finish(_ tx: Transaction, commit: Bool) throws {
        guard tx.isExplicit else {
            throw StoreError.invalidArgument("only a transaction from beginWrite() is committed by hand; write(_:) commits its own")
        }
        try tx.checkLive()
        tx.isLive = false
        guard commit else {
            tx.writeTx.abort()
            endActiveWrite(tx)
            return tx.endUndoHandlers(undone: true)
        }
        let changes = committedChanges(tx)
        do {
            // Still this thread's write while it commits: the storage announces the commit on
            // this thread, and `CommitObservation` leaves that to `notify`, with the changes.
            try tx.writeTx.commit()
        } catch let e as StorageError {
            tx.writeTx.abort()
            endActiveWrite(tx)
            tx.endUndoHandlers(undone: true)
            throw StoreError(e)
        }
        endActiveWrite(tx)
        tx.endUndoHandlers(undone: false)
        if !changes.isEmpty { notify(StoreCommit(version: tx.writeTx.snapshotID + 1, changes: changes)) }
    }

    /// Ends `tx` as this thread's write: once it has committed or rolled back, before commit
    /// observers run, so that they see no write open (``isWritingOnCurrentThread``) and a
    /// write they make starts a transaction of its own.
    private func endActiveWrite(_ tx: Transaction) {
        state.lock(); if activeWrite?.tx === tx { activeWrite = nil }; state.unlock()
    }

    /// Runs `body` in a write transaction on a background queue, then calls `completion` on
    /// `queue` with its result or error. Objects don't cross threads: return primary keys and
    /// fetch them in the completion with ``Snapshot/objects(_:forPrimaryKeys:)``.
    public func write<R: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> R,
                                   queue: DispatchQueue = .main,
                                   completion: @escaping @Sendable (Result<R, Error>) -> Void) {
        backgroundQueue.async {
            let result = Result { try self.write(body) }
            queue.async { completion(result) }
        }
    }

    /// Runs `body` on a snapshot on a background queue, then calls `completion` on `queue`.
    public func read<R: Sendable>(_ body: @escaping @Sendable (Snapshot) throws -> R,
                                  queue: DispatchQueue = .main,
                                  completion: @escaping @Sendable (Result<R, Error>) -> Void) {
        backgroundQueue.async {
            let result = Result { try self.read(body) }
            queue.async { completion(result) }
        }
    }

    /// Runs `body` in a write transaction off the caller's thread (writes may wait for the
    /// file lock, so they don't run on the cooperative pool).
    @discardableResult
    public func write<R: Sendable>(_ body: @escaping @Sendable (Transaction) throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            backgroundQueue.async { continuation.resume(with: Result { try self.write(body) }) }
        }
    }

    /// Runs `body` on a snapshot off the caller's thread.
    public func read<R: Sendable>(_ body: @escaping @Sendable (Snapshot) throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            backgroundQueue.async { continuation.resume(with: Result { try self.read(body) }) }
        }
    }

    // MARK: Observation

    /// Calls `observer` after every commit made through this `Store`, on the committing
    /// thread, with its changes; the half of ``observeCommits(_:)`` that knows them.
    func addChangeObserver(_ observer: @escaping @Sendable (StoreCommit) -> Void) -> UUID {
        let id = UUID()
        state.lock(); observers[id] = observer; state.unlock()
        return id
    }

    func removeChangeObserver(_ id: UUID) {
        state.lock(); observers[id] = nil; state.unlock()
    }

    /// The newest committed version of the file, whoever committed it.
    public var latestVersion: UInt64 { storage.latestTransactionID }

    /// Whether a write of this `Store` is open on the calling thread: from its start through
    /// its commit or rollback, not while its observers run. Commit observers use it to leave a
    /// commit the storage announces during it to ``addChangeObserver(_:)``, which reports it
    /// with its changes; a repository's save joins such a write.
    var isWritingOnCurrentThread: Bool {
        state.lock(); defer { state.unlock() }
        return activeWrite.map { pthread_equal($0.thread, pthread_self()) != 0 } ?? false
    }

    /// Whether ``vacuum()`` runs on the calling thread: its commits move pages and change no
    /// object, so commit observers are not woken for them.
    var isVacuumingOnCurrentThread: Bool {
        state.lock(); defer { state.unlock() }
        return vacuuming.contains { pthread_equal($0, pthread_self()) != 0 }
    }

    /// Runs `body`, a vacuum, with its commits left unreported (``isVacuumingOnCurrentThread``).
    func vacuumingOnCurrentThread<R>(_ body: () throws -> R) rethrows -> R {
        state.lock(); vacuuming.append(pthread_self()); state.unlock()
        defer {
            state.lock()
            if let i = vacuuming.firstIndex(where: { pthread_equal($0, pthread_self()) != 0 }) { vacuuming.remove(at: i) }
            state.unlock()
        }
        return try body()
    }

    /// The live write transaction open on the calling thread, if any: ``TroveRepository``
    /// fetches through it, to see its writes (a commit observer runs after it ended).
    var writeOnCurrentThread: Transaction? {
        state.lock(); defer { state.unlock() }
        return activeWrite.flatMap { pthread_equal($0.thread, pthread_self()) != 0 && $0.tx.isLive ? $0.tx : nil }
    }

    /// The changes to announce after `tx` commits; built only if someone observes commits (a
    /// large insert's set of keys costs time and memory).
    private func committedChanges(_ tx: Transaction) -> [String: ModelChanges] {
        state.lock()
        let observed = !observers.isEmpty
        state.unlock()
        return observed ? tx.changes.filter { !$0.value.isEmpty } : [:]
    }

    /// Reports `commit` to every observer. A commit made by an observer (a write it starts)
    /// waits until the commit being reported has reached every observer, so that each sees
    /// the commits in order.
    private func notify(_ commit: StoreCommit) {
        let thread = pthread_self()
        state.lock()
        if let i = notifying.firstIndex(where: { pthread_equal($0.thread, thread) != 0 }) {
            notifying[i].pending.append(commit)
            state.unlock()
            return
        }
        notifying.append((thread, []))
        state.unlock()
        var next: StoreCommit? = commit
        while let commit = next {
            state.lock()
            let list = Array(observers.values)
            state.unlock()
            for o in list { o(commit) }
            state.lock()
            let i = notifying.firstIndex { pthread_equal($0.thread, thread) != 0 }!
            next = notifying[i].pending.isEmpty ? nil : notifying[i].pending.removeFirst()
            if next == nil { notifying.remove(at: i) }
            state.unlock()
        }
    }

    /// The path of the file, or nil in memory.
    public var path: String? { configuration.path }
}

/// In-memory stores by identifier: the same identifier in one process is the same store while
/// any `Store` holds it.
final class MemoryStores: @unchecked Sendable {
    static let shared = MemoryStores()
    private let lock = Lock()
    private var stores: [String: WeakStorage] = [:]

    final class WeakStorage { weak var storage: Storage?; init(_ s: Storage) { storage = s } }

    func storage(identifier: String?, options: StorageOptions) throws -> Storage {
        guard let identifier else { return try Storage.inMemory(options: options) }
        lock.lock(); defer { lock.unlock() }
        if let s = stores[identifier]?.storage { return s }
        let s = try Storage.inMemory(options: options)
        stores[identifier] = WeakStorage(s)
        return s
    }
}
