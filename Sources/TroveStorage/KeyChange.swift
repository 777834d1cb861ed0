#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The steps of ``Storage/changeEncryptionKey(path:options:to:)``, in order. After each one the
/// file at the path opens with exactly one of the two keys and verifies; tests stop there.
package enum KeyChangeStep: String, CaseIterable, Sendable {
    /// Every commit is in the store's file, synced, and its commit log holds none.
    case checkpointed
    /// The copy with the new key is beside the file (`PATH-rekey`), synced and verified.
    case copyWritten
    /// The commit log is empty, at its initial size, and names the copy.
    case logRestarted
    /// The copy has taken the file's name.
    case renamed
    /// The directory is synced: the rename is durable.
    case directorySynced
}

extension Storage {
    /// Changes the encryption key of the store at `path`: every page is rewritten with `newKey`
    /// (nil for a plain store), so this also encrypts a plain store or decrypts an encrypted one.
    /// `options.encryptionKey` is the store's present key.
    ///
    /// The store must not be open anywhere else, in this process or another: otherwise this
    /// throws ``StorageError/inUse(path:)`` and changes nothing. Openers that arrive meanwhile
    /// wait, then open the re-keyed file. A compacted copy is written beside the file, synced
    /// and verified, then renamed over it; a crash at any point leaves a file that opens with
    /// exactly one of the two keys (see `StorageProtocol.swift`).
    public static func changeEncryptionKey(path: String, options: StorageOptions = StorageOptions(), to newKey: [UInt8]?) throws {
        try changeEncryptionKey(path: path, options: options, to: newKey, after: { _ in })
    }

    /// As ``changeEncryptionKey(path:options:to:)``, calling `step` after each step; what
    /// `step` throws stops the change there, as a crash would, but for the cleanup a thrown
    /// error does (a copy not yet renamed is removed).
    package static func changeEncryptionKey(path: String, options: StorageOptions, to newKey: [UInt8]?,
                                            after step: (KeyChangeStep) throws -> Void) throws {
        if let newKey, newKey.count != 64 {
            throw StorageError.invalidArgument("an encryption key is 64 bytes, not \(newKey.count)")
        }
        guard access(path, F_OK) == 0 else { throw StorageError.cannotOpen(path: path, errno: ENOENT) }
        var sourceOptions = options
        sourceOptions.readOnly = false
        let source = try Storage(path: path, options: sourceOptions)
        try source.replaceFile(withKey: newKey, after: step)
    }

    /// Replaces this store's file with a copy encrypted with `newKey`; this object is unusable
    /// afterwards (it reads the replaced file).
    private func replaceFile(withKey newKey: [UInt8]?, after step: (KeyChangeStep) throws -> Void) throws {
        guard let lockFile, let logState else {
            throw StorageError.invalidArgument("\(path) has no lock file or commit log: only a store file can change its key")
        }
        // Held until this object closes: whoever opens the store from now on waits, and then
        // finds the new file.
        guard lockFile.isLastOpener() else { throw StorageError.inUse(path: path) }
        let writer = try beginWrite()
        defer { writer.abort() }
        try checkpoint()
        try step(.checkpointed)

        let copyPath = path + "-rekey"
        let copyFiles = [copyPath, copyPath + "-lock", copyPath + "-log"]
        // A copy left by a change that stopped before its rename is of no use to anyone.
        for file in copyFiles { unlink(file) }
        var renamed = false
        defer { if !renamed { for file in copyFiles { unlink(file) } } }
        var target = options
        target.encryptionKey = newKey
        target.pageSize = pageSize
        _ = try compact(to: copyPath, options: target)
        let copy = try Storage.checkedCopy(at: copyPath, options: target)
        unlink(copyPath + "-lock")
        try step(.copyWritten)

        // The log holds no records (the checkpoint): naming the copy before the rename keeps it
        // empty for whichever file the path then holds.
        try logState.log.shrink()
        try logState.restart(storeID: copy.storeID, base: copy.txnid)
        try step(.logRestarted)

        guard rename(copyPath, path) == 0 else {
            throw StorageError.io(operation: "rename \(copyPath) over the store", path: path, errno: errno)
        }
        renamed = true
        poison("the store's file was replaced by a copy with another key; open it again")
        // Openers waiting for this one read the lock file next: it describes the copy.
        lockFile.currentTxnid = copy.txnid
        lockFile.recordCompleteCommit(txnid: copy.txnid, digest: copy.digest)
        try step(.renamed)
        try Storage.syncDirectory(of: path)
        try step(.directorySynced)
    }

    /// The newest meta of the copy at `path`, after a verification of every page with its key.
    private static func checkedCopy(at path: String, options: StorageOptions) throws -> Meta {
        var readOnly = options
        readOnly.readOnly = true
        let copy = try Storage(path: path, options: readOnly)
        let report = try copy.verify()
        if let problem = report.problems.first {
            throw StorageError.corrupt(page: nil, detail: "the re-keyed copy \(path) fails verification: \(problem)")
        }
        guard let meta = try readMetas(io: copy.io).first else {
            throw StorageError.corrupt(page: 0, detail: "the re-keyed copy \(path) has no valid meta page")
        }
        return meta
    }

    /// Makes a rename in the directory of `path` durable.
    static func syncDirectory(of path: String) throws {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        let fd = liftedAboveStandardStreams(open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC))
        guard fd >= 0 else { throw StorageError.io(operation: "open directory", path: directory, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StorageError.io(operation: "fsync directory", path: directory, errno: errno) }
    }
}
