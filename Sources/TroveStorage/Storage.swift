#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// A TroveStorage store: one file of fixed-size pages holding named B+trees of byte keys and
/// values, with one writer and any number of readers across threads and processes.
///
/// ```swift
/// let storage = try Storage(path: "app.trove")
/// try storage.write { tx in
///     let users = try tx.createTree(named: "users")
///     try tx.put(users, Array("ada".utf8), Array("Ada Lovelace".utf8))
/// }
/// let name = try storage.read { tx in try tx.tree(named: "users").flatMap { try tx.get($0, Array("ada".utf8)) } }
/// ```
///
/// The file is copy-on-write: a commit never overwrites a page that a snapshot can see, and a
/// commit is one `fdatasync` (see `StorageProtocol.swift`). A `Storage` is thread-safe;
/// its transactions are used from one thread at a time.
public final class Storage: @unchecked Sendable {
    /// The longest key, in bytes.
    public static let maxKeySize = 511

    public let options: StorageOptions
    let io: StorageIO
    /// Where small durable commits become durable, and where the next record goes (see
    /// `CommitLogState`); nil for stores in memory, read-only opens of stores without one,
    /// and test stores that do without.
    let logState: CommitLogState?
    let lockFile: LockFile?
    let cipher: PageCipher?
    /// The store's page size, fixed when the file was created (``StorageOptions/pageSize``).
    public let pageSize: Int
    /// Where the store lives, for messages.
    public var path: String { io.name }

    private let state = Lock()
    private var currentMapping: StorageMapping
    private var latestMeta: Meta
    private var cachedFreeList: (txnid: UInt64, checksum: UInt64, list: FreeList)?
    /// Catalog entries as the last commit through this object left them, so that the next
    /// write transaction opens its trees without a catalog descent each. Valid only for the
    /// snapshot with that txnid and catalog root (another process's commit, or a compaction,
    /// makes it stale).
    private var cachedCatalog: (txnid: UInt64, catalog: TreeInfo, trees: [String: TreeInfo])?
    private var sessionEpoch: UInt32?
    /// What one write transaction leaves the next; read and written only by the writer,
    /// under `writerGate`.
    var writer = WriterState()
    private var syncedThrough: UInt64 = 0
    /// Whether this object has yet to sync before its first write transaction (see
    /// `syncBeforeFirstWrite()`).
    private var firstWriteSyncPending = true
    private var poisoned: String?
    /// Whether the open finished: an open that failed leaves the files as it found them.
    private var isOpen = false
    let writerGate = DispatchSemaphore(value: 1)
    private var busyTimeoutSetting: Duration?
    private var commitObservers: [ObjectIdentifier: @Sendable (UInt64) -> Void] = [:]

    /// What an open that found the newest commit failing its checks fell back to.
    public struct Rollback: Sendable {
        /// The transaction id discarded; nil when the meta slot that set it aside holds no meta
        /// of this store, so the txnid in it means nothing.
        public var discarded: UInt64?
        /// The commit opened instead: the other meta slot, which after no-sync commits may be
        /// several commits older.
        public var openedAt: UInt64
        /// The check the discarded commit failed.
        public var reason: String
        /// The meta slot (0 or 1) that fails its checksum, when that is what set the commit
        /// aside: `discarded` is the txnid that slot names, read without the checksum's say-so.
        /// A machine crash while a commit's meta was written can leave the same as damage does
        /// (``metaMayBeTorn``; see "Recovery" in `StorageProtocol.swift`); the next commit
        /// rewrites the slot.
        /// Nil when the discarded commit's meta was whole and its pages failed.
        public var damagedMetaSlot: Int? = nil
        /// Whether a machine crash tearing the meta of the commit in ``damagedMetaSlot`` can
        /// have left it: the slot has this store's magic, format, page size and store id, and
        /// no record of this boot shows that commit published. Then that commit never
        /// returned. False when the slot is certain damage.
        public var metaMayBeTorn = false
    }

    /// Set when opening found the newest commit incomplete on disk (a crash during its
    /// fdatasync, or damage to the pages it wrote) and rolled back to the one before. A commit
    /// that returned is never rolled back by a crash; damage can look the same, which is why
    /// this is reported.
    public private(set) var rollback: Rollback?
    /// The transaction id ``rollback`` discarded.
    public var rolledBackTransaction: UInt64? { rollback?.discarded }

