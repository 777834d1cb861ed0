/// Space accounting, to notice a long-lived reader pinning old pages.
public struct StorageStats: Sendable {
    /// Pages in the file (metas included).
    public var pageCount: Int
    /// Pages reusable now.
    public var freePages: Int
    /// Pages freed but still visible to some snapshot.
    public var pendingPages: Int
    /// Pages holding live data.
    public var usedPages: Int { pageCount - freePages - pendingPages }
    public var pageSize: Int
    /// Bytes of the file: at least `pageCount` pages (a transaction that failed may have
    /// written past them; the next ones reuse that space).
    public var fileBytes: UInt64
    /// The newest committed transaction.
    public var transactionID: UInt64
    /// The oldest snapshot a live reader holds, and for how long (seconds), or nil if none.
    public var oldestReader: (transactionID: UInt64, age: Double)?
}

extension Storage {
    /// Page counts and the oldest reader.
    public func stats() throws -> StorageStats {
        let tx = try beginRead()
        let meta = tx.meta
        // Read while the snapshot holds its pages (a writer may reuse them once it ends), and
        // end it before asking for the oldest reader.
        let list: FreeList
        do { list = try readFreeList(meta) } catch { tx.end(); throw error }
        tx.end()
        var oldest: (UInt64, Double)? = nil
        if let r = lockFile?.oldestReader() {
            oldest = (r.txnid, Double(LockFile.nowNanoseconds() &- r.startedNanoseconds) / 1e9)
        }
        return StorageStats(pageCount: Int(meta.pageCount), freePages: list.readyCount, pendingPages: list.pendingCount,
                            pageSize: pageSize, fileBytes: try io.size(), transactionID: meta.txnid, oldestReader: oldest)
    }
}
