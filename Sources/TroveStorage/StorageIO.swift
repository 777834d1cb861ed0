#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CTroveSystem

/// Every byte the engine reads from or writes to its data file goes through this protocol, so
/// tests can substitute a file that injects faults, or forgets unsynced writes as a crash would.
///
/// Reads go through a ``StorageMapping`` (a memory view of the file, `mmap` for real files);
/// writes go through `write(_:at:)` and reach stable storage only after `sync()`.
public protocol StorageIO: AnyObject, Sendable {
    /// A name for error messages (the path, for files).
    var name: String { get }
    /// The current size in bytes.
    func size() throws -> UInt64
    /// Reads exactly `buffer.count` bytes at `offset` (short reads past the end fill with zeros).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws
    /// Writes all of `bytes` at `offset`, growing the file as needed. Not durable until `sync()`.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws
    /// Writes `buffers` back to back from `offset`, like one `write(_:at:)` per buffer. Files do
    /// it in one call (`pwritev`); the default writes each buffer in turn.
    func write(contiguous buffers: [UnsafeRawBufferPointer], at offset: UInt64) throws
    /// Makes every completed write durable.
    func sync() throws
    /// Writes `bytes` straight to stable storage, past the page cache (`O_DIRECT | O_DSYNC`):
    /// durable when this returns, without a sync of anything else. `bytes` start at an address
    /// aligned to ``directWriteAlignment``, `offset` and the length are multiples of it.
    /// Returns false, having written nothing, where that is not possible (a file system without
    /// direct I/O, a file in memory, a test file); the caller then writes and syncs.
    func writeDirect(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws -> Bool
    /// Cuts the file to `size` bytes (not durable until `sync()`). The default keeps the file
    /// as it is: a file that cannot shrink only keeps space it no longer needs.
    func truncate(to size: UInt64) throws
    /// A read-only view of the first `length` bytes. `length` may exceed the current size
    /// (room to grow), but only bytes below `size()` may be touched.
    func map(length: UInt64) throws -> StorageMapping
}

/// The alignment of address, offset and length that ``StorageIO/writeDirect(_:at:)`` needs:
/// 4 KiB, a multiple of every disk's logical block size (512 or 4096 bytes).
public let directWriteAlignment = 4096

extension StorageIO {
    /// Keeps the file as it is.
    public func truncate(to size: UInt64) throws {}

    /// No direct writes: the caller writes and syncs.
    public func writeDirect(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws -> Bool { false }

    /// Writes each buffer with `write(_:at:)`, so a test file keeps seeing one write per buffer.
    public func write(contiguous buffers: [UnsafeRawBufferPointer], at offset: UInt64) throws {
        var o = offset
        for b in buffers {
            try write(b, at: o)
            o += UInt64(b.count)
        }
    }
}

/// A read-only memory view of a storage file. It stays valid while referenced, even after the
/// storage has moved on to a larger mapping, so a transaction keeps the one it started with.
public final class StorageMapping: @unchecked Sendable {
    public let base: UnsafeRawPointer
    public let length: UInt64
    private let release: (@Sendable () -> Void)?

    public init(base: UnsafeRawPointer, length: UInt64, release: (@Sendable () -> Void)?) {
        self.base = base
        self.length = length
        self.release = release
    }

    deinit { release?() }
}

/// An unlinked temporary file: memory-backed (in /dev/shm when it exists), gone when closed.
func anonymousFile(_ name: String) -> Int32 {
    var dir = "/dev/shm"
    var info = stat()
    if stat(dir, &info) != 0 || info.st_mode & S_IFMT != S_IFDIR {
        dir = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    }
    var template = Array("\(dir)/\(name)-XXXXXX".utf8CString)
    let fd = liftedAboveStandardStreams(template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) })
    if fd >= 0 {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    }
    return fd
}

/// A file on disk: `pread`/`pwrite`, `fdatasync`, `mmap`.
public final class FileStorageIO: StorageIO, @unchecked Sendable {
    public let name: String
    let fd: Int32
    let writable: Bool
    /// The descriptor opened with `O_DIRECT | O_DSYNC` on the first direct write: nil before,
    /// -1 where the file system refused it. Only the writer, under the writer lock, uses it.
    private var directFD: Int32?

