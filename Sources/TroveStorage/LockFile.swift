import Atomics
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The lock file beside a store (`PATH-lock`): shared memory for every process that opens it.
///
/// It holds the newest committed transaction id and a table of reader slots. A reader publishes
/// the snapshot it reads in its slot; the writer never reuses a page that the oldest published
/// snapshot can still see. Liveness comes from open-file-description (OFD) byte locks, which the
/// kernel drops when a process dies: a slot whose lock byte is free belongs to nobody, so a
/// crashed reader never pins pages for ever. Its layout and locks are stated in
/// `StorageProtocol.swift`.
///
/// The complete-commit record survives the reset by a first opener: it lets an open skip
/// recovery's checks when the newest commit was written whole since the machine booted.
final class LockFile: @unchecked Sendable {
    /// The magic names the layout, so processes of builds with another layout never share a
    /// table: version 1 ("TROVELCK") checks no version, version 2 ("TROVELK2") lacks the commit
    /// log's position, and version 3 has that position but keeps out the builds of version 2,
    /// which write metas without a store id and logs without deltas, whose commits to a shared
    /// generation the next replay would refuse. Version 4 adds `liveLock`, which builds of
    /// version 3 do not hold: an opener of version 4 would take their table for one nobody
    /// finished.
    static let magic: UInt64 = 0x344B_4C45_564F_5254 // "TROVELK4"
    static let version: UInt32 = 4
    static let headerSize = 128
    static let slotSize = 64
    static let initLock: Int64 = 1 << 32
    static let writerLock: Int64 = (1 << 32) + 1
    /// Held shared by every opener that has finished opening: a table that no live opener
    /// holds it for is one that nobody finished (see `takeInitLock`).
    static let liveLock: Int64 = (1 << 32) + 2
    static let readerLockBase: Int64 = (1 << 32) + 16

    let path: String
    let fd: Int32
    let slots: Int
    let base: UnsafeMutableRawPointer
    let length: Int
    /// The opening process, which each write transaction records as the writer's and each
    /// claimed reader slot as its owner's: read once, since `getpid` is a system call of its
    /// own (glibc keeps no copy), one per small commit.
    private let pid = UInt64(getpid())
    /// True when this opener found no other opener: it reset the table and must run recovery.
    private(set) var isFirstOpener = false
    /// The complete-commit record as the first opener found it, before the reset.
    private(set) var inheritedCompleteCommit: CompleteCommit?

    private let poolLock = Lock()
    private var ownedFree: [Int] = []
    private var owned: Set<Int> = []

    /// Opens (creating if needed) the lock file at `path`; nil path means an anonymous one.
    init(path: String?, slots: Int) throws {
        self.slots = slots
        self.path = path ?? "(memory)"
        let fd: Int32
        if let path {
            fd = liftedAboveStandardStreams(open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644))
        } else {
            fd = anonymousFile("trove-lock")
        }
        if fd < 0 { throw StorageError.io(operation: "open lock file", path: self.path, errno: errno) }
        self.fd = fd
        length = LockFile.headerSize + slots * LockFile.slotSize

