import TroveStorage

/// Reads the records of objects whose keys come in ascending order (the keys an index or a
/// scan found) with one cursor moving forward through the objects tree: the next key is most
/// often in the same leaf, one binary search there, where a lookup by key descends from the
/// root each time.
struct KeyOrderRecords {
    private let cursor: Cursor?

    init(_ tree: Tree?, snapshot: Snapshot) throws {
        cursor = try tree.map { try snapshot.storageTx.cursor($0) }
    }

    /// Calls `body` with the record of `key`; nil if there is none. A key before the previous
    /// one is found too, by a descent from the root.
    @inline(__always)
    func withRecord<R>(_ key: UInt64, _ body: (RecordView) throws -> R) throws -> R? {
        guard let cursor else { return nil }
        let wanted = key.bigEndian
        var k = wanted
        return try withUnsafeBytes(of: &k) { kb -> R? in
            guard try cursor.seek(forwardTo: kb) else { return nil }
            return try cursor.withEntry { found, value -> R? in
                guard found.count == 8, found.loadUnaligned(as: UInt64.self) == wanted else { return nil }
                return try body(try RecordView(value))
            }
        }
    }
}
