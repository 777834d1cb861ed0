import Dispatch

/// What ``Storage/vacuum()`` did.
public struct VacuumReport: Sendable, Equatable {
    /// Bytes of the data file before.
    public var bytesBefore: UInt64
    /// Bytes of the data file after.
    public var bytesAfter: UInt64
    /// Pages of live data moved from the end of the file into free pages nearer its start,
    /// each counted once: a page moved twice counts once, and one the vacuum moved and then
    /// merged into a sibling (it merges underfull pages under the branches it rewrites)
    /// does not count.
    public var pagesMoved: Int
    /// Whether a reader's snapshot (in any process) kept the file from being cut back to the
    /// size the newest commit needs; a later vacuum, or the automatic one, cuts it.
    public var heldByReaders: Bool
}

extension Storage {
    /// The most rounds one vacuum takes: each is a commit, and the next can reuse the pages the
    /// one before freed only once no snapshot sees them.
    static let vacuumRounds = 8

    /// Shrinks the data file while readers and other processes go on working: moves the live
    /// pages at the end of the file into free pages nearer its start, then cuts the file back
    /// once no snapshot can see its end (`StorageProtocol.swift`, "Compaction").
    ///
    /// Each step is an ordinary write transaction, so this waits for the writer like
    /// ``beginWrite()``, and a crash at any point leaves the store as its last commit left it.
    /// A reader holding an old snapshot keeps the pages it sees; the report says when that kept
    /// the file from shrinking as far as it could. ``StorageOptions/compactsAutomatically``
    /// runs this after a commit that leaves over 40% of the file free.
    @discardableResult
    public func vacuum() throws -> VacuumReport {
        let before = try io.size()
        var relocated: [UInt64: Int] = [:]
        var held = false
        for _ in 0..<Storage.vacuumRounds {
            let tx = try beginWrite()
            let step: (moved: Int, trimmed: Int)
            do {
                tx.relocated = relocated
                step = try tx.compactionStep()
                try tx.commit()
            } catch {
                tx.abort()
                throw error
            }
            // Read after the commit: packing at commit may merge moved leaves away.
            relocated = tx.relocated
            // Pages freed by a commit not yet on disk stay pending: a crash would fall back
            // to a commit that sees them.
            if options.durability == .noSync && step.moved > 0 { try sync() }
            held = try !cutUnseenTail()
            if step.moved == 0 && step.trimmed == 0 { break }
        }
        // A reader of an older snapshot holds the pages it sees, which may end the file.
        if let reader = lockFile?.oldestReader(), reader.txnid < latestTransactionID { held = true }
        return VacuumReport(bytesBefore: before, bytesAfter: try io.size(), pagesMoved: relocated.values.reduce(0, +), heldByReaders: held)
    }

    /// Cuts the data file back to the pages the newest commit counts, once every snapshot any
    /// process reads is that commit or a newer one (an older snapshot may count more pages,
    /// and ``verify()`` reads every page its meta counts). The newest commit is made durable
    /// in the data file first, in both meta slots, so that no crash can fall back to a commit
    /// that needs the pages cut. Returns false if a reader held the file's end.
    func cutUnseenTail() throws -> Bool {
        try acquireWriter()
        defer { releaseWriter() }
        do {
            let m = try newestMeta()
            let bytes = m.pageCount * UInt64(pageSize)
            guard try io.size() > bytes else { return true }
            if let reader = lockFile?.oldestReader(), reader.txnid < m.txnid { return false }
            try checkpoint()
            // Both slots name this commit: a crash after later no-sync commits (this process
            // or another, whose metas still name an older durable commit) falls back to it,
            // never to a commit that counts the pages cut.
            var other = m
            other.slot ^= 1
            _ = try writeMeta(other)
            try io.sync()
            try io.truncate(to: bytes)
            writer.fileSize = bytes
            return true
        }
    }

    /// The automatic policy (``StorageOptions/compactsAutomatically``), asked by each commit
    /// that leaves `freePages` (ready or pending) of `pageCount`: whether the file is at
    /// least 1 MiB and over 40% of it is free (a commit that copies every page leaves just
    /// under half). A vacuum that could not bring the file under that (readers holding the
    /// pages) is not tried again for 100 commits.
    func wantsCompaction(txnid: UInt64, pageCount: UInt64, freePages: Int) -> Bool {
        guard options.compactsAutomatically, !options.readOnly,
              pageCount * UInt64(pageSize) >= 1 << 20, UInt64(freePages) * 5 > pageCount * 2,
              txnid >= writer.nextAutomaticCompaction else { return false }
        writer.nextAutomaticCompaction = txnid + 100
        return true
    }

