import Foundation
import Testing
@testable import TroveStorage

/// The lock file's init lock: which opener is the first (and runs recovery), and that a
/// closed store is free at once.
@Suite struct LockFileTests {
    /// A store at `path` whose tree "t" holds `count` entries, closed.
    static func makeStore(_ path: String, count: Int = 100) throws {
        let s = try Storage(path: path)
        try s.write { tx in
            let t = try tx.createTree(named: "t")
            for i in 0..<count { try tx.put(t, key(i), bytes("value \(i)")) }
        }
    }

    /// A process started while a store was open shares its lock file's open file description
    /// (here kept past its start, as a fork keeps it until it execs): the store is free once
    /// it closes all the same, for a first opener and for a key change.
    @Test func aClosedStoreIsFreeThoughAProcessStartedMeanwhileSharesItsLockFile() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try Self.makeStore(path)
        let child: DescriptorHolder
        do {
            let s = try Storage(path: path)
            try s.write { tx in try tx.put(try tx.createTree(named: "t"), key(1000), bytes("more")) }
            child = try DescriptorHolder(holding: try #require(s.lockFile).fd)
        }
        defer { child.finish() }
        // Without waiting: had the child kept the closed store's locks, this would block.
        let fd = open(path + "-lock", O_RDWR | O_CLOEXEC)
        defer { close(fd) }
        try #require(try LockFile.lock(fd, LockFile.initLock, exclusive: true, wait: false), "the closed store's init lock is still held")
        LockFile.unlock(fd, LockFile.initLock)

        try Storage.changeEncryptionKey(path: path, to: [UInt8](repeating: 7, count: 64))
        var options = StorageOptions()
        options.encryptionKey = [UInt8](repeating: 7, count: 64)
        let s = try Storage(path: path, options: options)
        #expect(s.openCheck != .none, "not the first opener")
        #expect(try s.read { try $0.dump("t").count } == 101)
    }

    /// A first opener sizes the lock file only when its size is wrong: `ftruncate` to the
    /// same size is still a metadata update, on every one-shot command. The table's reset
    /// writes through the mapping, which inotify does not report, so a modify event here
    /// comes from a truncation.
    @Test func aFirstOpenerLeavesALockFileOfTheRightSizeUntruncated() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try Self.makeStore(path)
        let watch = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        try #require(watch >= 0)
        defer { close(watch) }
        try #require(inotify_add_watch(watch, path + "-lock", UInt32(IN_MODIFY)) >= 0)
        var event = [UInt8](repeating: 0, count: 4096)
        do {
            let s = try Storage(path: path)
            #expect(s.openCheck != .none, "the first opener")
            #expect(try s.read { try $0.dump("t").count } == 100)
            #expect(event.withUnsafeMutableBytes { read(watch, $0.baseAddress!, $0.count) } < 0, "the lock file was truncated")
        }

