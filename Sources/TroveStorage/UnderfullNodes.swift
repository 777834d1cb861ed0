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
/// also one under another or side by side, in runs and chains; a delete through them, or a
/// commit that packs leaves under them, repairs them (a run of one-child branches side by
/// side becomes one branch, and each chain below is repaired level by level), and a vacuum
/// that moves pages repairs every one it walks past.
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
    /// node that merge or share carries beside new siblings (the only child of each branch
    /// with one child it joined) where that node is underfull itself
    /// (``repairCarried(_:_:parent:parentPgno:near:)``): so the repair goes down every
    /// chain of one-child branches below, level by level, and leaves none.
    func repairChild(_ tree: Tree, parent: UnsafeMutableRawPointer, parentPgno: UInt64, index: Int, isBranch: Bool) throws {
        guard isBranch else {
            try balanceChild(tree, parent: parent, parentPgno: parentPgno, index: index)
            return
        }
        let pv = try NodeView(parent, pgno: parentPgno, pageSize: pageSize)
        guard pv.count >= 2 else { return }
        let child = try node(try pv.child(index))
        // Read before the balance: merging moves these into one node, sharing into two.
        var carried: [UInt64] = []
        let run = try oneChildRun(pv, child, index: index)
        for j in run { carried.append(try node(try pv.child(j)).child(0)) }
        if run.isEmpty {
            // The sibling a pair balance takes (``balancePair``'s choice) may have one child.
            let sibling = try node(try pv.child(index > 0 ? index - 1 : index + 1))
            if !sibling.isLeaf, sibling.count == 1 { carried.append(try sibling.child(0)) }
        }
        var at = try balanceChild(tree, parent: parent, parentPgno: parentPgno, index: index)
        for target in carried {
            at = try repairCarried(tree, target, parent: parent, parentPgno: parentPgno, near: at)
        }
    }

    /// The children of `parent` (`pv`) around child `index` (`child`) that are branches with
    /// one child side by side (an older file's): `index` alone when `child` is one and its
    /// siblings are not, empty when `child` is not one.
    func oneChildRun(_ pv: NodeView, _ child: NodeView, index: Int) throws -> Range<Int> {
        guard !child.isLeaf, child.count == 1 else { return index..<index }
        var (lo, hi) = (index, index)
        while lo > 0 {
            let n = try node(try pv.child(lo - 1))
            guard !n.isLeaf, n.count == 1 else { break }
            lo -= 1
        }
        while hi + 1 < pv.count {
            let n = try node(try pv.child(hi + 1))
            guard !n.isLeaf, n.count == 1 else { break }
            hi += 1
        }
        return lo..<(hi + 1)
    }

    /// `target`, carried by a repair of `parent`'s children into one of those around child
    /// `near`: when it is underfull as ``nodeState(_:isLeaf:)`` has it (read, not touched: it
    /// may be a page no delete went through), it is repaired in the node that holds it, and
    /// that node, when the repair's merge left it with one child, in `parent`. Returns where
    /// among `parent`'s children the others carried with it are to be found: beside the one
    /// that held it. Each repair that goes up follows a merge, which frees a page, so the
    /// repairs end.
    ///
    /// The holder is looked for among all of `parent`'s children, nearest `near` first, so
    /// that finding it does not rest on how far the repairs carried it. On the shapes writers
    /// leave, the nearest hold every target that still needs a repair (for whoever changes the
    /// repairs): several are carried only by a run of one-child branches, which ``mergeRun``
    /// makes one node at the run's first index (the run's separators fit in `parent`, so in
    /// one page: a branch's entry 0 has no key); repairing one target in it changes no child
    /// of `parent` unless it leaves that node one child, and then at most one target is left
    /// (that child), which the repair in `parent` carries and repairs itself. A target not
    /// found was merged away (freed) or shared children with the one before it (copied to a
    /// new page, with two children or more).
    func repairCarried(_ tree: Tree, _ target: UInt64, parent: UnsafeMutableRawPointer, parentPgno: UInt64, near index: Int) throws -> Int {
        let pv = try NodeView(parent, pgno: parentPgno, pageSize: pageSize)
        var found: (child: Int, at: Int)?
        search: for j in (0..<pv.count).sorted(by: { abs($0 - index) < abs($1 - index) }) {
            let n = try node(try pv.child(j))
            guard !n.isLeaf else { continue }
            for k in 0..<n.count where try n.child(k) == target {
                found = (j, k)
                break search
            }
        }
        guard let (j, k) = found else { return index }
        let t = try node(target)
        guard (!t.isLeaf && t.count < 2) || t.usedBytes < underflowBytes else { return j }
        let (holderPgno, holder) = try touch(try pv.child(j))
        NodeEditor(p: parent, pageSize: pageSize).setChild(j, pgno: holderPgno, checksum: 0)
        let holderEditor = NodeEditor(p: holder, pageSize: pageSize)
        let children = holderEditor.count
        try repairChild(tree, parent: holder, parentPgno: holderPgno, index: k, isBranch: !t.isLeaf)
        // Only a merge there leaves it with one child where it had two or more: one that had
        // one already could not be balanced in `parent`, and would not be now.
        guard children >= 2, holderEditor.count < 2, NodeEditor(p: parent, pageSize: pageSize).count >= 2 else { return j }
        try repairChild(tree, parent: parent, parentPgno: parentPgno, index: j, isBranch: true)
        return max(0, min(j, NodeEditor(p: parent, pageSize: pageSize).count - 1))
    }

    /// Child `index` of `parent` is underfull (`NodeState.underfull`): merges it with a
    /// sibling when both fit in one page; a branch with one child that cannot merge takes
    /// children from the sibling instead, so that both end with two or more. Touches (copies)
    /// the sibling only when it changes. A branch with one child beside others with one child
    /// (an older file's run) makes one branch of them with the run's children instead
    /// (``mergeRun(_:parent:parentPgno:run:)``), where pairing it with one sibling would
    /// leave the rest of the run as it is. A parent with one child (an older file's) leaves
    /// the child as it is; the parent is underfull itself, and its own parent balances it,
    /// then the child where that carries it (``repairChild(_:parent:parentPgno:index:isBranch:)``).
    /// Returns the index of the child that now holds the entries or children child `index`
    /// held (the first of the two after a share).
    @discardableResult
    func balanceChild(_ tree: Tree, parent: UnsafeMutableRawPointer, parentPgno: UInt64, index: Int) throws -> Int {
        let pv = try NodeView(parent, pgno: parentPgno, pageSize: pageSize)
        guard pv.count >= 2 else { return index }
        let child = try node(try pv.child(index))
        let run = try oneChildRun(pv, child, index: index)
        if run.count > 1 { return try mergeRun(tree, parent: parent, parentPgno: parentPgno, run: run) }
        return try balancePair(tree, parent: parent, parentPgno: parentPgno, index: index)
    }

    /// Child `index` of `parent`, balanced with its left sibling (the right one for the first
    /// child): merged when both fit, children shared when one of the two branches has fewer
    /// than two. Returns what ``balanceChild(_:parent:parentPgno:index:)`` returns.
    private func balancePair(_ tree: Tree, parent: UnsafeMutableRawPointer, parentPgno: UInt64, index: Int) throws -> Int {
        let pv = try NodeView(parent, pgno: parentPgno, pageSize: pageSize)
        guard pv.count >= 2 else { return index }
        let leftIndex = index > 0 ? index - 1 : index
        let rightIndex = leftIndex + 1
        let leftView = try node(try pv.child(leftIndex))
        let rightView = try node(try pv.child(rightIndex))
        let separatorCount = try pv.key(rightIndex).count
        let extra = rightView.isLeaf ? 0 : separatorCount
        if leftView.usedBytes + rightView.usedBytes + extra <= usable {
            try merge(tree, parent: parent, parentPgno: parentPgno, leftIndex: leftIndex)
            return leftIndex
        } else if !rightView.isLeaf, min(leftView.count, rightView.count) < 2 {
            try shareChildren(parent: parent, parentPgno: parentPgno, leftIndex: leftIndex, left: leftView, right: rightView)
        }
        return leftIndex
    }

    /// Merges the branches `run` of `parent` (adjacent, one child each) left to right, each
    /// into the one before it while both fit in a page; a branch still with one child after
    /// that (keys too long to merge) is balanced with its left sibling. Returns the run's
    /// first index.
    private func mergeRun(_ tree: Tree, parent: UnsafeMutableRawPointer, parentPgno: UInt64, run: Range<Int>) throws -> Int {
        var (i, end) = (run.lowerBound, run.upperBound - 1)
        while i < end {
            let pv = try NodeView(parent, pgno: parentPgno, pageSize: pageSize)
            let left = try node(try pv.child(i)), right = try node(try pv.child(i + 1))
            if left.usedBytes + right.usedBytes + (try pv.key(i + 1)).count <= usable {
                try merge(tree, parent: parent, parentPgno: parentPgno, leftIndex: i)
                end -= 1
            } else {
                i += 1
            }
        }
        for j in stride(from: end, through: run.lowerBound, by: -1) {
            let pv = try NodeView(parent, pgno: parentPgno, pageSize: pageSize)
            guard j < pv.count, try node(try pv.child(j)).count < 2 else { continue }
            _ = try balancePair(tree, parent: parent, parentPgno: parentPgno, index: j)
        }
        return run.lowerBound
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
