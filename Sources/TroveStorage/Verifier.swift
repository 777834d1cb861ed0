/// Walks a snapshot's pages from its meta, checking each against the checksum its parent
/// recorded. Two uses: crash recovery (only pages newer than the last durable transaction,
/// stopping at the first failure) and ``Storage/verify()`` (everything, collecting problems).
final class Verifier {
    let meta: Meta
    let mapping: StorageMapping
    let fileSize: UInt64
    let pageSize: Int
    let cipher: PageCipher?
    /// Recovery mode: skip subtrees written at or before this transaction, throw at the first problem.
    var prune: UInt64? = nil
    var report = VerifyReport()
    private var seen: [UInt64: UInt8] = [:]
    /// Branch and leaf pages, and the bytes their entries take, per tree name (nil: the
    /// catalog, which any name could be).
    private var nodeUse: [String?: (pages: Int, bytes: Int)] = [:]
    /// Empty leaves below the root and branches with one child, per tree name (nil: the catalog).
    private var sparse: [String?: (emptyLeaves: Int, oneChildBranches: Int)] = [:]
    private var buffers: [UnsafeMutableRawPointer] = []

    init(storage: Storage, meta: Meta, mapping: StorageMapping, fileSize: UInt64) {
        self.meta = meta
        self.mapping = mapping
        self.fileSize = fileSize
        self.pageSize = Int(meta.pageSize)
        self.cipher = storage.cipher
    }

    deinit { for b in buffers { b.deallocate() } }

    /// Recovery: is this meta's commit complete on disk?
    func checkCommit() throws {
        prune = meta.lastSyncedTxnid
        guard meta.pageCount >= PageLayout.metaPages, meta.pageCount * UInt64(pageSize) <= fileSize else {
            throw StorageError.corrupt(page: nil, detail: "the file is truncated: transaction \(meta.txnid) needs \(meta.pageCount) pages, the file holds \(fileSize / UInt64(pageSize))")
        }
        try walkAll()
    }

    /// Full verification.
    func verify() -> VerifyReport {
        report.transactionID = meta.txnid
        report.pageCount = Int(meta.pageCount)
        if meta.pageCount * UInt64(pageSize) > fileSize {
            report.problems.append(.truncated(expectedPages: meta.pageCount, presentPages: fileSize / UInt64(pageSize)))
            return report
        }
        do {
            try walkAll()
        } catch let StorageError.corrupt(page, detail) {
            report.problems.append(.damaged(page: page, detail: detail))
        } catch {
            report.problems.append(.walkFailed("\(error)"))
        }
        // Every page is a meta, referenced once, or free.
        var free = 0
        for pg in PageLayout.metaPages..<meta.pageCount {
            switch seen[pg] ?? 0 {
            case 0: report.problems.append(.leaked(page: pg))
            case 1: report.usedPages += 1
            case 2: free += 1
            default: break
            }
        }
        report.freePages = free
        report.catalog = .init(name: "", entries: Int(meta.catalog.entries), pages: Int(meta.catalog.pages), depth: Int(meta.catalog.depth))
        count(&report.catalog, as: nil)
        for i in report.trees.indices { count(&report.trees[i], as: report.trees[i].name) }
        return report
    }

    /// Fills in the node pages, fill and sparse nodes the walk counted for `name`.
    private func count(_ summary: inout VerifyReport.TreeSummary, as name: String?) {
        if let s = sparse[name] {
            summary.emptyLeaves = s.emptyLeaves
            summary.oneChildBranches = s.oneChildBranches
        }
        guard let use = nodeUse[name], use.pages > 0 else { return }
        let room = pageSize - PageLayout.headerSize - PageLayout.trailerSize
        summary.nodePages = use.pages
        summary.nodeBytes = use.bytes
        summary.fill = Double(use.bytes) / Double(use.pages * room)
    }

    private func problem(_ page: UInt64?, _ detail: String) throws {
        if prune != nil { throw StorageError.corrupt(page: page, detail: detail) }
        report.problems.append(.damaged(page: page, detail: detail))
    }

    private func mark(_ pgno: UInt64, pages: Int, as state: UInt8) throws {
        guard prune == nil else { return }
        for pg in pgno..<(pgno + UInt64(pages)) {
            if let prior = seen[pg] {
                try problem(pg, prior == 2 && state == 2 ? "page is listed free twice"
                    : prior == 2 || state == 2 ? "page is both used and free" : "page is referenced twice")
                if prior == 1 && state == 2 { continue }
            }
            seen[pg] = state
        }
    }

