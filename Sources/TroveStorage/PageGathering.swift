extension WriteTransaction {
    /// Gives a small commit's pages consecutive numbers where the free list has runs to take
    /// them, so that `writePages` writes them in a few calls instead of one per page, and a
    /// checkpoint's `fdatasync` sends a few requests instead of one per page. Copy-on-write
    /// takes each page as it copies it, the lowest free page first; after a commit that freed
    /// whole stretches of pages (a delete or an update of many keys), a small commit that
    /// touches four trees would write ~17 runs of one page. A store that only ever commits
    /// small transactions has few free pages besides the ones the commit took, scattered
    /// (each commit frees the pages of the paths it copied): there is nothing to gather, and
    /// the search is skipped (`Benchmarks/RESULTS.md`, "Where the bar is not met").
    ///
    /// Nothing has seen a page held in memory, so moving one is giving it another number: its
    /// header, its parent's pointer (a touched child's checksum is still zero) or its tree's
    /// root, and its entry in `copiedFrom`, so that the log still finds its delta source. The
    /// numbers it leaves are free again at once, as a page released in the same transaction
    /// is. Runs: up to `maxRuns`, the lowest run long enough within `scanWords` words of the
    /// lowest free page, else the longest there. Vacuums (which move pages to the lowest free
    /// ones on purpose), large commits (which pack their leaves and lower them instead,
    /// `packWrittenLeaves`) and transactions with pages written early keep their numbers.
    func gatherWrittenPages() throws {
        let n = dirty.count
        guard !isCompaction, early.isEmpty, n >= 2, n < WriteTransaction.packingThreshold,
              freeList.readyCount >= n else { return }
        let old = dirty.pageNumbers.sorted()
        let before = WriteTransaction.runCount(old)
        guard before > 1 else { return }

        // The commit's own pages count as free too: a run may take them.
        for pgno in old { freeList.release(pgno, count: 1) }
        var to: [UInt64] = []
        to.reserveCapacity(n)
        var runs = 0
        while to.count < n, runs < WriteTransaction.maxRuns,
              let r = freeList.takeLongestRun(upTo: n - to.count, scanWords: WriteTransaction.scanWords) {
            for k in 0..<UInt64(r.count) { to.append(r.first + k) }
            runs += 1
        }
        while to.count < n, let p = freeList.allocate(1) { to.append(p) }
        guard to.count == n, WriteTransaction.runCount(to.sorted()) < before else {
            for p in to { freeList.release(p, count: 1) }
            freeList.take(pages: old)
            return
        }
        to.sort()
        // Branches first, leaves after: the next commit, which copies the roots and most
        // branches again, frees them as one run.
        var order: [UInt64] = []
        order.reserveCapacity(n)
        var leaves: [UInt64] = []
        for pgno in old {
            if PageHeader(dirty[pgno]!).type == PageType.leaf.rawValue { leaves.append(pgno) } else { order.append(pgno) }
        }
        order.append(contentsOf: leaves)
        var index: [UInt64: UInt64] = [:]
        index.reserveCapacity(n)
        for (i, pgno) in order.enumerated() where pgno != to[i] { index[pgno] = to[i] }

        // Every pointer once, by old numbers: a new number may be another page's old one.
        var failure: Error?
        dirty.forEach { pgno, p in
            guard failure == nil else { return }
            do {
                let view = try NodeView(p, pgno: pgno, pageSize: pageSize)
                guard !view.isLeaf else { return }
                let editor = NodeEditor(p: p, pageSize: pageSize)
                for i in 0..<view.count where view.childChecksum(i) == 0 {
                    if let new = index[try view.child(i)] { editor.setChild(i, pgno: new, checksum: 0) }
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        for t in openTrees.values { if let new = index[t.info.root] { t.info.root = new } }
        if let new = index[catalog.info.root] { catalog.info.root = new }

        var buffers: [(pgno: UInt64, buffer: UnsafeMutableRawPointer)] = []
        buffers.reserveCapacity(index.count)
        var sources: [(page: UInt64, source: UInt64)] = []
        for (pgno, new) in index {
            let buffer = dirty.remove(pgno)!
            buffers.append((new, buffer))
            PageHeader.setIdentity(buffer, pgno: new, txnid: txnid)
            // The newest copy into `pgno` is the page's delta source; appended, it is also
            // the newest copy into its new number.
            if let c = copiedFrom.last(where: { $0.page == pgno }) { sources.append((new, c.source)) }
        }
        for b in buffers { dirty.insert(b.pgno, b.buffer) }
        copiedFrom.append(contentsOf: sources)
        pageLimit = freeList.trimTail(pageCount: pageLimit, notBelow: meta.pageCount)
    }

    /// Runs of free pages a small commit takes at most (`gatherWrittenPages`).
    static let maxRuns = 3
    /// Free-list bitmap words searched for a run: 16,384 pages from the lowest free one.
    static let scanWords = 256

    /// The runs of consecutive numbers in sorted `pages`.
    static func runCount(_ pages: [UInt64]) -> Int {
        var runs = 0
        var last: UInt64?
        for p in pages {
            if last.map({ $0 + 1 != p }) ?? true { runs += 1 }
            last = p
        }
        return runs
    }
}
