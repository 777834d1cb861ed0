#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TroveStorage

extension StoreError {
    /// Why the file beneath a store failed: what ``StoreError/storage(_:)`` carries, so that a
    /// caller can tell a missing file from a damaged one without reading the message.
    public enum StorageFailure: DescribedError, Equatable, Sendable {
        /// A file of the store (`path`) could not be opened; `errno` says why (`ENOENT`: no
        /// such file, `EACCES`: permission denied, ...).
        case cannotOpen(path: String, errno: Int32)
        /// An operating-system call failed on `path`; `errno` says why (`EROFS`: read-only,
        /// `EIO`: the disk failed, or an earlier commit did and the store must be reopened).
        case system(operation: String, path: String, errno: Int32)
        /// The file is not a Trove store, or has a format this build cannot read.
        case notATroveFile(path: String, detail: String)
        /// The file is damaged: a checksum failed, a structure is inconsistent, or it is
        /// truncated. `page` names where, when known.
        case corrupt(page: UInt64?, detail: String)
        /// The encryption key given does not open the store at `path`.
        case wrongEncryptionKey(path: String)
        /// The store at `path` is encrypted, and no encryption key was given.
        case keyNeeded(path: String)
        /// An encryption key was given for the store at `path`, which is not encrypted.
        case notEncrypted(path: String)
        /// The commit log beside the store (`path`) holds commits that do not follow the
        /// store's file (another file put in its place, or a log cut short or damaged).
        case foreignCommitLog(path: String, detail: String)
        /// The store at `path` is open elsewhere (another process, or another ``Store`` in this
        /// one), and the operation needs it to itself.
        case inUse(path: String)
        /// Every reader slot of the lock file is taken by a live reader.
        case readersFull(max: Int)
        /// A write waited ``StoreConfiguration/busyTimeout`` (`waited`) for the writer lock of
        /// the store at `path`, which the process `holder` held (nil: unknown).
        case writerBusy(path: String, holder: Int32?, waited: Duration)
        /// A write on a store opened read-only.
        case readOnly
        /// An option or argument the storage engine refuses (a page size, a key length, ...).
        case invalidArgument(String)

        /// The one place a storage engine error becomes a Trove one.
        init(_ error: StorageError) {
            switch error {
            case let .cannotOpen(path, errno): self = .cannotOpen(path: path, errno: errno)
            case let .io(operation, path, errno): self = .system(operation: operation, path: path, errno: errno)
            case let .notATroveFile(path, detail): self = .notATroveFile(path: path, detail: detail)
            case let .corrupt(page, detail): self = .corrupt(page: page, detail: detail)
            case let .wrongEncryptionKey(path): self = .wrongEncryptionKey(path: path)
            case let .keyNeeded(path): self = .keyNeeded(path: path)
            case let .notEncrypted(path): self = .notEncrypted(path: path)
            case let .foreignCommitLog(path, detail): self = .foreignCommitLog(path: path, detail: detail)
            case let .readersFull(max): self = .readersFull(max: max)
            case let .writerBusy(path, holder, waited): self = .writerBusy(path: path, holder: holder, waited: waited)
            case let .inUse(path): self = .inUse(path: path)
            case .readOnly: self = .readOnly
            case .invalidKey, .noSuchTree, .transactionFinished, .invalidArgument:
                self = .invalidArgument(error.description)
            }
        }

        /// The operating system's words for `errno` (`strerror`).
        public static func systemMessage(errno: Int32) -> String { String(cString: strerror(errno)) }

        public var description: String {
            switch self {
            case let .cannotOpen(path, errno): Self.system(operation: "open", path: path, errno: errno).description
            case let .system(operation, path, errno):
                "\(operation) failed on \(path): \(Self.systemMessage(errno: errno)) (errno \(errno))"
            case let .notATroveFile(path, detail): "\(path) is not a Trove store: \(detail)"
            case let .corrupt(page?, detail): "database is corrupt at page \(page): \(detail)"
            case let .corrupt(nil, detail): "database is corrupt: \(detail)"
            case let .wrongEncryptionKey(path): "\(path): wrong encryption key: the key does not open this store"
            case let .keyNeeded(path): "\(path) is encrypted: an encryption key is needed"
            case let .notEncrypted(path): "\(path) is not encrypted, but an encryption key was given"
            case let .foreignCommitLog(path, detail): "the commit log \(path) does not fit its store: \(detail)"
            case let .inUse(path): "\(path) is open in another process (or another Store): close it there first"
            case let .readersFull(max): "all \(max) reader slots are in use"
            case let .writerBusy(path, holder, waited): StorageError.writerBusyMessage(path: path, holder: holder, waited: waited)
            case .readOnly: "the store is read-only"
            case let .invalidArgument(detail): detail
            }
        }
    }
}

extension StoreError {
    /// `error` as a ``StoreError/storage(_:)``.
    init(_ error: StorageError) { self = .storage(StorageFailure(error)) }

    /// `error`, an engine error made a ``StoreError/storage(_:)``: what a transaction's
    /// closure throws reaches the caller in Trove's terms.
    static func wrapping(_ error: any Error) -> any Error {
        (error as? StorageError).map(StoreError.init) ?? error
    }
}
