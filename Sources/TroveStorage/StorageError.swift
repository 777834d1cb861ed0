/// An error from the storage engine. Every case says what went wrong and, where it applies,
/// where in the file (page number, byte offset) it was found.
public enum StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file is not a Trove store (wrong magic), or has a format this build can't read.
    case notATroveFile(path: String, detail: String)
    /// The file is damaged: a checksum failed, a structure is inconsistent, or it is truncated.
    case corrupt(page: UInt64?, detail: String)
    /// The encryption key given does not open the store at `path`.
    case wrongEncryptionKey(path: String)
    /// The store at `path` is encrypted, and no encryption key was given.
    case keyNeeded(path: String)
    /// An encryption key was given for the store at `path`, which is not encrypted.
    case notEncrypted(path: String)
    /// A write was attempted on a read-only store or in a read transaction.
    case readOnly
    /// The key is empty or longer than ``Storage/maxKeySize``.
    case invalidKey(length: Int)
    /// A named tree that does not exist.
    case noSuchTree(String)
    /// The transaction was already committed or aborted.
    case transactionFinished
    /// Every reader slot in the lock file is taken by a live reader.
    case readersFull(max: Int)
    /// The commit log beside the store (`path`) holds commits that do not follow the store's
    /// file: a compacted copy, or an older or newer copy of the store, was put in the store's
    /// place, or the log was cut short or damaged before its last records.
    case foreignCommitLog(path: String, detail: String)
    /// The store at `path` is open elsewhere (another process, or another `Storage` in this
    /// one), and the operation needs it to itself.
    case inUse(path: String)
    /// A write transaction waited ``StorageOptions/busyTimeout`` (`waited`) for the writer lock
    /// of the store at `path`, which the process `holder` held (nil: unknown).
    case writerBusy(path: String, holder: Int32?, waited: Duration)
    /// A file of the store (`path`) could not be opened; `errno` says why (`ENOENT`,
    /// `EACCES`, ...).
    case cannotOpen(path: String, errno: Int32)
    /// An operating-system call failed.
    case io(operation: String, path: String, errno: Int32)
    /// A bad argument (an invalid option, a key of the wrong size, ...).
    case invalidArgument(String)

    public var description: String {
        switch self {
        case let .notATroveFile(path, detail): return "\(path) is not a Trove store: \(detail)"
        case let .corrupt(page, detail):
            if let page { return "database is corrupt at page \(page): \(detail)" }
            return "database is corrupt: \(detail)"
        case let .wrongEncryptionKey(path): return "\(path): wrong encryption key: the key does not open this store"
        case let .keyNeeded(path): return "\(path) is encrypted: an encryption key is needed"
        case let .notEncrypted(path): return "\(path) is not encrypted, but an encryption key was given"
        case .readOnly: return "the store is read-only"
        case let .invalidKey(length): return "invalid key length \(length) (keys are 1...\(Storage.maxKeySize) bytes)"
        case let .noSuchTree(name): return "no tree named '\(name)'"
        case .transactionFinished: return "the transaction has already finished"
        case let .readersFull(max): return "all \(max) reader slots are in use"
        case let .foreignCommitLog(path, detail): return "the commit log \(path) does not fit its store: \(detail)"
        case let .inUse(path): return "\(path) is open in another process (or another Storage): close it there first"
        case let .writerBusy(path, holder, waited): return StorageError.writerBusyMessage(path: path, holder: holder, waited: waited)
        case let .cannotOpen(path, errno): return StorageError.io(operation: "open", path: path, errno: errno).description
        case let .io(operation, path, errno): return "\(operation) failed on \(path): \(String(cString: strerror(errno))) (errno \(errno))"
        case let .invalidArgument(detail): return detail
        }
    }
}

extension StorageError {
    /// The words of ``writerBusy(path:holder:waited:)``, which the layers above repeat.
    public static func writerBusyMessage(path: String, holder: Int32?, waited: Duration) -> String {
        let milliseconds = waited.components.seconds * 1000 + waited.components.attoseconds / 1_000_000_000_000_000
        let who = holder.map { "process \($0)" } ?? "another writer"
        return "\(path) is being written by \(who): gave up waiting for the writer lock after \(milliseconds) ms"
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