    /// What the open checked of the newest commit (tests read it).
    enum OpenCheck { case none, verifiedNewestCommit, skippedCompleteCommit }
    /// Set by the first opener: recovery either checked the newest commit's pages or knew them whole.
    private(set) var openCheck = OpenCheck.none

    /// Opens (creating if needed, unless read-only) the store at `path`. Its lock file is
    /// `path-lock`; a read-only open that cannot create it reads without one (then it sees the
    /// store as it was at open, and must not share the file with a writer). Its commit log is
    /// `path-log` (see ``CommitLog``): after a machine crash, only a writable open applies it,
    /// and a read-only open that finds commits there to apply throws. A process forked after
    /// the open shares its locks and reader slots, so the child must open the store anew.
    public convenience init(path: String, options: StorageOptions = StorageOptions()) throws {
        // access(2), not FileManager: a one-shot command would build FileManager for this alone.
        if options.readOnly && access(path, F_OK) != 0 {
            throw StorageError.cannotOpen(path: path, errno: ENOENT)
        }
        var io = try FileStorageIO(path: path, writable: !options.readOnly, create: !options.readOnly)
        try Storage.refuseForeignFile(io, readOnly: options.readOnly)
        let lockPath = path + "-lock"
        var lock: LockFile? = nil
        do {
            lock = try LockFile(path: lockPath, slots: options.maxReaders)
        } catch {
            if !options.readOnly { throw error }
        }
        // A change of key renames a new file over the store while openers wait for the lock
        // file (``changeEncryptionKey(path:options:to:)``): open the file the path names now.
        if lock != nil, !io.isFile(at: path) {
            io = try FileStorageIO(path: path, writable: !options.readOnly, create: false)
        }
        let logPath = path + "-log"
        var log: StorageIO? = nil
        if !options.readOnly {
            log = try FileStorageIO(path: logPath, writable: true, create: true)
        } else if access(logPath, F_OK) == 0 {
            log = try FileStorageIO(path: logPath, writable: false, create: false)
        }
        try self.init(io: io, log: log.map { CommitLog(io: $0) }, lockFile: lock, options: options)
    }

    /// Throws when `io` holds bytes no store begins with (or is empty, for a read-only open),
    /// before a lock file or commit log is created beside a file that is not a store. A file
    /// whose first bytes are still zeros may be a store whose first meta another process is
    /// writing: the open goes on, and meets it under the writer lock.
    private static func refuseForeignFile(_ io: StorageIO, readOnly: Bool) throws {
        let size = try io.size()
        if size == 0 {
            if readOnly { throw StorageError.notATroveFile(path: io.name, detail: "the file is empty") }
            return
        }
        var head = [UInt8](repeating: 0, count: Int(min(size, UInt64(Meta.size))))
        try head.withUnsafeMutableBytes { try io.read(into: $0, at: 0) }
        guard head.contains(where: { $0 != 0 }) else { return }
        do {
            _ = try readMetas(io: io)
        } catch let error as StorageError {
            // Damage to a store is for the open to report, after recovery had its say.
            if case .notATroveFile = error { throw error }
        }
    }

    /// A store that lives in memory only, gone when the last reference goes.
    public static func inMemory(options: StorageOptions = StorageOptions()) throws -> Storage {
        var options = options
        // Syncing a memory file costs nothing, and durable commits let freed pages be reused at once.
        options.durability = .durable
        options.readOnly = false
        let io = try FileStorageIO(anonymousName: "trove-memory")
        return try Storage(io: io, log: nil, lockFile: try LockFile(path: nil, slots: options.maxReaders), options: options)
    }

    /// Opens a store over any ``StorageIO`` (tests use this to inject faults and crashes).
    public convenience init(io: StorageIO, options: StorageOptions = StorageOptions()) throws {
        try self.init(io: io, log: nil, lockFile: try LockFile(path: nil, slots: options.maxReaders), options: options)
    }

    /// Opens a store over `io` with its commit log `log` (tests crash both).
    convenience init(io: StorageIO, log: CommitLog, options: StorageOptions = StorageOptions()) throws {
        try self.init(io: io, log: log, lockFile: try LockFile(path: nil, slots: options.maxReaders), options: options)
    }

    deinit {
        if let logState, isOpen, !options.readOnly { close(logState) }
        if let spare = writer.spareChunk { PageArena.unmapChunk(spare) }
    }

