/// What a node asks of its parent after an edit removed something from it.
enum NodeState {
    /// Nothing: it is full enough.
    case fine
    /// A leaf under a quarter full, or a branch under a quarter full or with one child: the
    /// parent merges it with a sibling, or (a branch with one child) shares a sibling's.
    case underfull
    /// No entries left (a leaf) or no children (a branch): the parent drops it. A childless
    /// branch never reaches the file, and is never read through `NodeView` (which refuses it).
    case empty
}

/// Deletes keep the tree's shape (stated in ``Tree``): no leaf but the root is empty, and every
/// branch has two children or more unless it can neither merge nor share. A leaf emptied by a
/// delete leaves its parent at once, a branch left with one child is merged with a sibling or
/// takes some of its children, and a root left with one child gives way to it. A file written
/// without this shape (the format allows it) may hold empty leaves and one-child branches,
/// also one under another or side by side; a delete through them, or a commit that packs
/// leaves under them, repairs them.
extension WriteTransaction {
    /// Inlined: a delete asks it once per level, and the call cost 2% of the instructions of
    /// TroveBench's removals (callgrind).
    @inline(__always)
    func nodeState(_ editor: NodeEditor, isLeaf: Bool) -> NodeState {
        let count = editor.count
        if count == 0 { return .empty }
        if !isLeaf && count < 2 { return .underfull }
        return usable - editor.freeSpace < underflowBytes ? .underfull : .fine
    }

    /// Frees the root of `tree`, left with no entries or children: the tree is empty.
    func freeRoot(_ tree: Tree) throws {
        try freePage(tree.info.root, pages: 1)
        tree.info.pages -= 1
        tree.info.root = 0
        tree.info.depth = 0
    }

    /// Shrinks the root: a branch with one child hands over to it; an empty leaf empties the tree.
    func shrinkRoot(_ tree: Tree) throws {
        while tree.info.root != 0 {
            let n = try node(tree.info.root)
            if n.isLeaf {
                if n.count == 0 { try freeRoot(tree) }
                return
            }
            guard n.count == 1 else { return }
            let child = try n.child(0)
            // The child may be a page this transaction never copied: commit reseals only a
            // root it owns, so the root's checksum is the one its parent recorded (zero, for
            // a child this transaction owns, which commit seals).
            let checksum = n.childChecksum(0)
            try freePage(tree.info.root, pages: 1)
            tree.info.pages -= 1
            tree.info.root = child
            tree.info.rootChecksum = checksum
            tree.info.depth -= 1
        }
    }

    /// Frees child `index` of the branch `parent` (page `childPgno`, left empty) and removes
    /// its entry; the child after it becomes the leftmost when it was the first. The parent
    /// may be left with no children: its own parent then frees it.
    func removeEmptyChild(_ tree: Tree, parent: UnsafeMutableRawPointer, parentPgno: UInt64, index: Int, childPgno: UInt64) throws {
        try freePage(childPgno, pages: 1)
        tree.info.pages -= 1
        let editor = NodeEditor(p: parent, pageSize: pageSize)
        // Entry 0's key is empty: the next child's separator goes, its lower bound is the parent's.
        if index == 0 && editor.count > 1 { try replaceSeparator(parent: parent, parentPgno: parentPgno, at: 1, with: []) }
        editor.remove(at: index, size: try NodeView(parent, pgno: parentPgno, pageSize: pageSize).entrySize(index))
    }

    /// Child `index` of `parent` is underfull (`NodeState.underfull`; a branch when `isBranch`):
    /// balances it with a sibling (``balanceChild(_:parent:parentPgno:index:)``), then each
    /// branch with one child below it, which the merge or share carries beside siblings
    /// (``balanceCarried(_:_:parent:parentPgno:index:)``).
    func repairChild(_ tree: Tree, parent: UnsafeMutableRawPointer, parentPgno: UInt64, index: Int, isBranch: Bool) throws {
        let carried = isBranch ? try onlyChildren(of: try NodeView(parent, pgno: parentPgno, pageSize: pageSize).child(index)) : []
        try balanceChild(tree, parent: parent, parentPgno: parentPgno, index: index)
        if !carried.isEmpty { try balanceCarried(tree, carried, parent: parent, parentPgno: parentPgno, index: index) }
    }