    private func walkAll() throws {
        if meta.catalog.root != 0 {
            try walkTree(meta.catalog.root, checksum: meta.catalog.rootChecksum, depth: 0, levels: Int(meta.catalog.depth), isCatalog: true, low: nil, high: nil, name: nil)
        }
        if meta.freeListPgno != 0 {
            if let p = try checkedRun(meta.freeListPgno, pages: Int(meta.freeListPages), checksum: meta.freeListChecksum, type: .freeIndex) {
                try mark(meta.freeListPgno, pages: Int(meta.freeListPages), as: 1)
                let length = Int(meta.freeListPages) * pageSize - PageLayout.headerSize - PageLayout.trailerSize
                do {
                    var list = FreeList(pageSize: pageSize)
                    if PageHeader(p).type == PageType.freeList.rawValue {
                        try list.loadList(p + PageLayout.headerSize, length: length, pageCount: meta.pageCount, pgno: meta.freeListPgno)
                    } else {
                        let index = try list.decodeIndex(p + PageLayout.headerSize, length: length, pageCount: meta.pageCount, pgno: meta.freeListPgno)
                        try walkFreeChunks(index, into: &list)
                        // Pages listed twice are reported below, one by one.
                        for r in index.pending { list.addPending(txnid: r.txnid, pages: r.pages) }
                    }
                    for pg in list.allPages { try mark(pg, pages: 1, as: 2) }
                } catch let StorageError.corrupt(page, detail) {
                    // A damaged chunk names its own page, not the index's.
                    try problem(page ?? meta.freeListPgno, detail)
                } catch {
                    try problem(meta.freeListPgno, "\(error)")
                }
            }
        }
    }

    /// Checks each chunk page of the free-page bitmap against the index and loads its bits.
    private func walkFreeChunks(_ index: FreeList.Index, into list: inout FreeList) throws {
        for (k, c) in index.chunks.enumerated() where c.pgno != 0 {
            if let p = try checkedRun(c.pgno, pages: 1, checksum: c.checksum, type: .freeBitmap) {
                try mark(c.pgno, pages: 1, as: 1)
                // One bad chunk must not hide the others' pages (nor make them look leaked).
                do { try list.loadChunk(k, from: p + PageLayout.headerSize, pageCount: meta.pageCount, pgno: c.pgno) }
                catch { try problem(c.pgno, "\(error)") }
            } else if prune == nil {
                try mark(c.pgno, pages: 1, as: 1)
            }
        }
    }