        do {
            isFirstOpener = try LockFile.takeInitLock(fd, path: self.path)
        } catch {
            LockFile.closeReleasingLocks(fd, path: self.path)
            throw error
        }
        var st = stat()
        fstat(fd, &st)
        // Only when the size is wrong: `ftruncate` to the same size still writes the inode's
        // times, a journalled metadata update on every one-shot command.
        if isFirstOpener, Int(st.st_size) != length {
            if ftruncate(fd, off_t(length)) != 0 {
                let e = errno; LockFile.closeReleasingLocks(fd, path: self.path)
                throw StorageError.io(operation: "ftruncate", path: self.path, errno: e)
            }
            st.st_size = off_t(length)
        }
        // Checked before mapping: a mapping past the end of the file faults when touched.
        guard Int(st.st_size) >= length else {
            LockFile.closeReleasingLocks(fd, path: self.path)
            throw StorageError.invalidArgument("\(self.path) is shorter (\(st.st_size) bytes) than a lock table of \(slots) readers (\(length) bytes)")
        }
        guard let p = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            let e = errno; LockFile.closeReleasingLocks(fd, path: self.path)
            throw StorageError.io(operation: "mmap lock file", path: self.path, errno: e)
        }
        base = p
        if isFirstOpener {
            if base.load(fromByteOffset: 0, as: UInt64.self) == LockFile.magic {
                inheritedCompleteCommit = CompleteCommit(
                    txnid: base.load(fromByteOffset: 24, as: UInt64.self),
                    digest: base.load(fromByteOffset: 32, as: UInt64.self),
                    bootID: (base.load(fromByteOffset: 48, as: UInt64.self), base.load(fromByteOffset: 56, as: UInt64.self)))
            }
            memset(base, 0, length)
            // The record stays true across the reset (the page cache still holds that commit),
            // and an open that fails must not make the next one think the machine rebooted.
            if let known = inheritedCompleteCommit { store(known) }
            base.storeBytes(of: LockFile.magic, toByteOffset: 0, as: UInt64.self)
            base.storeBytes(of: LockFile.version, toByteOffset: 8, as: UInt32.self)
            base.storeBytes(of: UInt32(slots), toByteOffset: 12, as: UInt32.self)
        } else {
            guard base.load(fromByteOffset: 0, as: UInt64.self) == LockFile.magic,
                  base.load(fromByteOffset: 8, as: UInt32.self) == LockFile.version,
                  base.load(fromByteOffset: 12, as: UInt32.self) == UInt32(slots) else {
                // `self` is whole: the throw runs `deinit`, which unmaps and closes, once.
                // Releasing them here too would release them twice, and another thread may
                // have mapped or opened the same address or descriptor number in between.
                throw StorageError.invalidArgument("\(self.path) is not a Trove lock file of this version")
            }
        }
    }

    deinit {
        munmap(base, length)
        LockFile.closeReleasingLocks(fd, path: path)
    }

    /// Closes `fd` after releasing every lock this opener holds. Closing alone would not: an
    /// OFD lock belongs to the open file description, which a process forked meanwhile (any
    /// thread that spawns a program) shares until it execs, so the store would stay "open"
    /// (first opener, last opener, key change) for as long as that child takes to get there.
    private static func closeReleasingLocks(_ fd: Int32, path: String) {
        var fl = flock()
        fl.l_type = Int16(F_UNLCK)
        fl.l_whence = Int16(SEEK_SET)
        fl.l_start = 0
        fl.l_len = 0   // to the end of every offset: the init, writer, live and slot locks
        _ = fcntl(fd, F_OFD_SETLK, &fl)
        _ = close(fd)
        LockFileProbe.shared.record(path) { $0.releases += 1 }
    }

    /// Takes the init lock: exclusively without waiting as the first opener (true), or else
    /// shared, once the first opener has finished. The table is trusted only while an opener
    /// that finished opening is alive to vouch for it (it holds `liveLock`): a first opener that
    /// failed (a wrong key, a corrupt file) or was killed, before its reset of an old table as
    /// much as after, leaves none, and whoever waited for it tries to be the first opener in
    /// its place. Until it can (other openers that waited hold the lock shared for their own
    /// check), it backs off, 50 µs doubling to 10 ms, so that waiters do not spin against each
    /// other. The lock cannot be upgraded in the kernel instead: two openers each holding it
    /// shared and each waiting to hold it exclusively would wait for ever, as OFD locks detect
    /// no deadlock. A table of another layout that another opener holds the init lock for is
    /// left to the caller's check, which refuses it.
    private static func takeInitLock(_ fd: Int32, path: String) throws -> Bool {
        var pause: UInt64 = 50_000
        while true {
            LockFileProbe.shared.record(path) { $0.initLockTries += 1 }
            if try lock(fd, initLock, exclusive: true, wait: false) { return true }
            _ = try lock(fd, initLock, exclusive: false, wait: true)
            if isHeldByOthers(fd, liveLock) { return false }
            // Another layout is refused while its builds may have the store open (they hold
            // the init lock shared); with no other holder it is a table a first opener was
            // killed before resetting, as after an upgrade.
            if isOtherLayout(fd), isHeldByOthers(fd, initLock) { return false }
            unlock(fd, initLock)
            sleep(nanoseconds: pause)
            pause = min(pause * 2, 10_000_000)
        }
    }

    /// Sleeps `nanoseconds` (under a second), signals or not.
    static func sleep(nanoseconds: UInt64) {
        var ts = timespec(tv_sec: 0, tv_nsec: Int(min(nanoseconds, 999_999_999)))
        var left = timespec()
        while nanosleep(&ts, &left) != 0 && errno == EINTR { ts = left }
    }

    /// Whether the file holds a table of another layout (a build of another version wrote it).
    /// A file too short for a header, or a header still all zeros, is a first opener that
    /// failed before it wrote the table at all.
    private static func isOtherLayout(_ fd: Int32) -> Bool {
        var header: (magic: UInt64, version: UInt32, slots: UInt32) = (0, 0, 0)
        guard pread(fd, &header, 16, 0) == 16, header.magic != 0 else { return false }
        return header.magic != magic || header.version != version
    }

    /// Whether another open file description holds the byte lock at `offset` (F_OFD_GETLK
    /// never reports this one's own locks).
    private static func isHeldByOthers(_ fd: Int32, _ offset: Int64) -> Bool {
        var fl = flock()
        fl.l_type = Int16(F_WRLCK)
        fl.l_whence = Int16(SEEK_SET)
        fl.l_start = off_t(offset)
        fl.l_len = 1
        if fcntl(fd, F_OFD_GETLK, &fl) != 0 { return true }
        return fl.l_type != Int16(F_UNLCK)
    }

    /// Vouches for the table while this opener is open (`liveLock`), and lets other openers in
    /// once the first opener has finished recovery; in that order, so that no opener that
    /// waited finds the init lock free of the first opener before it vouches.
    func finishInitialization() throws {
        _ = try LockFile.lock(fd, LockFile.liveLock, exclusive: false, wait: true)
        if isFirstOpener { _ = try LockFile.lock(fd, LockFile.initLock, exclusive: false, wait: true) }
    }

    private func atomic(at offset: Int) -> UnsafeAtomic<UInt64> {
        UnsafeAtomic<UInt64>(at: (base + offset).assumingMemoryBound(to: UInt64.AtomicRepresentation.self))
    }

    /// The newest committed transaction: what a new reader sees.
    var currentTxnid: UInt64 {
        get { atomic(at: 16).load(ordering: .sequentiallyConsistent) }
        set { atomic(at: 16).store(newValue, ordering: .sequentiallyConsistent) }
    }

    /// A commit known to be whole in the page cache: every page of it and its meta were written
    /// (a writer finished it, or an opener verified it) while the machine ran `bootID`.
    struct CompleteCommit: Equatable {
        var txnid: UInt64
        var digest: UInt64
        var bootID: (UInt64, UInt64)

        static func == (a: CompleteCommit, b: CompleteCommit) -> Bool {
            a.txnid == b.txnid && a.digest == b.digest && a.bootID == b.bootID
        }
    }

    /// Records that the commit `txnid` with `digest` is whole. Only one writer, or a first opener
    /// with no other opener, calls this, so the three fields need no atomicity between them.
    func recordCompleteCommit(txnid: UInt64, digest: UInt64) {
        guard let boot = BootID.current else { return }
        store(CompleteCommit(txnid: txnid, digest: digest, bootID: boot))
    }

    private func store(_ c: CompleteCommit) {
        base.storeBytes(of: 0, toByteOffset: 24, as: UInt64.self)
        base.storeBytes(of: c.digest, toByteOffset: 32, as: UInt64.self)
        base.storeBytes(of: c.bootID.0, toByteOffset: 48, as: UInt64.self)
        base.storeBytes(of: c.bootID.1, toByteOffset: 56, as: UInt64.self)
        base.storeBytes(of: c.txnid, toByteOffset: 24, as: UInt64.self)
    }

    /// Tells watchers in other processes that a commit was published: a `pwrite` of the txnid
    /// (changes through the mapping raise no inotify event; a write through the file does).
    func announce(_ txnid: UInt64) {
        var t = txnid
        _ = pwrite(fd, &t, 8, 40)
    }

    // MARK: Commit log

    /// Where the writer appends to the commit log: its generation and the offset after the
    /// last record (0 when the log must be restarted before the next append). Read and written
    /// only under the writer lock, or by the first opener before it lets others in.
    var commitLogPosition: (generation: UInt64, end: UInt64) {
        get { (base.load(fromByteOffset: 64, as: UInt64.self), base.load(fromByteOffset: 72, as: UInt64.self)) }
        set {
            base.storeBytes(of: newValue.generation, toByteOffset: 64, as: UInt64.self)
            base.storeBytes(of: newValue.end, toByteOffset: 72, as: UInt64.self)
        }
    }

    /// Whether this is the only opener left: takes the init lock, which every other opener
    /// holds shared, exclusively without waiting. Once taken it is held until this opener
    /// closes, so that no process opens the store while the last one tidies up.
    func isLastOpener() -> Bool {
        (try? LockFile.lock(fd, LockFile.initLock, exclusive: true, wait: false)) ?? false
    }

    // MARK: Writer lock

    /// Takes the writer lock, waiting as long as it takes.
    func lockWriter() throws {
        _ = try LockFile.lock(fd, LockFile.writerLock, exclusive: true, wait: true)
        markWriter()
    }

    /// Takes the writer lock unless `deadline` (monotonic nanoseconds; nil: none) passes first,
    /// and says whether it did. A wait with a deadline polls with back-off (50 µs doubling to
    /// 4 ms): a blocking `F_OFD_SETLKW` cannot be given a timeout without a signal, and signals
    /// would reach whatever thread of the host process they pleased. `notice` is called once
    /// with the holder's pid when the wait reaches `noticeAt`; a wait with no deadline left
    /// and no notice to give blocks in the kernel.
    func lockWriter(deadline: UInt64?, noticeAt: UInt64? = nil, notice: ((Int32?) -> Void)? = nil) throws -> Bool {
        if try LockFile.lock(fd, LockFile.writerLock, exclusive: true, wait: false) { markWriter(); return true }
        var noticeAt = notice == nil ? nil : noticeAt
        var pause: UInt64 = 50_000
        while true {
            let now = LockFile.nowNanoseconds()
            if let at = noticeAt, now >= at {
                notice?(writerPID)
                noticeAt = nil
            }
            if let deadline, now >= deadline { return false }
            if deadline == nil && noticeAt == nil { try lockWriter(); return true }
            let next = min(deadline ?? .max, noticeAt ?? .max)
            LockFile.sleep(nanoseconds: min(pause, next - now))
            pause = min(pause * 2, 4_000_000)
            LockFileProbe.shared.record(path) { $0.writerLockRetries += 1 }
            if try LockFile.lock(fd, LockFile.writerLock, exclusive: true, wait: false) { markWriter(); return true }
        }
    }

    func unlockWriter() {
        atomic(at: 80).store(0, ordering: .relaxed)
        LockFile.unlock(fd, LockFile.writerLock)
    }

    /// Records this process as the writer's, for the messages of writers that wait for it
    /// (F_OFD_GETLK names no pid for an OFD lock).
    private func markWriter() { atomic(at: 80).store(pid, ordering: .relaxed) }

    /// The process that holds the writer lock, as it recorded itself; nil when none did.
    var writerPID: Int32? {
        let pid = atomic(at: 80).load(ordering: .relaxed)
        return pid == 0 ? nil : Int32(truncatingIfNeeded: pid)
    }

    // MARK: Reader slots

    func slotTxnid(_ i: Int) -> UnsafeAtomic<UInt64> { atomic(at: LockFile.headerSize + i * LockFile.slotSize) }

    /// A slot this opener owns, claimed from the table when its pool is empty.
    func acquireSlot() throws -> Int {
        poolLock.lock()
        if let i = ownedFree.popLast() { poolLock.unlock(); return i }
        poolLock.unlock()
        for i in 0..<slots where !isOwned(i) {
            guard try LockFile.lock(fd, LockFile.readerLockBase + Int64(i), exclusive: true, wait: false) else { continue }
            let o = LockFile.headerSize + i * LockFile.slotSize
            slotTxnid(i).store(0, ordering: .sequentiallyConsistent)
            base.storeBytes(of: pid, toByteOffset: o + 8, as: UInt64.self)
            poolLock.lock(); owned.insert(i); poolLock.unlock()
            return i
        }
        throw StorageError.readersFull(max: slots)
    }

    private func isOwned(_ i: Int) -> Bool {
        poolLock.lock(); defer { poolLock.unlock() }
        return owned.contains(i)
    }

    func publish(slot i: Int, txnid: UInt64) {
        let o = LockFile.headerSize + i * LockFile.slotSize
        base.storeBytes(of: LockFile.nowNanoseconds(), toByteOffset: o + 16, as: UInt64.self)
        slotTxnid(i).store(txnid, ordering: .sequentiallyConsistent)
    }

    func releaseSlot(_ i: Int) {
        slotTxnid(i).store(0, ordering: .sequentiallyConsistent)
        poolLock.lock(); ownedFree.append(i); poolLock.unlock()
    }

    /// The oldest snapshot any live reader holds, and when it started; a dead reader's slot is
    /// cleared on the way (its lock byte is free).
    func oldestReader() -> (txnid: UInt64, startedNanoseconds: UInt64)? {
        var oldest: (UInt64, UInt64)? = nil
        for i in 0..<slots {
            let t = slotTxnid(i).load(ordering: .sequentiallyConsistent)
            if t == 0 { continue }
            if let o = oldest, t >= o.0 { continue }
            if !isSlotAlive(i) {
                _ = slotTxnid(i).compareExchange(expected: t, desired: 0, ordering: .sequentiallyConsistent)
                continue
            }
            oldest = (t, base.load(fromByteOffset: LockFile.headerSize + i * LockFile.slotSize + 16, as: UInt64.self))
        }
        return oldest
    }

    /// Whether a live opener holds slot `i`'s lock byte. F_OFD_GETLK never reports our own
    /// locks as conflicts, so slots this opener claimed are answered from `owned`.
    private func isSlotAlive(_ i: Int) -> Bool {
        poolLock.lock()
        let mine = owned.contains(i)
        poolLock.unlock()
        if mine { return true }
        return LockFile.isHeldByOthers(fd, LockFile.readerLockBase + Int64(i))
    }

    // MARK: fcntl

    static let F_OFD_GETLK: Int32 = 36
    static let F_OFD_SETLK: Int32 = 37
    static let F_OFD_SETLKW: Int32 = 38

    /// Takes a byte lock; returns false if `wait` is false and another description holds it.
    static func lock(_ fd: Int32, _ offset: Int64, exclusive: Bool, wait: Bool) throws -> Bool {
        var fl = flock()
        fl.l_type = Int16(exclusive ? F_WRLCK : F_RDLCK)
        fl.l_whence = Int16(SEEK_SET)
        fl.l_start = off_t(offset)
        fl.l_len = 1
        while true {
            if fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl) == 0 { return true }
            if errno == EINTR { continue }
            if !wait && (errno == EAGAIN || errno == EACCES) { return false }
            throw StorageError.io(operation: "fcntl lock", path: "lock file", errno: errno)
        }
    }

    static func unlock(_ fd: Int32, _ offset: Int64) {
        var fl = flock()
        fl.l_type = Int16(F_UNLCK)
        fl.l_whence = Int16(SEEK_SET)
        fl.l_start = off_t(offset)
        fl.l_len = 1
        _ = fcntl(fd, F_OFD_SETLK, &fl)
    }

    static func nowNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