    /// Child `index` of `parent` is underfull (`NodeState.underfull`): merges it with a
    /// sibling when both fit in one page; a branch with one child that cannot merge takes
    /// children from the sibling instead, so that both end with two or more. Touches (copies)
    /// the sibling only when it changes. The sibling is the left one, but for a branch with
    /// one child whose right sibling has one child too (an older file's pair): the two make
    /// one branch of two, where pairing it with the left one would leave the right one as it
    /// is, and copy the left one. A parent with one child (an older file's) leaves the child
    /// as it is; the parent is underfull itself, and its own parent balances it, then the
    /// child where that carries it (``repairChild(_:parent:parentPgno:index:isBranch:)``).
    func balanceChild(_ tree: Tree, parent: UnsafeMutableRawPointer, parentPgno: UInt64, index: Int) throws {
        let pv = try NodeView(parent, pgno: parentPgno, pageSize: pageSize)
        guard pv.count >= 2 else { return }
        let child = try node(try pv.child(index))
        var leftIndex = index > 0 ? index - 1 : index
        if leftIndex < index, index + 1 < pv.count, !child.isLeaf, child.count == 1 {
            let right = try node(try pv.child(index + 1))
            if !right.isLeaf && right.count == 1 { leftIndex = index }
        }
        let rightIndex = leftIndex + 1
        let leftView = leftIndex == index ? child : try node(try pv.child(leftIndex))
        let rightView = rightIndex == index ? child : try node(try pv.child(rightIndex))
        let separatorCount = try pv.key(rightIndex).count
        let extra = rightView.isLeaf ? 0 : separatorCount
        if leftView.usedBytes + rightView.usedBytes + extra <= usable {
            try merge(tree, parent: parent, parentPgno: parentPgno, leftIndex: leftIndex)
        } else if !rightView.isLeaf, min(leftView.count, rightView.count) < 2 {
            try shareChildren(parent: parent, parentPgno: parentPgno, leftIndex: leftIndex, left: leftView, right: rightView)
        }
    }

    /// The pages below the branch `pgno` reached through branches with one child, top first:
    /// empty when `pgno` has two children or more.
    func onlyChildren(of pgno: UInt64) throws -> [UInt64] {
        var chain: [UInt64] = []
        var n = try node(pgno)
        while !n.isLeaf && n.count == 1 {
            let child = try n.child(0)
            chain.append(child)
            n = try node(child)
        }
        return chain
    }

