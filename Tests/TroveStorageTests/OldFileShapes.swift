@testable import TroveStorage

extension WriteTransaction {
    /// Empties the leaf reached by following `path` from the root of `t` (-1: the last child),
    /// then child 0 down to a leaf, but for its first `keeping` entries, as a writer without
    /// the shape rule of ``Tree`` (or without merging underfull leaves) may leave it; returns
    /// the keys it removed. Overflow pages of their values are left behind (leaked, for the
    /// verifier).
    func emptyLeaf(_ t: Tree, path: [Int], keeping: Int = 0) throws -> [[UInt8]] {
        var (pgno, p) = try touch(t.info.root)
        t.info.root = pgno
        var steps = path[...]
        while true {
            let n = try NodeView(p, pgno: pgno, pageSize: pageSize)
            if n.isLeaf {
                let keys = try (min(keeping, n.count)..<n.count).map { Array(try n.key($0)) }
                let editor = NodeEditor(p: p, pageSize: pageSize)
                for i in stride(from: n.count - 1, through: min(keeping, n.count), by: -1) {
                    editor.remove(at: i, size: try n.entrySize(i))
                }
                t.info.entries -= UInt64(keys.count)
                t.modified = true
                return keys
            }
            let step = steps.popFirst() ?? 0
            let i = step < 0 ? n.count - 1 : step
            let (childPgno, child) = try touch(try n.child(i))
            NodeEditor(p: p, pageSize: pageSize).setChild(i, pgno: childPgno, checksum: 0)
            (pgno, p) = (childPgno, child)
        }
    }

    /// Leaves the branch reached by following `path` from the root of `t` (-1: the last
    /// child) with its first child only, as a writer without the shape rule of ``Tree`` may
    /// leave it: the subtrees of its other children are freed and their entries removed, so
    /// the file stays sound for the verifier. Returns the keys they held.
    func oneChildBranch(_ t: Tree, path: [Int]) throws -> [[UInt8]] {
        try trimBranch(t, path: path, keeping: 1)
    }

    /// Leaves the branch reached by following `path` from the root of `t` (-1: the last
    /// child) with its first `keeping` children, as ``oneChildBranch(_:path:)`` does with one.
    func trimBranch(_ t: Tree, path: [Int], keeping: Int) throws -> [[UInt8]] {
        var (pgno, p) = try touch(t.info.root)
        t.info.root = pgno
        for step in path {
            let n = try NodeView(p, pgno: pgno, pageSize: pageSize)
            let i = step < 0 ? n.count - 1 : step
            let (childPgno, child) = try touch(try n.child(i))
            NodeEditor(p: p, pageSize: pageSize).setChild(i, pgno: childPgno, checksum: 0)
            (pgno, p) = (childPgno, child)
        }
        var removed: [[UInt8]] = []
        var pages: UInt64 = 0
        func collect(_ pgno: UInt64) throws {
            let n = try node(pgno)
            pages += 1
            for i in 0..<n.count {
                if n.isLeaf {
                    removed.append(Array(try n.key(i)))
                    if case let .overflow(_, _, length) = try n.value(i) { pages += UInt64(overflowPages(length: length)) }
                } else {
                    try collect(try n.child(i))
                }
            }
        }
        let branch = try NodeView(p, pgno: pgno, pageSize: pageSize)
        precondition(!branch.isLeaf && branch.count > keeping, "not a branch with more than \(keeping) children")
        for i in (keeping..<branch.count).reversed() {
            let child = try branch.child(i)
            try collect(child)
            try freeSubtree(child)
            NodeEditor(p: p, pageSize: pageSize).remove(at: i, size: try branch.entrySize(i))
        }
        t.info.entries -= UInt64(removed.count)
        t.info.pages -= pages
        t.modified = true
        return removed
    }

}

extension ReadTransaction {
    /// Leaves with no entries below the root, and branches with one child, of `t`: counted
    /// by walking the pages, apart from the verifier.
    func sparseNodes(_ t: Tree) throws -> (emptyLeaves: Int, oneChildBranches: Int) {
        var found = (emptyLeaves: 0, oneChildBranches: 0)
        func walk(_ pgno: UInt64, depth: Int) throws {
            let n = try node(pgno)
            if n.isLeaf {
                if n.count == 0 && depth > 0 { found.emptyLeaves += 1 }
                return
            }
            if n.count == 1 { found.oneChildBranches += 1 }
            for i in 0..<n.count { try walk(try n.child(i), depth: depth + 1) }
        }
        if t.info.root != 0 { try walk(t.info.root, depth: 0) }
        return found
    }

    /// The number of entries (children, for a branch) of the node reached by following `path`
    /// from the root of `t` (-1: the last child).
    func childCount(_ t: Tree, path: [Int]) throws -> Int {
        try nodeAt(t, path: path).count
    }

    /// The bytes the entries and slots of the node reached by following `path` take.
    func usedBytes(_ t: Tree, path: [Int]) throws -> Int {
        try nodeAt(t, path: path).usedBytes
    }

    /// The page number of the node reached by following `path` from the root of `t`.
    func pageNumber(_ t: Tree, path: [Int]) throws -> UInt64 {
        var pgno = t.info.root
        for step in path {
            let n = try node(pgno)
            pgno = try n.child(step < 0 ? n.count - 1 : step)
        }
        return pgno
    }

    private func nodeAt(_ t: Tree, path: [Int]) throws -> NodeView {
        var n = try node(t.info.root)
        for step in path { n = try node(try n.child(step < 0 ? n.count - 1 : step)) }
        return n
    }

    /// The depths of the leaves of `t` (one, in a balanced tree), counted from the root at 1.
    func leafDepths(_ t: Tree) throws -> Set<Int> {
        var depths = Set<Int>()
        func walk(_ pgno: UInt64, _ depth: Int) throws {
            let n = try node(pgno)
            if n.isLeaf { depths.insert(depth); return }
            for i in 0..<n.count { try walk(try n.child(i), depth + 1) }
        }
        if t.info.root != 0 { try walk(t.info.root, 1) }
        return depths
    }

    /// The keys of the leaf reached by following `path` from the root of `t`, then child 0.
    func leafKeys(_ t: Tree, path: [Int]) throws -> [[UInt8]] {
        var n = try node(t.info.root)
        var steps = path[...]
        while !n.isLeaf {
            let step = steps.popFirst() ?? 0
            n = try node(try n.child(step < 0 ? n.count - 1 : step))
        }
        return try (0..<n.count).map { Array(try n.key($0)) }
    }
}
