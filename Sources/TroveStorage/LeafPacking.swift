#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension WriteTransaction {
    /// Packs the leaves this transaction wrote before it commits: where consecutive children
    /// of a branch are all leaves held in memory, their entries are laid out again, in order,
    /// filling each page before the next, and the pages left empty are released. Random keys
    /// leave split pages part full (87% with sibling balancing); a bulk load or a delete that
    /// rewrites most leaves then ends with them full, as ascending keys leave them, at the cost
    /// of copying entries that are in memory anyway. Leaves written out early (`spill`) and
    /// pages earlier commits wrote stay as they are, so a small commit writes no more pages.
    /// A commit of fewer than `packingThreshold` pages skips the walk: it could free little.
    /// Packing keeps the tree's shape (``Tree``): leaves it leaves empty leave their parents,
    /// and branches it leaves with one child are merged with a sibling or share its children,
    /// as a delete repairs them (``repairChild(_:parent:parentPgno:index:isBranch:)``): a
    /// branch left with one child under one left so too is repaired once the upper one merges.
    func packWrittenLeaves() throws {
        guard dirty.count >= WriteTransaction.packingThreshold else { return }
        for t in openTrees.all where t.modified && !t.dropped && t.info.depth >= 2 && isOwn(t.info.root) {
            if try packLeaves(under: t.info.root, tree: t, level: 1) { try freeRoot(t) } else { try shrinkRoot(t) }
        }
        try lowerWrittenPages()
    }

    /// Moves the tree pages held in memory into the lowest free pages below them, so that the
    /// pages packing freed end the file, which then ends before them: a bulk load leaves no
    /// free pages behind. Nothing has seen a page held in memory, so moving one is giving it
    /// another number (and its parent the new number). The file never ends before the pages
    /// the base commit counts: cutting those is the vacuum's.
    private func lowerWrittenPages() throws {
        guard freeList.readyCount > 0 else { return }
        for t in openTrees.all where t.modified && !t.dropped && isOwn(t.info.root) {
            t.info.root = try lower(t.info.root, level: 1)
        }
        pageLimit = freeList.trimTail(pageCount: pageLimit, notBelow: meta.pageCount)
    }

    /// The subtree at `pgno` with its pages held in memory moved down; returns its root's
    /// page number.
    private func lower(_ pgno: UInt64, level: Int) throws -> UInt64 {
        guard let p = dirty[pgno], level < WriteTransaction.maxDepth else { return pgno }
        let view = try NodeView(p, pgno: pgno, pageSize: pageSize)
        if !view.isLeaf {
            let editor = NodeEditor(p: p, pageSize: pageSize)
            for i in 0..<view.count {
                let child = try view.child(i)
                let moved = try lower(child, level: level + 1)
                if moved != child { editor.setChild(i, pgno: moved, checksum: 0) }
            }
        }
        guard let lowest = freeList.lowestReady, lowest < pgno, let to = freeList.allocate(1) else { return pgno }
        guard to < pgno, let buffer = dirty.remove(pgno) else {
            freeList.release(to, count: 1)
            return pgno
        }
        dirty.insert(to, buffer)
        PageHeader.setIdentity(buffer, pgno: to, txnid: txnid)
        freeList.release(pgno, count: 1)
        return to
    }

    static let packingThreshold = 64

    /// Packs the leaves under the branch `pgno`, held in memory; returns whether it is left
    /// with no children (its parent then frees it: a childless branch is never read).
    private func packLeaves(under pgno: UInt64, tree: Tree, level: Int) throws -> Bool {
        guard let p = dirty[pgno], level < WriteTransaction.maxDepth else { return false }
        let view = try NodeView(p, pgno: pgno, pageSize: pageSize)
        guard !view.isLeaf else { return false }
        let editor = NodeEditor(p: p, pageSize: pageSize)
        if level + 1 < Int(tree.info.depth) {
            let children = try (0..<view.count).map { try view.child($0) }
            let emptied = try children.map { try packLeaves(under: $0, tree: tree, level: level + 1) }
            // From the last, so that the indexes still to come stay put.
            for i in children.indices.reversed() where emptied[i] {
                try removeEmptyChild(tree, parent: p, parentPgno: pgno, index: i, childPgno: children[i])
            }
            for i in stride(from: editor.count - 1, through: 0, by: -1) where i < editor.count {
                let child = try NodeView(p, pgno: pgno, pageSize: pageSize).child(i)
                guard let c = dirty[child], !(try NodeView(c, pgno: child, pageSize: pageSize).isLeaf),
                      NodeEditor(p: c, pageSize: pageSize).count < 2 else { continue }
                try repairChild(tree, parent: p, parentPgno: pgno, index: i, isBranch: true)
            }
            return editor.count == 0
        }
        // Runs of children in memory, packed from the last so earlier indexes stay put.
        var end = view.count - 1
        while end >= 1 {
            var start = end
            while start >= 0, dirty[try view.child(start)] != nil { start -= 1 }
            if end - start >= 2 { try packRun(parent: p, parentPgno: pgno, from: start + 1, through: end, tree: tree) }
            end = start - 1
        }
        // Leaves left empty (a run with no entries, or an older file's) leave the parent.
        for i in stride(from: editor.count - 1, through: 0, by: -1) {
            let child = try NodeView(p, pgno: pgno, pageSize: pageSize).child(i)
            guard let c = dirty[child], NodeEditor(p: c, pageSize: pageSize).count == 0 else { continue }
            try removeEmptyChild(tree, parent: p, parentPgno: pgno, index: i, childPgno: child)
        }
        return editor.count == 0
    }

    /// Lays the entries of children `from...through` of `parent` (leaves in memory) out again,
    /// each page filled before the next; releases the pages left empty and gives the parent
    /// the new separators. Does nothing when that would free no page, or the parent could not
    /// take the new separators.
    private func packRun(parent: UnsafeMutableRawPointer, parentPgno: UInt64, from: Int, through: Int, tree: Tree) throws {
        let usable = pageSize - PageLayout.headerSize - PageLayout.trailerSize
        let pv = try NodeView(parent, pgno: parentPgno, pageSize: pageSize)
        let pages = try (from...through).map { try pv.child($0) }
        var used = 0
        for pgno in pages { used += try NodeView(dirty[pgno]!, pgno: pgno, pageSize: pageSize).usedBytes }
        guard (used + usable - 1) / usable < pages.count else { return }

        // The run's pages copied aside, then refilled from the copies in order.
        let copies = UnsafeMutableRawPointer.allocate(byteCount: pages.count * pageSize, alignment: 16)
        defer { copies.deallocate() }
        var views: [NodeView] = []
        for (k, pgno) in pages.enumerated() {
            (copies + k * pageSize).copyMemory(from: dirty[pgno]!, byteCount: pageSize)
            let v = try NodeView(copies + k * pageSize, pgno: pgno, pageSize: pageSize)
            guard v.isLeaf else { return }
            views.append(v)
        }
        // Where each page starts (page, entry) once packed: planned first, so nothing changes
        // if the parent cannot take the separators.
        var starts: [(page: Int, entry: Int)] = []
        var room = 0
        for (k, v) in views.enumerated() {
            for j in 0..<v.count {
                let size = try v.entrySize(j) + 2
                if starts.isEmpty || size > room {
                    starts.append((k, j))
                    room = usable
                }
                room -= size
            }
        }
        guard starts.count < pages.count else { return }
        var separatorBytes = 0, oldBytes = 0
        for s in starts.dropFirst() { separatorBytes += NodeView.branchFixed + (try views[s.page].key(s.entry)).count + 2 }
        for i in (from + 1)...through { oldBytes += try pv.entrySize(i) + 2 }
        let parentEditor = NodeEditor(p: parent, pageSize: pageSize)
        guard separatorBytes <= oldBytes + parentEditor.freeSpace else { return }

        for i in stride(from: through, to: from, by: -1) {
            parentEditor.remove(at: i, size: try NodeView(parent, pgno: parentPgno, pageSize: pageSize).entrySize(i))
        }
        var target = -1
        var editor = NodeEditor(p: dirty[pages[0]]!, pageSize: pageSize)
        var next = 0
        for (k, v) in views.enumerated() {
            for j in 0..<v.count {
                if next < starts.count, starts[next] == (k, j) {
                    target += 1
                    next += 1
                    editor = NodeEditor(p: dirty[pages[target]]!, pageSize: pageSize)
                    editor.reset()
                    if target > 0 {
                        let key = try v.key(j)
                        parentEditor.insertBranch(at: from + target, key: key, child: pages[target], checksum: 0)
                    }
                }
                editor.appendRaw(UnsafeRawBufferPointer(start: v.p + v.slot(j), count: try v.entrySize(j)))
            }
        }
        // A run of empty leaves has no entry to start a page: the first stays, empty, as the
        // parent's child `from`, until `packLeaves` removes it.
        for pgno in pages[max(starts.count, 1)...] {
            try freePage(pgno, pages: 1)
            tree.info.pages -= 1
        }
    }
}