    /// Balances each of `chain` (``onlyChildren(of:)`` of child `index` of `parent`, before
    /// ``balanceChild(_:parent:parentPgno:index:)`` merged or shared that child) that is
    /// underfull, in the node that now holds it, top first: each lands beside siblings when
    /// the one above it does. A merge there can leave the node that holds it with one child
    /// (two one-child branches merged, then their children): such a node is repaired in turn,
    /// from the bottom up, in its own parent. Each repair follows a merge, which frees a page,
    /// so the repairs end.
    func balanceCarried(_ tree: Tree, _ chain: [UInt64], parent: UnsafeMutableRawPointer, parentPgno: UInt64, index: Int) throws {
        var (parent, parentPgno, index) = (parent, parentPgno, index)
        // Each node that held a target with two children or more, as its parent's child
        // `index`, top first. Repairs below one change its children, never its place.
        var holders: [(parent: UnsafeMutableRawPointer, parentPgno: UInt64, index: Int)] = []
        for target in chain {
            // The node holding `target` is one of the children beside where its old parent was.
            let pv = try NodeView(parent, pgno: parentPgno, pageSize: pageSize)
            var found: (child: Int, at: Int)?
            search: for j in max(0, index - 1)...min(index + 1, pv.count - 1) {
                let n = try node(try pv.child(j))
                for k in 0..<n.count where try n.child(k) == target {
                    found = (j, k)
                    break search
                }
            }
            guard let (j, k) = found else { break }
            // Underfull as `nodeState` has it; read, not touched (it may be a sibling this
            // delete left alone, when the path's child was removed).
            let t = try node(target)
            guard (!t.isLeaf && t.count < 2) || t.usedBytes < underflowBytes else { break }
            let (holderPgno, holder) = try touch(try pv.child(j))
            NodeEditor(p: parent, pageSize: pageSize).setChild(j, pgno: holderPgno, checksum: 0)
            let children = NodeEditor(p: holder, pageSize: pageSize).count
            try balanceChild(tree, parent: holder, parentPgno: holderPgno, index: k)
            // Only a merge here leaves it with one child where it had two: one that had one
            // already could not be balanced above, and would not be now.
            if children >= 2 { holders.append((parent, parentPgno, j)) }
            (parent, parentPgno, index) = (holder, holderPgno, k)
        }
        for h in holders.reversed() {
            let held = try node(try NodeView(h.parent, pgno: h.parentPgno, pageSize: pageSize).child(h.index))
            guard !held.isLeaf, held.count < 2 else { continue }
            try repairChild(tree, parent: h.parent, parentPgno: h.parentPgno, index: h.index, isBranch: true)
        }
    }

