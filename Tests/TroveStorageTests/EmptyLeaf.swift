@testable import TroveStorage

extension WriteTransaction {
    /// Empties the leaf reached by following `path` from the root of `t` (-1: the last child),
    /// then child 0 down to a leaf, as deletes leave the only child of a branch; returns its
    /// keys. Overflow pages of its values are left behind (leaked, for the verifier).
    func emptyLeaf(_ t: Tree, path: [Int]) throws -> [[UInt8]] {
        var (pgno, p) = try touch(t.info.root)
        t.info.root = pgno
        var steps = path[...]
        while true {
            let n = try NodeView(p, pgno: pgno, pageSize: pageSize)
            if n.isLeaf {
                let keys = try (0..<n.count).map { Array(try n.key($0)) }
                NodeEditor(p: p, pageSize: pageSize).reset()
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

    /// The number of children of the branch reached by following `path` from the root of `t`.
    func childCount(_ t: Tree, path: [Int]) throws -> Int {
        var n = try node(t.info.root)
        for step in path { n = try node(try n.child(step < 0 ? n.count - 1 : step)) }
        return n.count
    }
}