    /// The run's bytes (decrypted if needed) if it passes its checksum, else nil (problem noted).
    /// In recovery mode, also nil for runs older than the last durable transaction.
    private func checkedRun(_ pgno: UInt64, pages: Int, checksum: UInt64, type: PageType) throws -> UnsafeRawPointer? {
        guard pgno >= PageLayout.metaPages, pages >= 1, pgno < meta.pageCount, UInt64(pages) <= meta.pageCount - pgno else {
            try problem(pgno, "reference to a run of \(pages) pages outside the store's \(meta.pageCount) pages")
            return nil
        }
        let length = pages * pageSize
        let raw = mapping.base + Int(pgno) * pageSize
        var p = raw
        switch Checksum.check(raw, length: length, expected: checksum, encrypted: cipher != nil) {
        case .matches: break
        case .damaged:
            try problem(pgno, "checksum mismatch (page content is damaged)")
            return nil
        case .stale:
            try problem(pgno, "checksum does not match its parent's record (a torn or stale write)")
            return nil
        }
        if let cipher {
            let b = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 16)
            buffers.append(b)
            do { try cipher.open(raw, into: b, length: length, pgno: pgno) } catch {
                try problem(pgno, "page fails to authenticate")
                return nil
            }
            p = UnsafeRawPointer(b)
        }
        let h = PageHeader(p)
        guard h.pgno == pgno else { try problem(pgno, "page header names page \(h.pgno)"); return nil }
        if type == .leaf || type == .branch {
            guard h.isTree else {
                try problem(pgno, "expected a tree page, found type \(h.type)"); return nil
            }
        } else {
            // The free list's run is an index since format 4, the whole list before.
            let legacyList = type == .freeIndex && h.type == PageType.freeList.rawValue
            guard h.type == type.rawValue || legacyList else { try problem(pgno, "expected page type \(type.rawValue), found \(h.type)"); return nil }
            guard h.pages == pages else { try problem(pgno, "run length \(h.pages), expected \(pages)"); return nil }
        }
        if let prune, h.txnid <= prune { return nil }
        return p
    }

    /// Walks the tree below `pgno`, `depth` levels under its root, whose record says it has
    /// `levels` levels: every leaf must be at the last, or a search would miss keys below it.
    private func walkTree(_ pgno: UInt64, checksum: UInt64, depth: Int, levels: Int, isCatalog: Bool,
                          low: [UInt8]?, high: [UInt8]?, name: String?) throws {
        guard depth < 64 else { try problem(pgno, "tree deeper than 64 levels (a cycle?)"); return }
        guard let p = try checkedRun(pgno, pages: 1, checksum: checksum, type: .leaf) else {
            if prune == nil { try mark(pgno, pages: 1, as: 1) }
            return
        }
        try mark(pgno, pages: 1, as: 1)
        let n: NodeView
        do {
            n = try NodeView(p, pgno: pgno, pageSize: pageSize)
            try n.validate()
        } catch {
            try problem(pgno, "\(error)")
            return
        }
        if prune == nil, n.isLeaf, depth + 1 != levels {
            try problem(pgno, "leaf at level \(depth + 1) of a tree recorded as \(levels) levels deep")
        }
        if prune == nil {
            nodeUse[name, default: (0, 0)].pages += 1
            nodeUse[name, default: (0, 0)].bytes += n.usedBytes
            // The format allows both and readers step over them (`Tree`): a finding, not damage.
            if n.isLeaf && n.count == 0 && depth > 0 { sparse[name, default: (0, 0)].emptyLeaves += 1 }
            if !n.isLeaf && n.count == 1 { sparse[name, default: (0, 0)].oneChildBranches += 1 }
        }
        if prune == nil, n.count > 0 {
            let firstKey = Array(try n.key(n.isLeaf ? 0 : min(1, n.count - 1)))
            let lastKey = Array(try n.key(n.count - 1))
            if let low, n.isLeaf || n.count > 1, compareBytes(firstKey, low) < 0 { try problem(pgno, "keys out of order: below the parent's separator") }
            if let high, compareBytes(lastKey, high) >= 0 { try problem(pgno, "keys out of order: at or above the next separator") }
        }
        for i in 0..<n.count {
            if n.isLeaf {
                switch try n.value(i) {
                case let .overflow(opg, ocs, length):
                    let pages = (Int(length) + PageLayout.headerSize + PageLayout.trailerSize + pageSize - 1) / pageSize
                    if try checkedRun(opg, pages: pages, checksum: ocs, type: .overflow) != nil || prune == nil {
                        try mark(opg, pages: pages, as: 1)
                    }
                case .inline(let v):
                    if isCatalog {
                        guard v.count == TreeInfo.encodedSize else { try problem(pgno, "catalog entry \(i) has \(v.count) bytes"); continue }
                        let info = TreeInfo(decoding: v.baseAddress!)
                        let treeName = String(decoding: try n.key(i), as: UTF8.self)
                        if prune == nil {
                            report.trees.append(.init(name: treeName, entries: Int(info.entries), pages: Int(info.pages), depth: Int(info.depth)))
                        }
                        if info.root != 0 {
                            try walkTree(info.root, checksum: info.rootChecksum, depth: 0, levels: Int(info.depth), isCatalog: false, low: nil, high: nil, name: treeName)
                        }
                    }
                }
            } else {
                let lo: [UInt8]? = i == 0 ? low : Array(try n.key(i))
                let hi: [UInt8]? = i + 1 < n.count ? Array(try n.key(i + 1)) : high
                try walkTree(try n.child(i), checksum: n.childChecksum(i), depth: depth + 1, levels: levels, isCatalog: isCatalog, low: lo, high: hi, name: name)
            }
        }
    }

    private func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBytes { x in b.withUnsafeBytes { y in compareKeys(x, y) } }
    }
}

extension Storage {
    /// Walks every tree and the free list of the newest snapshot and reports any page referenced
    /// twice, leaked, out of order or failing its checksum. Empty leaves and branches with one
    /// child, which the format allows, are counted per tree and for the catalog
    /// (``VerifyReport/TreeSummary``).
    public func verify() throws -> VerifyReport {
        let tx = try beginRead()
        defer { tx.end() }
        let v = Verifier(storage: self, meta: tx.meta, mapping: try mapping(covering: tx.meta.pageCount * UInt64(pageSize)), fileSize: try io.size())
        return v.verify()
    }
}