    /// Leaves the commit log empty when this object appended to it, so that a read-only open
    /// after a clean shutdown and a reboot finds nothing to apply (a killed writer leaves that
    /// to the next writable open). The last process to close the store also cuts the log back
    /// to its initial size: a log grows only while the store is in use.
    private func close(_ logState: CommitLogState) {
        let last = lockFile?.isLastOpener() ?? false
        state.lock()
        let healthy = poisoned == nil
        state.unlock()
        let shrink = last && healthy && logState.log.hasGrown
        guard logState.loggedSinceCheckpoint || shrink else { return }
        writerGate.wait()
        defer { writerGate.signal() }
        guard (try? lockFile?.lockWriter()) != nil else { return }
        defer { lockFile?.unlockWriter() }
        do {
            // The checkpoint leaves the log without records: nothing is lost past the cut.
            try checkpoint()
            if shrink { try logState.log.shrink() }
        } catch {
            // Closing cannot report it; the log stays as it was, which replay handles.
        }
    }

    init(io: StorageIO, log: CommitLog?, lockFile: LockFile?, options: StorageOptions) throws {
        self.io = io
        let logState = log.map { CommitLogState(log: $0, lockFile: lockFile) }
        self.logState = logState
        self.lockFile = lockFile
        self.options = options
        busyTimeoutSetting = options.busyTimeout
        guard options.pageSize >= 4096, options.pageSize <= 65536, options.pageSize & (options.pageSize - 1) == 0 else {
            throw StorageError.invalidArgument("page size \(options.pageSize) is not a power of two in 4096...65536")
        }
        if let key = options.encryptionKey, key.count != 64 {
            throw StorageError.invalidArgument("an encryption key is 64 bytes, not \(key.count)")
        }
        let first = lockFile?.isFirstOpener ?? true
        if try io.size() == 0 {
            guard !options.readOnly else { throw StorageError.notATroveFile(path: io.name, detail: "the file is empty") }
            // A log left by an earlier store at this path must never replay into this one.
            if let logState, try logState.log.readHeader() != nil {
                try logState.restart(storeID: 0, base: 0)
            }
            try Storage.initialize(io: io, lockFile: lockFile, options: options)
        } else if first, let logState {
            try Storage.replay(logState, into: io, lockFile: lockFile, readOnly: options.readOnly)
        }
        let candidates = try Storage.readMetas(io: io)
        guard let newest = candidates.first else { throw StorageError.corrupt(page: 0, detail: "no valid meta page") }
        pageSize = Int(newest.pageSize)

        // Encryption must match the file, and the key must open it.
        if newest.isEncrypted {
            guard let key = options.encryptionKey else {
                throw StorageError.keyNeeded(path: io.name)
            }
            let c = try PageCipher(userKey: key, salt: newest.keySalt)
            try c.checkKey(newest.keyCheck, of: io.name)
            cipher = c
        } else {
            if options.encryptionKey != nil {
                throw StorageError.notEncrypted(path: io.name)
            }
            cipher = nil
        }

        let size = try io.size()
        currentMapping = try io.map(length: Storage.mappingLength(for: size))
        latestMeta = newest

        if first {
            // Recovery: the newest meta whose tree passes its checksums wins (a torn commit
            // falls back to the one before it).
            // A commit written whole since the machine booted cannot be torn: skip the checks.
            var chosen: Meta? = nil
            var failures: [Error] = []
            // A file cut short since (which no commit does) would fault the reads past its end.
            if let known = lockFile?.inheritedCompleteCommit, let boot = BootID.current, known.bootID == boot,
               known.txnid == newest.txnid, known.digest == newest.digest,
               newest.pageCount <= size / UInt64(newest.pageSize) {
                chosen = newest
                openCheck = .skippedCompleteCommit
            } else {
                openCheck = .verifiedNewestCommit
                for m in candidates {
                    do {
                        try Verifier(storage: self, meta: m, mapping: currentMapping, fileSize: size).checkCommit()
                        chosen = m
                        break
                    } catch {
                        failures.append(error)
                    }
                }
            }
            guard let chosen else { throw failures.last ?? StorageError.corrupt(page: 0, detail: "no valid meta page") }
            lockFile?.recordCompleteCommit(txnid: chosen.txnid, digest: chosen.digest)
            if chosen.txnid != newest.txnid {
                rollback = Rollback(discarded: newest.txnid, openedAt: chosen.txnid,
                                    reason: failures.first.map { String(describing: $0) } ?? "")
            } else {
                rollback = Storage.newerDamagedMeta(than: chosen, in: currentMapping, fileSize: size,
                                                    published: lockFile?.inheritedCompleteCommit)
            }
            latestMeta = chosen
            lockFile?.currentTxnid = chosen.txnid
        } else {
            latestMeta = try loadMeta(txnid: lockFile!.currentTxnid) ?? newest
        }
        try lockFile?.finishInitialization()
        isOpen = true
    }