    /// Opens `path`, creating it if `create` is true. Anything but a regular file (a
    /// directory, a device such as `/dev/null`, a pipe) is refused as no store.
    public init(path: String, writable: Bool, create: Bool) throws {
        name = path
        self.writable = writable
        var flags: Int32 = writable ? O_RDWR : O_RDONLY
        if create && writable { flags |= O_CREAT }
        // Non-blocking until it is known to be a regular file: a read-only open of a pipe
        // would wait for a writer.
        flags |= O_CLOEXEC | O_NONBLOCK
        let fd = liftedAboveStandardStreams(open(path, flags, 0o644))
        if fd < 0 { throw StorageError.cannotOpen(path: path, errno: errno) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            let kind = st.st_mode & S_IFMT == S_IFDIR ? "a directory" : "not a regular file"
            close(fd)
            throw StorageError.notATroveFile(path: path, detail: "it is \(kind)")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        self.fd = fd
    }

    /// Whether `path` names the file this object has open, and not another file renamed over
    /// it since (a path that names nothing, or cannot be checked, counts as this file).
    func isFile(at path: String) -> Bool {
        var open = stat(), named = stat()
        guard fstat(fd, &open) == 0, stat(path, &named) == 0 else { return true }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// An anonymous in-memory file (`memfd_create`): the same code path as a real file, with no path.
    public init(anonymousName: String) throws {
        name = anonymousName
        writable = true
        let fd = anonymousFile(anonymousName)
        if fd < 0 { throw StorageError.io(operation: "memfd_create", path: anonymousName, errno: errno) }
        self.fd = fd
    }

    deinit {
        close(fd)
        if let directFD, directFD >= 0 { close(directFD) }
    }

    public func size() throws -> UInt64 {
        var st = stat()
        if fstat(fd, &st) != 0 { throw StorageError.io(operation: "fstat", path: name, errno: errno) }
        return UInt64(st.st_size)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws {
        var done = 0
        while done < buffer.count {
            let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw StorageError.io(operation: "pread", path: name, errno: errno)
            }
            if n == 0 {
                (buffer.baseAddress! + done).initializeMemory(as: UInt8.self, repeating: 0, count: buffer.count - done)
                return
            }
            done += n
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw StorageError.io(operation: "pwrite", path: name, errno: errno)
            }
            done += n
        }
    }

    public func write(contiguous buffers: [UnsafeRawBufferPointer], at offset: UInt64) throws {
        // Stays under every system's IOV_MAX (1024 on Linux and Darwin).
        let batch = 1024
        var start = 0
        var o = offset
        while start < buffers.count {
            let count = min(batch, buffers.count - start)
            let written = withUnsafeTemporaryAllocation(of: iovec.self, capacity: count) { iov -> Int in
                for i in 0..<count {
                    let b = buffers[start + i]
                    iov[i] = iovec(iov_base: UnsafeMutableRawPointer(mutating: b.baseAddress), iov_len: b.count)
                }
                return pwritev(fd, iov.baseAddress, Int32(count), off_t(o))
            }
            if written < 0 && errno != EINTR { throw StorageError.io(operation: "pwritev", path: name, errno: errno) }
            // A short or interrupted call (rare: signals, quotas) finishes buffer by buffer.
            var skip = max(written, 0)
            for i in start..<(start + count) {
                let b = buffers[i]
                if skip >= b.count {
                    skip -= b.count
                } else {
                    try write(UnsafeRawBufferPointer(rebasing: b[skip...]), at: o + UInt64(skip))
                    skip = 0
                }
                o += UInt64(b.count)
            }
            start += count
        }
    }

    public func writeDirect(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws -> Bool {
        if directFD == nil { directFD = openDirect() }
        guard let direct = directFD, direct >= 0 else { return false }
        var done = 0
        while done < bytes.count {
            let n = pwrite(direct, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                // A file system that opens with O_DIRECT but cannot write such blocks says so
                // at the first write, before writing anything: write and sync instead.
                if done == 0 && (errno == EINVAL || errno == EOPNOTSUPP || errno == ENOTSUP) {
                    close(direct)
                    directFD = -1
                    return false
                }
                throw StorageError.io(operation: "pwrite (O_DIRECT)", path: name, errno: errno)
            }
            done += n
        }
        return true
    }

    /// The open flags for direct writes, 0 where the system has none (not Linux).
    private static let directFlags = trove_direct_sync_flags()
    /// Whether this system has direct writes at all; a file system may still refuse them.
    static var systemHasDirectWrites: Bool { directFlags != 0 }

    /// This very file opened again for direct writes, or -1. Through `/proc/self/fd`, not its
    /// path: the path may have changed (a relative one after `chdir`, a file renamed or
    /// replaced), and direct writes to another file would be lost to every reader of this one.
    private func openDirect() -> Int32 {
        guard writable, Self.systemHasDirectWrites else { return -1 }
        let direct = liftedAboveStandardStreams(open("/proc/self/fd/\(fd)", O_WRONLY | O_CLOEXEC | Self.directFlags))
        guard direct >= 0 else { return -1 }
        var a = stat(), b = stat()
        guard fstat(fd, &a) == 0, fstat(direct, &b) == 0, a.st_dev == b.st_dev, a.st_ino == b.st_ino else {
            close(direct)
            return -1
        }
        return direct
    }

    public func sync() throws {
        #if os(Linux)
        let rc = fdatasync(fd)
        #else
        let rc = fsync(fd)
        #endif
        if rc != 0 { throw StorageError.io(operation: "fdatasync", path: name, errno: errno) }
    }

    public func truncate(to size: UInt64) throws {
        while ftruncate(fd, off_t(size)) != 0 {
            if errno != EINTR { throw StorageError.io(operation: "ftruncate", path: name, errno: errno) }
        }
    }

    public func map(length: UInt64) throws -> StorageMapping {
        let len = Int(max(length, 4096))
        guard let p = mmap(nil, len, PROT_READ, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            throw StorageError.io(operation: "mmap", path: name, errno: errno)
        }
        let address = UInt(bitPattern: p)
        return StorageMapping(base: UnsafeRawPointer(p), length: UInt64(len)) {
            munmap(UnsafeMutableRawPointer(bitPattern: address), len)
        }
    }
}
