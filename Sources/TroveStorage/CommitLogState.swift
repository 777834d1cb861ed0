/// The commit log as a `Storage`'s writer sees it: the log, where the next record goes, and
/// what this object knows of the generation it appends to. The protocol these follow is
/// stated in `StorageProtocol.swift`.
///
/// Everything here is read and written only by the writer, under `Storage.writerGate` and the
/// writer lock (or by the first opener, before it lets other openers in).
final class CommitLogState {
    /// A log generation and the offset after its last record; an `end` of 0 means unknown
    /// (a record or a restart was under way), and the log must restart before the next append.
    typealias Position = (generation: UInt64, end: UInt64)

    let log: CommitLog
    /// Where the position is shared with other processes; nil for a store without a lock file
    /// of its own, which keeps the position here.
    private let lockFile: LockFile?
    private var localPosition: Position = (0, 0)
    /// The generation whose header this object wrote, or read and found naming its data file.
    var ownedGeneration: UInt64 = 0
    /// A generation and the txnid of its first record, once known.
    private var firstRecord: (generation: UInt64, txnid: UInt64) = (0, 0)
    /// Whether this object appended a record since it last checkpointed.
    private(set) var loggedSinceCheckpoint = false

    init(log: CommitLog, lockFile: LockFile?) {
        self.log = log
        self.lockFile = lockFile
    }

    /// Where the next record goes.
    var position: Position {
        get { lockFile?.commitLogPosition ?? localPosition }
        set {
            if let lockFile { lockFile.commitLogPosition = newValue } else { localPosition = newValue }
        }
    }

    /// Whether the log may hold records (an unknown position counts, once the log was used).
    var mayHoldRecords: Bool {
        let end = position.end
        if end == 0 { return ((try? log.io.size()) ?? 1) > 0 }
        return end > CommitLog.headerSize
    }

    /// Starts a new, empty generation whose header names the data file `storeID` and its
    /// synced commit `base`; returns the generation. Only after the data file was synced.
    @discardableResult
    func restart(storeID: UInt64, base: UInt64) throws -> UInt64 {
        // Unknown until the new header is durable: a writer that dies here leaves the next
        // one to restart again.
        position = (0, 0)
        let generation = try log.restart(storeID: storeID, base: base)
        position = (generation, CommitLog.headerSize)
        return generation
    }

    /// Notes that the data file was synced and the log holds nothing of this object's.
    func checkpointed() { loggedSinceCheckpoint = false }

    /// Whether generation `generation` follows the data file `storeID`, whose newest commit is
    /// `txnid`: its header names the store and a base no newer than that. A writer appends to
    /// no other log: replay would refuse what it appended.
    func follows(generation: UInt64, storeID: UInt64, txnid: UInt64) throws -> Bool {
        if generation == ownedGeneration { return true }
        guard let header = try log.readHeader(), header.generation == generation,
              let owner = header.owner, owner.storeID == storeID, owner.base <= txnid + 1 else { return false }
        ownedGeneration = generation
        return true
    }

    /// The oldest txnid whose pages a record appended at `position` may log as deltas: every
    /// commit since the generation's first record is in the log, so replay rewrites each page
    /// they wrote before any later record reads it as a delta's source. Nil when the record
    /// will be the generation's first.
    func firstLoggedTxnid(at position: Position) throws -> UInt64? {
        guard position.end > CommitLog.headerSize else { return nil }
        if firstRecord.generation == position.generation { return firstRecord.txnid }
        guard let txnid = try log.firstRecordTxnid(generation: position.generation) else { return nil }
        firstRecord = (position.generation, txnid)
        return txnid
    }

    /// Appends commit `txnid`'s record at `position`; when this returns, the commit is durable.
    func append(txnid: UInt64, extents: [CommitLog.Extent], fileSize: UInt64, at position: Position) throws {
        // Unknown while the record is under way: a writer that dies mid-append may still
        // leave it whole on disk, so the next one must restart, not append.
        self.position = (0, 0)
        let end = try log.append(generation: position.generation, txnid: txnid, extents: extents,
                                 fileSize: fileSize, at: position.end)
        self.position = (position.generation, end)
        if position.end == CommitLog.headerSize { firstRecord = (position.generation, txnid) }
        loggedSinceCheckpoint = true
    }
}