    /// Runs the automatic vacuum after a commit. The commit has returned already: a failure
    /// here is not the commit's, and leaves the store as the commit left it.
    func compactAutomatically() {
        guard let report = try? vacuum() else { return }
        if report.bytesAfter < report.bytesBefore, !report.heldByReaders {
            // It worked: the next commit that frees that much may try again at once.
            writerGate.wait()
            writer.nextAutomaticCompaction = 0
            writerGate.signal()
        }
    }
}

extension WriteTransaction {
    /// One round of a vacuum: takes the free pages that end the file off it, then moves each
    /// live page past the point where the file could end (its pages less the free ones) to
    /// the lowest free page, when that is nearer the start. Moving a page is copying it on
    /// write, as any edit does: its parents are copied too, and the old pages become free
    /// once no snapshot sees them, when the next round takes them off the end.
    func compactionStep() throws -> (moved: Int, trimmed: Int) {
        isCompaction = true
        let start = pageLimit
        pageLimit = freeList.trimTail(pageCount: pageLimit)
        let trimmed = Int(start - pageLimit)
        // Moving pages into a few free ones costs a walk of every tree for little.
        guard freeList.readyCount >= max(8, Int(pageLimit / 64)) else { return (0, trimmed) }
        let end = pageLimit - UInt64(freeList.readyCount)
        var moved = 0
        freeList.rewriteChunks(atOrPast: end)
        for name in try treeNames() {
            guard let t = try tree(named: name) else { continue }
            try relocateTree(t, from: end, moved: &moved)
        }
        // The catalog last: recording the trees' new roots (at commit) edits it again, in
        // place once its pages are this transaction's.
        try relocateTree(catalog, from: end, moved: &moved)
        return (moved, trimmed)
    }

    /// Moves the pages of `tree` that lie at or past `end`, repairing its shape on the way
    /// (``relocate(_:tree:from:level:moved:)``); a root left with one child gives way to it.
    private func relocateTree(_ tree: Tree, from end: UInt64, moved: inout Int) throws {
        guard tree.info.root != 0 else { return }
        let (root, state) = try relocate(tree.info.root, tree: tree, from: end, level: 0, moved: &moved)
        if root != tree.info.root {
            tree.info.root = root
            tree.modified = true
        }
        guard state != .fine else { return }
        // As a delete leaves the root: an empty one goes, one with one child gives way to it.
        let before = (tree.info.root, tree.info.depth)
        if state == .empty { try freeRoot(tree) } else { try shrinkRoot(tree) }
        if (tree.info.root, tree.info.depth) != before { tree.modified = true }
    }

