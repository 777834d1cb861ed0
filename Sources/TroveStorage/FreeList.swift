/// The pages a store can reuse, and the pages waiting until no reader can see them.
///
/// `ready` pages are reusable now. `pending[t]` holds the pages transaction `t` stopped
/// using: snapshots older than `t` still see them, so they become ready only once every reader
/// (in any process), and the meta a crash would fall back to, is at `t` or newer.
///
/// The whole list is written at each commit into one fresh run of pages (as bbolt does): simple
/// and crash-safe, at a cost proportional to the number of free pages. Serialized form:
/// `readyCount u64, pgno u64 * readyCount, recordCount u64, (txnid u64, n u64, pgno u64 * n)*`.
struct FreeList {
    /// Sorted descending, so the lowest page number is taken first and the file stays compact.
    private(set) var ready: [UInt64] = []
    private(set) var pending: [(txnid: UInt64, pages: [UInt64])] = []

    var readyCount: Int { ready.count }
    var pendingCount: Int { pending.reduce(0) { $0 + $1.pages.count } }

    /// Makes the pages freed by transactions `<= txnid` reusable.
    mutating func reclaim(upTo txnid: UInt64) {
        var incoming: [UInt64] = []
        while let first = pending.first, first.txnid <= txnid {
            incoming.append(contentsOf: first.pages)
            pending.removeFirst()
        }
        guard !incoming.isEmpty else { return }
        // Merged by blocks, not re-sorted: every commit reclaims a small batch into a list that
        // can hold thousands of pages. The list's buffer is shared with the committed state
        // (a write transaction works on a copy), so the merge builds the new buffer directly:
        // the ready pages between two of the batch's go over as one block.
        incoming.sort(by: >)
        let old = ready
        ready = [UInt64](unsafeUninitializedCapacity: old.count + incoming.count) { out, initialized in
            old.withUnsafeBufferPointer { src in
                var i = 0, k = 0
                func copy(upTo end: Int) {
                    guard end > i else { return }
                    (out.baseAddress! + k).initialize(from: src.baseAddress! + i, count: end - i)
                    k += end - i
                    i = end
                }
                for page in incoming {
                    // The ready pages above `page` (descending) go first.
                    var lo = i, hi = src.count
                    while lo < hi {
                        let mid = (lo + hi) / 2
                        if src[mid] > page { lo = mid + 1 } else { hi = mid }
                    }
                    assert(lo == src.count || src[lo] != page, "page \(page) freed twice")
                    copy(upTo: lo)
                    (out.baseAddress! + k).initialize(to: page)
                    k += 1
                }
                copy(upTo: src.count)
                initialized = k
            }
        }
    }

    /// Takes `n` contiguous free pages, or nil if there is no such run.
    mutating func allocate(_ n: Int) -> UInt64? {
        if n == 1 { return ready.popLast() }
        guard ready.count >= n else { return nil }
        // Descending order: a run p, p+1, ..., p+n-1 sits at indexes i+n-1 ... i.
        var runStart = ready.count - 1
        var i = ready.count - 1
        while i > 0 {
            if ready[i - 1] == ready[i] + 1 {
                i -= 1
                if runStart - i + 1 == n {
                    let first = ready[runStart]
                    ready.removeSubrange(i...runStart)
                    return first
                }
            } else {
                i -= 1
                runStart = i
            }
        }
        return nil
    }

    /// Returns pages nobody has seen (allocated and released within one transaction).
    mutating func release(_ pgno: UInt64, count: Int) {
        for p in pgno..<(pgno + UInt64(count)) {
            let at = insertionIndex(p)
            ready.insert(p, at: at)
        }
    }

    private func insertionIndex(_ p: UInt64) -> Int {
        var lo = 0, hi = ready.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if ready[mid] > p { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Records the pages transaction `txnid` stopped using.
    mutating func addPending(txnid: UInt64, pages: [UInt64]) {
        guard !pages.isEmpty else { return }
        if let last = pending.last, last.txnid == txnid {
            pending[pending.count - 1].pages.append(contentsOf: pages)
        } else {
            pending.append((txnid, pages))
        }
    }

    var encodedSize: Int { 16 + 8 * ready.count + pending.reduce(0) { $0 + 16 + 8 * $1.pages.count } }

    func encode(into p: UnsafeMutableRawPointer) {
        var o = 0
        func put(_ v: UInt64) { p.storeBytes(of: v, toByteOffset: o, as: UInt64.self); o += 8 }
        put(UInt64(ready.count))
        for pg in ready { put(pg) }
        put(UInt64(pending.count))
        for r in pending {
            put(r.txnid); put(UInt64(r.pages.count))
            for pg in r.pages { put(pg) }
        }
    }

    /// Decodes a serialized list; every page number must lie in `2..<pageCount`.
    init(decoding p: UnsafeRawPointer, length: Int, pageCount: UInt64, pgno: UInt64) throws {
        var o = 0
        func get() throws -> UInt64 {
            guard o + 8 <= length else { throw StorageError.corrupt(page: pgno, detail: "free list is truncated") }
            defer { o += 8 }
            return p.loadUnaligned(fromByteOffset: o, as: UInt64.self)
        }
        func page() throws -> UInt64 {
            let v = try get()
            guard v >= PageLayout.metaPages, v < pageCount else {
                throw StorageError.corrupt(page: pgno, detail: "free list names page \(v), outside the file's \(pageCount) pages")
            }
            return v
        }
        let n = try get()
        guard n <= UInt64(length / 8) else { throw StorageError.corrupt(page: pgno, detail: "free list count \(n) is impossible") }
        ready.reserveCapacity(Int(n))
        for _ in 0..<n { ready.append(try page()) }
        let records = try get()
        guard records <= UInt64(length / 16) else { throw StorageError.corrupt(page: pgno, detail: "free list record count \(records) is impossible") }
        for _ in 0..<records {
            let t = try get()
            let c = try get()
            guard c <= UInt64(length / 8) else { throw StorageError.corrupt(page: pgno, detail: "free list record size \(c) is impossible") }
            var pages: [UInt64] = []
            pages.reserveCapacity(Int(c))
            for _ in 0..<c { pages.append(try page()) }
            pending.append((t, pages))
        }
    }

    init() {}

    /// Every page number in the list, for verification.
    var allPages: [UInt64] { ready + pending.flatMap(\.pages) }
}
