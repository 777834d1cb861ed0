extension ReadTransaction {
    /// Calls `body` with every key and value of `tree`, in key order, until it returns false.
    /// Both buffers are valid only inside `body`.
    ///
    /// A full scan without a ``Cursor``: in a read transaction it walks one leaf at a time with
    /// its state in locals, so each entry costs a slot read and the call to `body`. In a write
    /// transaction (or an encrypted store) `body` may write or read other pages, which can move
    /// the entry it was given, so the walk goes through a cursor and, like one, survives writes
    /// made through this transaction: it goes on from the first key after the one it was on.
    public func forEach(_ tree: Tree, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try beginOperation()
        if isWriter || cipher != nil {
            let c = Cursor(transaction: self, tree: tree)
            var ok = try c.first()
            while ok {
                guard try c.withEntry(body) else { return }
                ok = try c.next()
            }
            return
        }
        let root = tree.info.root
        guard root != 0 else { return }
        // Pages of a reader's snapshot never change, and its mappings stay valid while held:
        // hold every mapping the walk reads through, in case a page past the first one's end
        // makes `page()` map the file again while the ancestors below are in use.
        var mappings = [mapping]
        // Ancestors of the current leaf with the index of the child being visited.
        var path: [(node: NodeView, index: Int)] = []
        path.reserveCapacity(Int(tree.info.depth))
        var leaf = try node(root)
        while !leaf.isLeaf {
            path.append((leaf, 0))
            if path.count > 64 { throw StorageError.corrupt(page: leaf.pgno, detail: "tree deeper than 64 levels (a cycle?)") }
            leaf = try node(try leaf.child(0))
        }
        while true {
            if mapping !== mappings[mappings.count - 1] { mappings.append(mapping) }
            var i = 0
            let count = leaf.count
            while i < count {
                // `body` may end the transaction; a cursor would throw at its next step.
                try checkLive()
                let key = try leaf.key(i)
                let go: Bool
                switch try leaf.value(i) {
                case .inline(let value): go = try body(key, value)
                case .overflow: go = try withLeafValue(leaf, i) { try body(key, $0) }
                }
                if !go { return }
                i &+= 1
            }
            // Climb to the nearest ancestor with a child to the right, then down its left edge.
            while let top = path.last, top.index + 1 >= top.node.count { path.removeLast() }
            guard !path.isEmpty else { return }
            let next = path[path.count - 1].index + 1
            path[path.count - 1].index = next
            leaf = try node(try path[path.count - 1].node.child(next))
            while !leaf.isLeaf {
                path.append((leaf, 0))
                if path.count > 64 { throw StorageError.corrupt(page: leaf.pgno, detail: "tree deeper than 64 levels (a cycle?)") }
                leaf = try node(try leaf.child(0))
            }
        }
    }
}