    /// Moves the pages of the subtree at `pgno` that lie at or past `end` (and their
    /// parents); returns the subtree's root as it is now, and its state as a delete's parent
    /// sees it (`NodeState`).
    ///
    /// A round that moves pages reads every page of every tree, so it repairs the tree's
    /// shape (``Tree``) where it finds it broken, as a delete through the place would: a
    /// leaf with no entries below the root leaves its parent, and a branch with one child is
    /// merged with a sibling or shares its children (``repairChild(_:parent:parentPgno:index:isBranch:)``),
    /// wherever they are: only older files hold them, and ``Storage/verify()`` reports them.
    /// A leaf or branch under a quarter full is merged with a sibling (when both fit) only
    /// under a branch the round rewrites anyway: elsewhere that would copy the path above it
    /// only to save a page, which the next packing commit through it saves too.
    private func relocate(_ pgno: UInt64, tree: Tree, from end: UInt64, level: Int, moved: inout Int) throws -> (pgno: UInt64, state: NodeState) {
        guard level < WriteTransaction.maxDepth else {
            throw StorageError.corrupt(page: pgno, detail: "tree deeper than \(WriteTransaction.maxDepth) levels (a cycle?)")
        }
        // Copy out what the view says before going on: a child's move may spill or remap.
        var changes: [(index: Int, pgno: UInt64, checksum: UInt64)] = []
        let view = try node(pgno)
        let isLeaf = view.isLeaf
        let state: NodeState = view.count == 0 ? .empty
            : (!isLeaf && view.count < 2) || view.usedBytes < underflowBytes ? .underfull : .fine
        // Children the shape rule does not allow (empty, or branches with one child), and
        // children under a quarter full.
        var broken = false, underfull = false
        var states: [NodeState] = []
        if isLeaf {
            var overflows: [(index: Int, pgno: UInt64, length: UInt64)] = []
            for i in 0..<view.count {
                if case let .overflow(opg, _, length) = try view.value(i), opg >= end { overflows.append((i, opg, length)) }
            }
            for o in overflows {
                if let to = try moveOverflow(o.pgno, length: o.length) {
                    changes.append((o.index, to.pgno, to.checksum))
                    moved += overflowPages(length: o.length)
                }
            }
        } else {
            let children = try (0..<view.count).map { try view.child($0) }
            for (i, child) in children.enumerated() {
                if dirtyBytes > storage.options.maxDirtyBytes { try spill() }
                let to = try relocate(child, tree: tree, from: end, level: level + 1, moved: &moved)
                if to.pgno != child { changes.append((i, to.pgno, 0)) }
                states.append(to.state)
                switch to.state {
                case .fine: break
                case .empty: broken = true
                case .underfull:
                    underfull = true
                    let n = try node(to.pgno)
                    if !n.isLeaf && n.count < 2 { broken = true }
                }
            }
        }
        let movesItself = pgno >= end && !isOwn(pgno) && (freeList.lowestReady.map { $0 < pgno } ?? false)
        guard movesItself || !changes.isEmpty || broken else { return (pgno, state) }
        let (np, p) = try touch(pgno)
        if movesItself {
            moved += 1
            relocated[np] = 1
        }
        let editor = NodeEditor(p: p, pageSize: pageSize)
        if isLeaf {
            for c in changes { editor.setOverflow(c.index, pgno: c.pgno, checksum: c.checksum) }
            return (np, state)
        }
        for c in changes { editor.setChild(c.index, pgno: c.pgno, checksum: 0) }
        if broken || underfull {
            tree.modified = true
            // Children left with nothing go first (a branch whose children all went is never
            // read), from the last, so that the indexes still to come stay put.
            for i in states.indices.reversed() where states[i] == .empty {
                try removeEmptyChild(tree, parent: p, parentPgno: np, index: i, childPgno: try NodeView(p, pgno: np, pageSize: pageSize).child(i))
            }
            // Then the others, from the last too: a merge takes a child into its left sibling.
            var i = editor.count - 1
            while i >= 0 {
                defer { i -= 1 }
                guard i < editor.count else { continue }
                let child = try node(try NodeView(p, pgno: np, pageSize: pageSize).child(i))
                guard (!child.isLeaf && child.count < 2) || child.usedBytes < underflowBytes else { continue }
                try repairChild(tree, parent: p, parentPgno: np, index: i, isBranch: !child.isLeaf)
            }
        }
        return (np, nodeState(editor, isLeaf: false))
    }

    /// Copies the overflow run at `pgno` to the lowest free run, if that lies before it, and
    /// writes it at once (as ``put(_:_:_:)`` writes a new one); nil if there is none.
    private func moveOverflow(_ pgno: UInt64, length: UInt64) throws -> (pgno: UInt64, checksum: UInt64)? {
        let pages = overflowPages(length: length)
        guard let to = freeList.allocate(pages) else { return nil }
        guard to < pgno else {
            freeList.release(to, count: pages)
            return nil
        }
        let bytes = pages * pageSize
        let p = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
        defer { p.deallocate() }
        p.copyMemory(from: try run(pgno, pages: pages), byteCount: bytes)
        PageHeader.setIdentity(p, pgno: to, txnid: txnid)
        let checksum = try seal(p, length: bytes, pgno: to)
        try storage.io.write(UnsafeRawBufferPointer(start: p, count: bytes), at: to * UInt64(pageSize))
        early[to] = (pages, checksum)
        try freePage(pgno, pages: pages)
        relocated[to] = pages
        return (to, checksum)
    }
}