    /// Moves the entries of child `leftIndex + 1` of `parent` into child `leftIndex` (the
    /// caller checked they fit) and frees the right page.
    private func merge(_ tree: Tree, parent: UnsafeMutableRawPointer, parentPgno: UInt64, leftIndex: Int) throws {
        let pv = try NodeView(parent, pgno: parentPgno, pageSize: pageSize)
        let rightIndex = leftIndex + 1
        let rightPgno = try pv.child(rightIndex)
        let separator = Array(try pv.key(rightIndex))
        let (leftPgno, lp) = try touch(try pv.child(leftIndex))
        let left = NodeEditor(p: lp, pageSize: pageSize)
        // Copy the right page's entries (read from a private copy: touching may have moved pages).
        // A right leaf of an older file is re-encoded narrow, as its left sibling is.
        let rightView = try node(rightPgno)
        try rightView.validate()
        scratch.copyMemory(from: rightView.p, byteCount: pageSize)
        let rv = try NodeView(scratch, pgno: rightPgno, pageSize: pageSize)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: NodeEditor.maxNarrowEntry, alignment: 8)
        defer { buffer.deallocate() }
        for j in 0..<rv.count {
            if j == 0 && !rv.isLeaf {
                let child = try rv.child(0)
                let checksum = rv.childChecksum(0)
                separator.withUnsafeBytes { left.insertBranch(at: left.count, key: $0, child: child, checksum: checksum) }
            } else if rv.isLeaf {
                left.appendRaw(try rv.narrowEntry(j, buffer: buffer))
            } else {
                left.appendRaw(UnsafeRawBufferPointer(start: scratch + rv.slot(j), count: try rv.entrySize(j)))
            }
        }
        try freePage(rightPgno, pages: 1)
        tree.info.pages -= 1
        let pe = NodeEditor(p: parent, pageSize: pageSize)
        pe.remove(at: rightIndex, size: try NodeView(parent, pgno: parentPgno, pageSize: pageSize).entrySize(rightIndex))
        pe.setChild(leftIndex, pgno: leftPgno, checksum: 0)
    }

    /// Lays the children of the branches `leftIndex` and `leftIndex + 1` of `parent` (`left`
    /// and `right`, too full to merge) out again across the two, as even in bytes as the
    /// entries allow with two or more children each, rotating the separator through the
    /// parent. Changes nothing when no split fits both pages and the parent's room for the
    /// new separator (only keys of very different lengths can make that so).
    private func shareChildren(parent: UnsafeMutableRawPointer, parentPgno: UInt64, leftIndex: Int,
                               left: NodeView, right: NodeView) throws {
        let rightIndex = leftIndex + 1
        let pv = try NodeView(parent, pgno: parentPgno, pageSize: pageSize)
        let separator = Array(try pv.key(rightIndex))
        let n = left.count + right.count
        guard n >= 4 else { return }
        // Entry j of the two laid end to end: the left's, then the right's first child under
        // the separator, then the right's others. Sizes count the slot; the leftmost's key is empty.
        let leftmostSize = NodeView.branchFixed + 2
        var before = [0]
        before.reserveCapacity(n + 1)
        for j in 0..<n {
            let size = j == 0 ? leftmostSize
                : j < left.count ? try left.entrySize(j) + 2
                : j == left.count ? NodeView.branchFixed + separator.count + 2
                : try right.entrySize(j - left.count) + 2
            before.append(before[j] + size)
        }
        let parentRoom = NodeEditor(p: parent, pageSize: pageSize).freeSpace
        var best: (at: Int, imbalance: Int)?
        for s in 2...(n - 2) {
            let leftBytes = before[s]
            let rightBytes = leftmostSize + before[n] - before[s + 1]
            let keyCount = before[s + 1] - before[s] - NodeView.branchFixed - 2
            guard leftBytes <= usable, rightBytes <= usable, keyCount - separator.count <= parentRoom else { continue }
            let imbalance = abs(leftBytes - rightBytes)
            if imbalance < best?.imbalance ?? .max { best = (s, imbalance) }
        }
        guard let s = best?.at else { return }

        let (leftPgno, lp) = try touch(try pv.child(leftIndex))
        let (rightPgno, rp) = try touch(try pv.child(rightIndex))
        // Both pages copied aside (either may be one this transaction owns), then refilled;
        // the separator beside them.
        let copies = UnsafeMutableRawPointer.allocate(byteCount: 2 * pageSize + separator.count, alignment: 16)
        defer { copies.deallocate() }
        copies.copyMemory(from: lp, byteCount: pageSize)
        (copies + pageSize).copyMemory(from: rp, byteCount: pageSize)
        if !separator.isEmpty { separator.withUnsafeBytes { (copies + 2 * pageSize).copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
        let separatorBytes = UnsafeRawBufferPointer(start: copies + 2 * pageSize, count: separator.count)
        let lv = try NodeView(copies, pgno: leftPgno, pageSize: pageSize)
        let rv = try NodeView(copies + pageSize, pgno: rightPgno, pageSize: pageSize)
        func entry(_ j: Int) throws -> (child: UInt64, checksum: UInt64, key: UnsafeRawBufferPointer) {
            if j < lv.count { return (try lv.child(j), lv.childChecksum(j), j == 0 ? UnsafeRawBufferPointer(start: nil, count: 0) : try lv.key(j)) }
            let r = j - lv.count
            if r == 0 { return (try rv.child(0), rv.childChecksum(0), separatorBytes) }
            return (try rv.child(r), rv.childChecksum(r), try rv.key(r))
        }
        let up = Array(try entry(s).key)
        for (page, range) in [(lp, 0..<s), (rp, s..<n)] {
            let editor = NodeEditor(p: page, pageSize: pageSize)
            editor.reset()
            for j in range {
                // Keep each child's recorded checksum: zero would mark it as touched by this transaction.
                let e = try entry(j)
                if j == range.lowerBound { editor.appendLeftmost(child: e.child, checksum: e.checksum) }
                else { editor.insertBranch(at: editor.count, key: e.key, child: e.child, checksum: e.checksum) }
            }
        }
        try replaceSeparator(parent: parent, parentPgno: parentPgno, at: rightIndex, with: up)
        let pe = NodeEditor(p: parent, pageSize: pageSize)
        pe.setChild(leftIndex, pgno: leftPgno, checksum: 0)
        pe.setChild(rightIndex, pgno: rightPgno, checksum: 0)
    }
}