        // A lock file of another size is sized as before.
        try #require(truncate(path + "-lock", 100) == 0)
        let t = try Storage(path: path)
        #expect(try t.read { try $0.dump("t").count } == 100)
        var st = stat()
        try #require(stat(path + "-lock", &st) == 0)
        #expect(Int(st.st_size) == LockFile.headerSize + StorageOptions().maxReaders * LockFile.slotSize)
    }

    /// A first opener that failed (a wrong key, a damaged file) leaves the table it reset
    /// naming no commit; an opener that waited for it runs recovery in its place.
    @Test func anOpenerThatWaitedForAFirstOpenerThatFailedIsTheFirstOpenerInstead() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try Self.makeStore(path)
        let opener = Opener<(entries: Int, check: Storage.OpenCheck)>()
        do {
            // Resets the table, as every first opener does, and then goes without finishing.
            let failing = try LockFile(path: path + "-lock", slots: StorageOptions().maxReaders)
            #expect(failing.isFirstOpener)
            Thread.detachNewThread {
                opener.result = Result {
                    let s = try Storage(path: path)
                    return (try s.read { try $0.dump("t").count }, s.openCheck)
                }
                opener.done.signal()
            }
            withExtendedLifetime(failing) {
                while !Self.hasWaiter(onLockOf: path + "-lock") { usleep(1000) }
            }
        }
        opener.done.wait()
        let opened = try #require(try opener.result?.get())
        #expect(opened.entries == 100)
        #expect(opened.check != .none, "not the first opener")
    }

    /// A first opener that failed before it wrote the table (a lock file still all zeros)
    /// leaves nothing to trust either: the opener that waited for it takes its place.
    @Test func anOpenerThatWaitedForAFirstOpenerThatWroteNoTableIsTheFirstOpenerInstead() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try Self.makeStore(path)
        let opener = Opener<Int>()
        let lockPath = path + "-lock"
        unlink(lockPath)
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        try #require(try LockFile.lock(fd, LockFile.initLock, exclusive: true, wait: false))
        try #require(ftruncate(fd, off_t(LockFile.headerSize + StorageOptions().maxReaders * LockFile.slotSize)) == 0)
        Thread.detachNewThread {
            opener.result = Result { let s = try Storage(path: path); return try s.read { try $0.dump("t").count } }
            opener.done.signal()
        }
        while !Self.hasWaiter(onLockOf: lockPath) { usleep(1000) }
        close(fd)
        opener.done.wait()
        #expect(try opener.result?.get() == 100)
    }

    /// A first opener killed after it took the init lock but before it reset the table (here
    /// the lock is taken by hand, then let go as the kernel lets a killed process's go) leaves
    /// the table its previous openers used, whose current txnid may name a commit the file
    /// lacks (one only the commit log made durable before the machine stopped). The opener
    /// that waited runs recovery in its place instead of trusting that table.
    @Test func anOpenerThatWaitedForAFirstOpenerKilledBeforeItsResetIsTheFirstOpenerInstead() throws {
        try Self.expectFirstOpenerAfterOneKilledBeforeItsReset { fd in
            var stale: UInt64 = 1_000_000
            return pwrite(fd, &stale, 8, 16) == 8
        }
    }

    /// The same over the table of an older build (the first open after an upgrade): with no
    /// other opener holding the init lock, it is a table nobody finished, not a store that
    /// builds of another version have open, and the opener that waited resets it.
    @Test func anOpenerThatWaitedOverAnOlderLayoutNobodyHoldsIsTheFirstOpenerInstead() throws {
        try Self.expectFirstOpenerAfterOneKilledBeforeItsReset { fd in
            var older: (magic: UInt64, version: UInt32) = (0x334B_4C45_564F_5254, 3) // "TROVELK3"
            return pwrite(fd, &older, 12, 0) == 12
        }
    }

    /// Holds the init lock of a store of 100 entries as a first opener would, lets `leave`
    /// change its table, opens the store on another thread, and lets the lock go once that
    /// opener waits: it must read the store as the first opener.
    static func expectFirstOpenerAfterOneKilledBeforeItsReset(leave: (Int32) -> Bool) throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try makeStore(path)
        let fd = open(path + "-lock", O_RDWR | O_CLOEXEC)
        try #require(fd >= 0)
        try #require(try LockFile.lock(fd, LockFile.initLock, exclusive: true, wait: false))
        try #require(leave(fd))
        let opener = Opener<(entries: Int, check: Storage.OpenCheck)>()
        Thread.detachNewThread {
            opener.result = Result {
                let s = try Storage(path: path)
                return (try s.read { try $0.dump("t").count }, s.openCheck)
            }
            opener.done.signal()
        }
        while !hasWaiter(onLockOf: path + "-lock") { usleep(1000) }
        close(fd)
        opener.done.wait()
        let opened = try #require(try opener.result?.get())
        #expect(opened.entries == 100)
        #expect(opened.check != .none, "not the first opener")
    }

    /// The descriptor of the lock file at `lockPath`, holding its init lock as an opener of an
    /// older build would, with that build's header ("TROVELK3") written over the table's.
    static func holdOlderTable(_ lockPath: String) throws -> Int32 {
        let fd = open(lockPath, O_RDWR | O_CLOEXEC)
        try #require(fd >= 0)
        try #require(try LockFile.lock(fd, LockFile.initLock, exclusive: false, wait: false))
        var older: (magic: UInt64, version: UInt32) = (0x334B_4C45_564F_5254, 3) // "TROVELK3"
        try #require(pwrite(fd, &older, 12, 0) == 12)
        return fd
    }

    /// A table of an older build whose process holds the init lock (it has the store open) is
    /// refused: the two builds cannot share it.
    @Test func aTableOfAnOlderLayoutThatAnOpenerHoldsIsRefused() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try Self.makeStore(path)
        let fd = try Self.holdOlderTable(path + "-lock")
        defer { close(fd) }
        #expect { _ = try Storage(path: path) } throws: { "\($0)".contains("not a Trove lock file of this version") }
    }

    /// A table that is refused is let go once. Its `deinit` unmaps it and closes its
    /// descriptor; a refusal that did both itself as well did them twice, and the second time
    /// undid whatever another thread had meanwhile mapped at that address or opened at that
    /// number (another store's lock table, which faulted at its next write).
    @Test func aRefusedLockFileIsLetGoOnce() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try Self.makeStore(path)
        let lockPath = path + "-lock"
        let fd = try Self.holdOlderTable(lockPath)
        defer { close(fd) }
        LockFileProbe.shared.watch(lockPath)
        defer { LockFileProbe.shared.stopWatching(lockPath) }
        #expect(throws: StorageError.self) { _ = try LockFile(path: lockPath, slots: StorageOptions().maxReaders) }
        #expect(LockFileProbe.shared.counts(of: lockPath).releases == 1)
    }

    /// A lock file shorter than the table (cut by something else while another opener holds
    /// it) is refused before it is mapped: a mapping past the end of the file faults when
    /// touched, and a refused open leaves no mapping behind.
    @Test func aLockFileShorterThanItsTableIsRefusedUnmapped() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try Self.makeStore(path)
        let lockPath = path + "-lock"
        let fd = open(lockPath, O_RDWR | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        // A finished opener, as far as the next one can tell.
        try #require(try LockFile.lock(fd, LockFile.liveLock, exclusive: false, wait: false))
        try #require(try LockFile.lock(fd, LockFile.initLock, exclusive: false, wait: false))
        try #require(ftruncate(fd, 100) == 0)
        #expect { _ = try Storage(path: path) } throws: { "\($0)".contains("is shorter (100 bytes) than a lock table") }
        let mapped = Self.procText("/proc/self/maps").contains(lockPath)
        #expect(!mapped, "the refused lock file is still mapped")
    }

    /// An opener that finds the table unfinished while another opener still holds the init
    /// lock (here, this test, over a lock file cut to nothing) tries again until it can take
    /// that opener's place, sleeping between its tries (50 µs doubling to 10 ms): it never
    /// has made more tries than such sleeps leave room for in the time since it started.
    /// Load only makes it try less often; an opener that tries back to back makes hundreds
    /// in the first millisecond it runs.
    @Test func anOpenerWaitingToTakeOverAnUnfinishedTableSleepsBetweenTries() throws {
        let dir = TempDir()
        defer { dir.cleanup() }
        let path = dir.file("db.trove")
        try Self.makeStore(path)
        let lockPath = path + "-lock"
        let fd = open(lockPath, O_RDWR | O_CLOEXEC)
        defer { close(fd) }
        try #require(try LockFile.lock(fd, LockFile.initLock, exclusive: false, wait: false))
        try #require(ftruncate(fd, 0) == 0)
        LockFileProbe.shared.watch(lockPath)
        defer { LockFileProbe.shared.stopWatching(lockPath) }
        let opener = Opener<Int>()
        let start = LockFile.nowNanoseconds()
        Thread.detachNewThread {
            opener.result = Result { try Storage(path: path).read { try $0.dump("t").count } }
            opener.done.signal()
        }
        var tries = 0
        while tries < 12 {
            usleep(1000)
            tries = LockFileProbe.shared.counts(of: lockPath).initLockTries
        }
        let elapsed = LockFile.nowNanoseconds() - start
        LockFile.unlock(fd, LockFile.initLock)
        opener.done.wait()
        #expect(try opener.result?.get() == 100)
        #expect(tries <= Self.mostTries(sleepingBetweenThemFor: elapsed),
                "the opener tried \(tries) times in \(elapsed / 1_000_000) ms")
    }

    /// The most tries an opener that sleeps 50 µs doubling to 10 ms between them can have
    /// begun `elapsed` nanoseconds after it started.
    static func mostTries(sleepingBetweenThemFor elapsed: UInt64) -> Int {
        var tries = 1
        var slept: UInt64 = 0
        var pause: UInt64 = 50_000
        while slept + pause <= elapsed {
            slept += pause
            tries += 1
            pause = min(pause * 2, 10_000_000)
        }
        return tries
    }

    /// Whether a process waits for a lock on the file at `path` (`/proc/locks` lists waiters
    /// with `->`).
    static func hasWaiter(onLockOf path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else { return false }
        return procText("/proc/locks").split(separator: "\n").contains { $0.contains(" -> ") && $0.contains(":\(st.st_ino) ") }
    }

    /// The whole of a file under `/proc`: `String(contentsOfFile:)` reads only its first 4 kB
    /// there (the files say they are empty, and it reads once).
    static func procText(_ path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
    }
}

/// What an opener on another thread got, set before `done` is signalled.
private final class Opener<T>: @unchecked Sendable {
    var result: Result<T, Error>?
    let done = DispatchSemaphore(value: 0)
}

/// A child process (`cat`, reading a pipe) that holds a descriptor of the open file
/// description `fd` names until ``finish()``.
private final class DescriptorHolder {
    let pid: pid_t
    let input: Int32

    init(holding fd: Int32) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        // Processes other tests start must not keep the child's input open.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(ends[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        // dup2 to another number: the copy does not inherit close-on-exec.
        posix_spawn_file_actions_adddup2(&actions, fd, 200)
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("cat"), nil]
        defer { for a in argv { free(a) } }
        let rc = posix_spawn(&pid, "/bin/cat", &actions, nil, argv, environ)
        guard rc == 0 else { close(ends[1]); throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EINVAL) }
        self.pid = pid
        input = ends[1]
    }

    /// Ends the child (its input closes) and waits for its exit.
    func finish() {
        close(input)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
