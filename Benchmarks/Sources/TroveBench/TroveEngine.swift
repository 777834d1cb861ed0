import BenchSupport
import Foundation
import TroveStorage

/// TroveStorage with default options: `.durable` commits (one fdatasync each), 4 KiB pages.
/// `EngineSettings.troveMaxDirtyBytes` overrides the dirty-page budget, for experiments.
final class TroveEngine: Engine {
    static let name = "Trove"
    private let path: String
    private var storage: Storage?
    private let treeName = "kv"

    init(directory: String, settings: EngineSettings) throws {
        path = directory + "/bench.trove"
        var options = StorageOptions()
        options.durability = .durable
        if let bytes = settings.troveMaxDirtyBytes { options.maxDirtyBytes = bytes }
        let storage = try Storage(path: path, options: options)
        try storage.write { tx in _ = try tx.createTree(named: treeName) }
        self.storage = storage
    }

    private var store: Storage {
        get throws {
            guard let storage else { throw BenchError("the Trove store is closed") }
            return storage
        }
    }

    func insert(_ data: Dataset, _ indices: Range<Int>) throws {
        try store.write { tx in
            let tree = try tx.createTree(named: treeName)
            for i in indices { try tx.put(tree, raw: data.key(i), data.value(i)) }
        }
    }

    func read(_ data: Dataset, keys: [Int]) throws -> UInt64 {
        try store.read { tx in
            guard let tree = try tx.tree(named: treeName) else { throw BenchError("no tree") }
            var sum: UInt64 = 0
            for i in keys {
                let found = try tx.withValue(tree, forKey: data.key(i)) { value -> Bool in
                    Dataset.fold(value, into: &sum)
                    return true
                }
                guard found == true else { throw BenchError("Trove: key \(i) not found") }
            }
            return sum
        }
    }

    func scan(_ data: Dataset, starts: [Int], length: Int) throws -> (checksum: UInt64, entries: Int) {
        try store.read { tx in
            guard let tree = try tx.tree(named: treeName) else { throw BenchError("no tree") }
            var sum: UInt64 = 0
            var entries = 0
            let cursor = try tx.cursor(tree)
            for i in starts {
                var more = try cursor.seek(data.key(i))
                for n in 0..<length {
                    if n > 0 { more = try cursor.next() }
                    guard more else { break }
                    try cursor.withEntry { _, value in Dataset.fold(value, into: &sum) }
                    entries += 1
                }
            }
            return (sum, entries)
        }
    }

    func remove(_ data: Dataset, _ indices: Range<Int>) throws -> Int {
        try store.write { tx in
            let tree = try tx.createTree(named: treeName)
            var removed = 0
            for i in indices where try tx.delete(tree, raw: data.key(i)) { removed += 1 }
            return removed
        }
    }

    /// The store and its commit log, as SQLite's counts its `-wal`.
    func fileSize() throws -> UInt64 {
        try FileSize.of([path, path + "-log"])
    }

    func close() {
        storage = nil
    }
}
