#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``Storage/compact(to:options:)`` did.
public struct CompactionReport: Sendable {
    /// Bytes of the source file.
    public var bytesBefore: UInt64
    /// Bytes of the compacted copy.
    public var bytesAfter: UInt64
    public var trees: Int
    public var entries: Int
}

extension Storage {
    /// Writes a compacted copy of the newest snapshot to a new file at `path`: every tree
    /// rewritten in key order into full pages, no free pages. The copy is encrypted with
    /// `options.encryptionKey` (so this also re-keys, encrypts, or decrypts a store).
    /// Writers may go on meanwhile; the copy holds the snapshot at the call.
    public func compact(to path: String, options: StorageOptions = StorageOptions()) throws -> CompactionReport {
        let files = FileManager.default
        guard !files.fileExists(atPath: path) else {
            throw StorageError.invalidArgument("\(path) already exists; the compacted copy must be a new file")
        }
        // The copy's lock file and log: removed with it if it fails, and after it too, as a
        // closed copy needs neither (its log is empty; an open makes a lock file). Only those
        // this call creates.
        let sideFiles = [path + "-lock", path + "-log"].filter { !files.fileExists(atPath: $0) }
        var target = options
        target.readOnly = false
        target.durability = .noSync
        let report: CompactionReport
        do {
            report = try writeCompactCopy(to: path, options: target)
        } catch {
            try? files.removeItem(atPath: path)
            for file in sideFiles { try? files.removeItem(atPath: file) }
            throw error
        }
        for file in sideFiles { try? files.removeItem(atPath: file) }
        return report
    }

    /// The copy itself, closed when this returns.
    private func writeCompactCopy(to path: String, options: StorageOptions) throws -> CompactionReport {
        let copy = try Storage(path: path, options: options)
        var trees = 0, entries = 0
        let source = try beginRead()
        defer { source.end() }
        let tx = try copy.beginWrite()
        do {
            for name in try source.treeNames() {
                guard let from = try source.tree(named: name) else { continue }
                let to = try tx.createTree(named: name)
                let c = try source.cursor(from)
                var ok = try c.first()
                while ok {
                    try c.withEntry { k, v in try tx.put(to, raw: k, v) }
                    entries += 1
                    ok = try c.next()
                }
                trees += 1
            }
            try tx.commit()
        } catch {
            tx.abort()
            throw error
        }
        try copy.sync()
        try copy.keepOnlyNewestCommit()
        return CompactionReport(bytesBefore: try io.size(), bytesAfter: try copy.io.size(), trees: trees, entries: entries)
    }
}