    /// The other slot than `chosen`'s, when it fails its checksum and the txnid it names,
    /// read without trusting it, is newer than `chosen`'s, or when it holds no meta of this
    /// store (see "Recovery" in `StorageProtocol.swift`). A meta is one sector, so a torn
    /// write keeps the magic and the fields around it: a slot without them is damage. So is
    /// any failed slot when `published`, a record of this boot, shows a commit newer than
    /// `chosen` returned: no crash has happened since.
    private static func newerDamagedMeta(than chosen: Meta, in map: StorageMapping, fileSize: UInt64,
                                         published: LockFile.CompleteCommit?) -> Rollback? {
        let slot = chosen.slot ^ 1
        let offset = slot * Int(chosen.pageSize)
        guard UInt64(offset + Meta.size) <= fileSize else { return nil }
        let p = UnsafeRawPointer(map.base + offset)
        switch Meta.decode(p) {
        case .damaged where Meta.unverifiedFieldsMatch(p, chosen):
            let named = Meta.unverifiedTxnid(p)
            guard named > chosen.txnid else { return nil }
            var sameBoot = false
            if let known = published, let boot = BootID.current, known.bootID == boot, known.txnid > chosen.txnid { sameBoot = true }
            return Rollback(discarded: named, openedAt: chosen.txnid,
                            reason: StorageError.corrupt(page: UInt64(slot), detail: "the meta page fails its checksum").description,
                            damagedMetaSlot: slot, metaMayBeTorn: !sameBoot)
        case .damaged, .notTrove:
            return Rollback(discarded: nil, openedAt: chosen.txnid,
                            reason: StorageError.corrupt(page: UInt64(slot), detail: "the meta page holds no meta of this store").description,
                            damagedMetaSlot: slot)
        case .valid, .blank, .unsupported:
            return nil
        }
    }

    /// Recovery's first step, after a reboot: the log's records are written into the data
    /// file, which is synced, and the log restarts (see ``CommitLog``). Within one boot the
    /// page cache already holds every write the records repeat, so nothing happens. Records
    /// that do not belong to the data file are left alone, and the open fails.
    private static func replay(_ logState: CommitLogState, into io: StorageIO, lockFile: LockFile?, readOnly: Bool) throws {
        let log = logState.log
        if let known = lockFile?.inheritedCompleteCommit, let boot = BootID.current, known.bootID == boot { return }
        guard let header = try log.readHeader() else { return }
        let found = try log.replay(into: nil)
        if found.records > 0 {
            if let why = CommitLog.mismatch(header, lastTxnid: found.lastTxnid, metas: try Storage.readMetas(io: io)) {
                throw StorageError.foreignCommitLog(path: log.io.name, detail: "its \(found.records) commits cannot be applied to \(io.name): \(why). Put the store they belong to back at this path, or delete \(log.io.name) to discard them")
            }
            guard !readOnly else {
                throw StorageError.io(operation: "open read-only (the commit log \(log.io.name) holds commits not yet copied into the store, as the machine stopped before they were; open the store once for writing to apply them)", path: io.name, errno: EROFS)
            }
            _ = try log.replay(into: io)
            try io.sync()
        } else if readOnly {
            return
        }
        let newest = try Storage.readMetas(io: io).first
        try logState.restart(storeID: newest?.storeID ?? 0, base: newest?.txnid ?? 0)
    }

    static func mappingLength(for size: UInt64) -> UInt64 {
        var length: UInt64 = 1 << 30
        while length < size * 2 { length <<= 1 }
        return length
    }

    /// Writes the first meta of a new store.
    private static func initialize(io: StorageIO, lockFile: LockFile?, options: StorageOptions) throws {
        try lockFile?.lockWriter()
        defer { lockFile?.unlockWriter() }
        guard try io.size() == 0 else { return }
        var m = Meta()
        m.pageSize = UInt32(options.pageSize)
        m.txnid = 1
        m.flags = Meta.flagDurableCommit
        var rng = SystemRandomNumberGenerator()
        m.storeID = rng.next() | 1
        if let key = options.encryptionKey {
            m.flags |= Meta.flagEncrypted
            m.keySalt = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
            m.keyCheck = try PageCipher(userKey: key, salt: m.keySalt).makeKeyCheck()
        }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: options.pageSize * 2, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: options.pageSize * 2)
        m.encode(into: buffer)
        try io.write(UnsafeRawBufferPointer(start: buffer, count: options.pageSize * 2), at: 0)
        try io.sync()
    }

    /// Both meta slots, valid ones only, newest first. Explains a file that is not a store.
    static func readMetas(io: StorageIO) throws -> [Meta] {
        let size = try io.size()
        var buffer = [UInt8](repeating: 0, count: Meta.size)
        func read(_ offset: UInt64) throws -> Meta.DecodeResult {
            guard offset + UInt64(Meta.size) <= size else { return .blank }
            try buffer.withUnsafeMutableBytes { try io.read(into: $0, at: offset) }
            return buffer.withUnsafeBytes { Meta.decode($0.baseAddress!) }
        }
        var metas: [Meta] = []
        var sawTrove = false
        var unsupported: String? = nil
        let first = try read(0)
        var pageSize: UInt64? = nil
        switch first {
        case .valid(var m): m.slot = 0; metas.append(m); pageSize = UInt64(m.pageSize); sawTrove = true
        case .damaged: sawTrove = true
        case .unsupported(let why): unsupported = why; sawTrove = true
        case .notTrove, .blank: break
        }
        let offsets: [UInt64] = pageSize.map { [$0] } ?? [4096, 8192, 16384, 32768, 65536]
        for offset in offsets {
            switch try read(offset) {
            case .valid(var m) where pageSize == nil || UInt64(m.pageSize) == offset:
                m.slot = 1; metas.append(m); sawTrove = true
            case .damaged, .valid: sawTrove = true
            case .unsupported(let why): unsupported = unsupported ?? why; sawTrove = true
            case .notTrove, .blank: continue
            }
            if !metas.isEmpty && metas.count == 2 { break }
            if pageSize == nil && !metas.isEmpty { break }
        }
        if metas.isEmpty {
            if let unsupported { throw StorageError.notATroveFile(path: io.name, detail: unsupported) }
            if !sawTrove {
                if case .blank = first {
                    // Too short to hold a header is not blank: a short text file is no store either.
                    let detail = size < UInt64(Meta.size) ? "\(size) bytes, too short to hold a header" : "no header (the file is blank)"
                    throw StorageError.notATroveFile(path: io.name, detail: detail)
                }
                throw StorageError.notATroveFile(path: io.name, detail: "it does not begin with a Trove header (wrong magic number)")
            }
            throw StorageError.corrupt(page: 0, detail: "both meta pages fail their checksums")
        }
        return metas.sorted { $0.txnid > $1.txnid }
    }

    // MARK: Mapping and metas

    /// The current mapping, grown first if it does not cover `bytes`.
    func mapping(covering bytes: UInt64) throws -> StorageMapping {
        state.lock(); defer { state.unlock() }
        if currentMapping.length >= bytes { return currentMapping }
        currentMapping = try io.map(length: Storage.mappingLength(for: bytes))
        return currentMapping
    }

    private var mapping: StorageMapping {
        state.lock(); defer { state.unlock() }
        return currentMapping
    }

    /// The meta of transaction `txnid`, read from whichever slot holds it, or nil if neither does
    /// (a writer moved on meanwhile).
    func loadMeta(txnid: UInt64) throws -> Meta? {
        state.lock()
        if latestMeta.txnid == txnid { defer { state.unlock() }; return latestMeta }
        let map = currentMapping
        state.unlock()
        // A writer may be overwriting the slot right now (it holds the meta two commits back):
        // copy it out first, so the checksum covers exactly the bytes decoded.
        let copy = UnsafeMutableRawPointer.allocate(byteCount: Meta.size, alignment: 16)
        defer { copy.deallocate() }
        for slot in 0..<2 {
            copy.copyMemory(from: map.base + slot * pageSize, byteCount: Meta.size)
            guard case .valid(var m) = Meta.decode(copy), m.txnid == txnid else { continue }
            m.slot = slot
            state.lock()
            if m.txnid > latestMeta.txnid { latestMeta = m }
            state.unlock()
            return m
        }
        return nil
    }

    // MARK: Transactions

    /// Starts a read transaction on the newest committed snapshot.
    public func beginRead() throws -> ReadTransaction {
        try checkUsable()
        guard let lockFile else {
            state.lock(); defer { state.unlock() }
            return ReadTransaction(storage: self, meta: latestMeta, mapping: currentMapping, slot: nil, isWriter: false)
        }
        let slot = try lockFile.acquireSlot()
        var attempts = 0
        while true {
            attempts += 1
            let t = lockFile.currentTxnid
            lockFile.publish(slot: slot, txnid: t)
            // Re-check after publishing: had a writer moved on before it saw our slot, the
            // pages of snapshot t might already be reused.
            guard lockFile.currentTxnid == t else { continue }
            guard let meta = try loadMeta(txnid: t) else {
                if attempts > 1000 { lockFile.releaseSlot(slot); throw StorageError.corrupt(page: 0, detail: "meta for transaction \(t) not found") }
                continue
            }
            let map = try mapping(covering: meta.pageCount * UInt64(pageSize))
            return ReadTransaction(storage: self, meta: meta, mapping: map, slot: slot, isWriter: false)
        }
    }

    /// Starts the write transaction, waiting for any other writer (thread or process) to finish,
    /// at most ``busyTimeout``; then it throws ``StorageError/writerBusy(path:holder:waited:)``.
    public func beginWrite() throws -> WriteTransaction {
        try checkUsable()
        if options.readOnly { throw StorageError.readOnly }
        try acquireWriter()
        do {
            try syncBeforeFirstWrite()
            var base = try newestMeta()
            if cipher != nil && sessionEpoch == nil { base = try bumpNonceEpoch(base) }
            var freeList = try takeCachedFreeList(for: base) ?? readFreeList(base)
            state.lock()
            let synced = max(syncedThrough, base.syncedThrough)
            state.unlock()
            var oldest = min(base.txnid, synced)
            // Readers can only hold back pages: with nothing to reclaim there is no need to
            // read their slots.
            if freeList.hasPending(upTo: oldest), let reader = lockFile?.oldestReader() { oldest = min(oldest, reader.txnid) }
            freeList.reclaim(upTo: oldest)
            let map = try mapping(covering: base.pageCount * UInt64(pageSize))
            let tx = WriteTransaction(storage: self, meta: base, mapping: map, freeList: freeList, nonceEpoch: sessionEpoch ?? 0)
            state.lock()
            if let c = cachedCatalog, c.txnid == base.txnid, c.catalog == base.catalog { tx.knownTrees = c.trees }
            state.unlock()
            return tx
        } catch {
            releaseWriter()
            throw error
        }
    }

    /// The newest commit may claim a durability its writer never reached: a process that died
    /// in its `fdatasync` leaves the pages in the page cache and a meta that says "durable".
    /// Before a write transaction builds on that claim (reusing pages it lets go), everything
    /// in the page cache is made durable, once per `Storage`. Opening for reading never waits
    /// for the disk: a one-shot `count` or a read-only tool pays no flush.
    private func syncBeforeFirstWrite() throws {
        state.lock()
        let pending = firstWriteSyncPending
        state.unlock()
        guard pending else { return }
        try checkpoint()
        // The writer lock is held: no commit is under way, and every one published is synced.
        let newest = lockFile?.currentTxnid ?? 0
        state.lock()
        firstWriteSyncPending = false
        syncedThrough = max(syncedThrough, newest, latestMeta.txnid)
        state.unlock()
    }

    /// How long a write transaction waits for the writer before it throws
    /// ``StorageError/writerBusy(path:holder:waited:)``; nil waits until the writer is done.
    /// Starts as ``StorageOptions/busyTimeout``; a change applies to the next write transaction.
    public var busyTimeout: Duration? {
        get { state.lock(); defer { state.unlock() }; return busyTimeoutSetting }
        set { state.lock(); busyTimeoutSetting = newValue; state.unlock() }
    }

    /// Takes the writer: this object's gate (other threads), then the lock file's writer lock
    /// (other `Storage`s and processes), within ``busyTimeout``.
    func acquireWriter() throws {
        let start = LockFile.nowNanoseconds()
        let deadline = busyTimeout.map { start &+ Storage.nanoseconds($0) }
        func busy(_ holder: Int32?) -> StorageError {
            .writerBusy(path: io.name, holder: holder, waited: .nanoseconds(Int64(LockFile.nowNanoseconds() - start)))
        }
        func gate(until end: UInt64?) -> Bool {
            guard let end else { writerGate.wait(); return true }
            let now = LockFile.nowNanoseconds()
            let left = end > now ? end - now : 0
            return writerGate.wait(timeout: .now() + .nanoseconds(Int(min(left, UInt64(Int.max))))) == .success
        }
        var notice = options.onLongWriterWait
        let noticeAt = start &+ 1_000_000_000
        var held = false
        if notice != nil, (deadline ?? .max) > noticeAt {
            held = gate(until: noticeAt)
            // Not yet: another thread of this process writes.
            if !held { notice?(getpid()); notice = nil }
        }
        if !held, !gate(until: deadline) { throw busy(getpid()) }
        guard let lockFile else { return }
        do {
            if try !lockFile.lockWriter(deadline: deadline, noticeAt: noticeAt, notice: notice.map { f in { f($0) } }) {
                throw busy(lockFile.writerPID)
            }
        } catch {
            writerGate.signal()
            throw error
        }
    }

    /// `d` in nanoseconds, 0 for a negative one and at most `UInt64.max / 2`, so that a
    /// deadline `now + d` cannot wrap into the past.
    static func nanoseconds(_ d: Duration) -> UInt64 {
        if d <= .zero { return 0 }
        let c = d.components
        if c.seconds >= Int64(UInt64.max / 2 / 1_000_000_000) { return UInt64.max / 2 }
        return UInt64(c.seconds) * 1_000_000_000 + UInt64(c.attoseconds / 1_000_000_000)
    }

    func releaseWriter() {
        lockFile?.unlockWriter()
        writerGate.signal()
    }

    func newestMeta() throws -> Meta {
        guard let lockFile else { state.lock(); defer { state.unlock() }; return latestMeta }
        let t = lockFile.currentTxnid
        guard let m = try loadMeta(txnid: t) else {
            throw StorageError.corrupt(page: 0, detail: "the meta of the newest transaction \(t) is missing")
        }
        return m
    }

    /// The free list the last commit in this process left, if it is the one `meta` names. The
    /// writer takes it, so that its bitmap has one owner and changes in place instead of being
    /// copied; a transaction that does not commit leaves no list, and the next one reads it
    /// from the file.
    private func takeCachedFreeList(for meta: Meta) -> FreeList? {
        state.lock()
        defer { state.unlock() }
        guard let cached = cachedFreeList else { return nil }
        cachedFreeList = nil
        return cached.txnid == meta.txnid && cached.checksum == meta.freeListChecksum ? cached.list : nil
    }

    /// Reads the free list `meta` names, each page checked against the checksum its referrer
    /// recorded.
    func readFreeList(_ meta: Meta) throws -> FreeList {
        let txn = ReadTransaction(storage: self, meta: meta, mapping: try mapping(covering: meta.pageCount * UInt64(pageSize)), slot: nil, isWriter: false)
        return try FreeList(pageSize: pageSize, meta: meta) { try txn.run($0, pages: $1, checksum: $2) }
    }

    /// Writes a meta-only commit that reserves a new nonce epoch for this session, so nothing
    /// it seals can reuse a nonce from a session that crashed.
    private func bumpNonceEpoch(_ base: Meta) throws -> Meta {
        var m = base
        m.txnid = base.txnid + 1
        m.nonceEpoch = base.nonceEpoch + 1
        guard m.nonceEpoch < UInt64(UInt32.max) else { throw StorageError.invalidArgument("nonce epochs exhausted: compact the store into a new file") }
        m.lastSyncedTxnid = base.syncedThrough
        m.flags |= Meta.flagDurableCommit
        m.slot = base.slot ^ 1
        let digest = try writeMeta(m)
        // Through a checkpoint: a replay of older log records must not put back a meta (and its
        // epoch) from before the bump.
        try checkpoint()
        published(m, digest: digest, freeList: nil)
        sessionEpoch = UInt32(m.nonceEpoch)
        return m
    }

    /// Writes `m` to its slot; returns its checksum (``Meta/digest``).
    func writeMeta(_ m: Meta) throws -> UInt64 {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Meta.size, alignment: 16)
        defer { buffer.deallocate() }
        return try writeMeta(m, buffer: buffer)
    }

    /// Writes `m` to its slot from `buffer` (`Meta.size` bytes), which keeps the bytes written.
    func writeMeta(_ m: Meta, buffer: UnsafeMutableRawPointer) throws -> UInt64 {
        m.encode(into: buffer)
        try io.write(UnsafeRawBufferPointer(start: buffer, count: Meta.size), at: UInt64(m.slot * pageSize))
        return buffer.loadUnaligned(fromByteOffset: 504, as: UInt64.self)
    }

    /// Writes the newest meta over the other slot too, and syncs. A compacted copy then keeps
    /// no commit before its one: an open that finds that commit damaged fails, rather than
    /// falling back to the empty store the copy started as and reusing its pages. Only for a
    /// copy no other `Storage` has open: it takes no writer lock.
    func keepOnlyNewestCommit() throws {
        state.lock()
        var m = latestMeta
        state.unlock()
        m.slot ^= 1
        _ = try writeMeta(m)
        try io.sync()
    }

    /// Forgets the cached catalog entries: the committing writer, which holds them too, then
    /// updates them in place and records them again with ``cacheCatalog(_:trees:)``.
    func dropCachedCatalog() {
        state.lock()
        cachedCatalog = nil
        state.unlock()
    }

    /// Records the catalog entries commit `m` left (see `cachedCatalog`).
    func cacheCatalog(_ m: Meta, trees: [String: TreeInfo]) {
        state.lock()
        cachedCatalog = (m.txnid, m.catalog, trees)
        state.unlock()
    }

    /// Makes a committed meta, whose checksum is `digest`, the one new readers see.
    func published(_ m: Meta, digest: UInt64, freeList: FreeList?) {
        state.lock()
        latestMeta = m
        if let freeList { cachedFreeList = (m.txnid, m.freeListChecksum, freeList) }
        if m.flags & Meta.flagDurableCommit != 0 { syncedThrough = max(syncedThrough, m.txnid) }
        let observers = Array(commitObservers.values)
        state.unlock()
        lockFile?.recordCompleteCommit(txnid: m.txnid, digest: digest)
        lockFile?.currentTxnid = m.txnid
        lockFile?.announce(m.txnid)
        for o in observers { o(m.txnid) }
    }

    /// The newest committed transaction id, as any process last published it.
    public var latestTransactionID: UInt64 {
        if let lockFile { return lockFile.currentTxnid }
        state.lock(); defer { state.unlock() }
        return latestMeta.txnid
    }

    func addCommitObserver(_ id: ObjectIdentifier, _ body: @escaping @Sendable (UInt64) -> Void) {
        state.lock(); commitObservers[id] = body; state.unlock()
    }

    func removeCommitObserver(_ id: ObjectIdentifier) {
        state.lock(); commitObservers[id] = nil; state.unlock()
    }

    var lastSynced: UInt64 {
        state.lock(); defer { state.unlock() }
        return syncedThrough
    }

    func poison(_ why: String) {
        state.lock(); poisoned = why; state.unlock()
    }

    private func checkUsable() throws {
        state.lock(); defer { state.unlock() }
        if let poisoned { throw StorageError.io(operation: "an earlier commit failed (\(poisoned)); reopen the store", path: io.name, errno: EIO) }
    }

    /// Makes every commit so far durable (useful after `.noSync` commits). It waits for the
    /// write transaction, at most ``busyTimeout`` (then it throws
    /// ``StorageError/writerBusy(path:holder:waited:)``), so call it outside one, and not from
    /// a commit observer (which runs while the committing writer still holds the store).
    public func sync() throws {
        if options.readOnly {
            try io.sync()
        } else {
            try acquireWriter()
            defer { releaseWriter() }
            try checkpoint()
        }
        state.lock()
        firstWriteSyncPending = false
        syncedThrough = max(syncedThrough, latestMeta.txnid)
        state.unlock()
    }

    // MARK: Commit log

    /// Syncs the data file, then empties the commit log: after this, no record in the log is
    /// older than the data file's durable state, so replay can never undo a later commit.
    /// `restartingLog` starts a new generation even when the log holds no records (one this
    /// object may not append to). Called with the writer lock held.
    func checkpoint(restartingLog: Bool = false) throws {
        try io.sync()
        guard let logState else { return }
        logState.checkpointed()
        if restartingLog || logState.mayHoldRecords { try restartCommitLog() }
    }

    /// Starts a new, empty generation of the commit log, naming this data file. Only after
    /// the data file was synced.
    func restartCommitLog() throws {
        guard let logState else { return }
        let meta = try newestMeta()
        logState.ownedGeneration = try logState.restart(storeID: meta.storeID, base: meta.txnid)
    }

    // MARK: Convenience

    /// Runs `body` in a read transaction and ends it.
    public func read<R>(_ body: (ReadTransaction) throws -> R) throws -> R {
        let tx = try beginRead()
        defer { tx.end() }
        return try body(tx)
    }

    /// Runs `body` in the write transaction and commits it; if `body` throws, nothing changes.
    public func write<R>(_ body: (WriteTransaction) throws -> R) throws -> R {
        let tx = try beginWrite()
        do {
            let r = try body(tx)
            try tx.commit()
            return r
        } catch {
            tx.abort()
            throw error
        }
    }
}
