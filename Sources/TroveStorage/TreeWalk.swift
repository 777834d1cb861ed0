import CTroveSystem

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
        try walk(tree, from: nil, body)
    }

    /// Calls `body` with the keys and values of `tree` from the first key `>= start`, in key
    /// order, until it returns false: a range scan that ends where `body` says.
    ///
    /// Like ``forEach(_:_:)``, it allocates nothing in a read transaction: an index lookup
    /// is a descent and a few slot reads.
    public func forEach(_ tree: Tree, from start: UnsafeRawBufferPointer,
                        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try walk(tree, from: start, body)
    }

    private func walk(_ tree: Tree, from start: UnsafeRawBufferPointer?,
                      _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try beginOperation()
        if isWriter || cipher != nil {
            let c = Cursor(transaction: self, tree: tree)
            var ok = try start.map { try c.seek(raw: $0).found } ?? c.first()
            while ok {
                guard try c.withEntry(body) else { return }
                ok = try c.next()
            }
            return
        }
        let root = tree.info.root
        guard root != 0 else { return }
        // Ancestors of the current leaf with the index of the child being visited: one per
        // level above the leaves, so the tree's recorded depth bounds them.
        let capacity = max(Int(tree.info.depth), 1)
        try withUnsafeTemporaryAllocation(of: (node: NodeView, index: Int).self, capacity: capacity) { path in
            var depth = 0
            func push(_ n: NodeView, _ i: Int) throws {
                guard depth < capacity else {
                    throw StorageError.corrupt(page: n.pgno, detail: "tree deeper than its recorded \(tree.info.depth) levels (a cycle?)")
                }
                path.initializeElement(at: depth, to: (n, i))
                depth += 1
            }
            // Pages of a reader's snapshot never change, and its mappings stay valid while
            // held: hold every mapping the walk reads through, in case a page past the first
            // one's end makes `page()` map the file again while the ancestors are in use.
            let firstMapping = mapping
            var laterMappings: [StorageMapping] = []
            defer { withExtendedLifetime(firstMapping) {} }

            var leaf = try node(root)
            while !leaf.isLeaf {
                let i = try start.map { try leaf.childIndex(for: $0) } ?? 0
                try push(leaf, i)
                leaf = try node(try leaf.child(i))
            }
            var i = try start.map { try leaf.lowerBound($0).index } ?? 0
            // A walk from a key is most often an index lookup that ends in its first leaf:
            // hints start at its second. A full scan reads every leaf from the first.
            var hinting = start == nil
            while true {
                // The next leaf is read soon: load it into the CPU's caches while this one is
                // scanned, a few lines per entry (all at once would stall on the CPU's limit of
                // loads in flight), so the scan does not wait at its first touch of each line.
                var ahead = leaf.p, aheadAt = 0, aheadEnd = 0
                if hinting, depth > 0 {
                    let parent = path[depth - 1]
                    if parent.index + 1 < parent.node.count, let c = parent.node.childHint(parent.index + 1),
                       let next = mapped(c) {
                        ahead = next
                        aheadEnd = Swift.min(pageSize, Self.prefetchLimit)
                    }
                }
                if mapping !== (laterMappings.last ?? firstMapping) { laterMappings.append(mapping) }
                let count = leaf.count
                // All of those lines by this leaf's last entry, but never a burst.
                let linesPerEntry = count > i ? Swift.min((aheadEnd >> 6 + count - i - 1) / (count - i), 16) : 0
                let aheadStep = linesPerEntry << 6
                while i < count {
                    if aheadAt < aheadEnd {
                        let end = Swift.min(aheadAt &+ aheadStep, aheadEnd)
                        while aheadAt < end {
                            trove_prefetch(ahead + aheadAt)
                            aheadAt &+= 64
                        }
                    }
                    // `body` may end the transaction; a cursor would throw at its next step.
                    try checkLive()
                    let (key, value) = try leaf.entry(i)
                    let go: Bool
                    switch value {
                    case .inline(let value): go = try body(key, value)
                    case .overflow: go = try withLeafValue(leaf, i) { try body(key, $0) }
                    }
                    if !go { return }
                    i &+= 1
                }
                // Climb to the nearest ancestor with a child to the right, then down its left edge.
                while depth > 0, path[depth - 1].index + 1 >= path[depth - 1].node.count { depth -= 1 }
                guard depth > 0 else { return }
                let next = path[depth - 1].index + 1
                path[depth - 1].index = next
                leaf = try node(try path[depth - 1].node.child(next))
                while !leaf.isLeaf {
                    try push(leaf, 0)
                    leaf = try node(try leaf.child(0))
                }
                i = 0
                hinting = true
            }
        }
    }

    /// How much of the next leaf a walk asks for: all of a 4 KiB page (the size it was tuned
    /// with); of a larger one only the start, as more would evict from the CPU's first-level
    /// cache the lines being read.
    private static var prefetchLimit: Int { 16 << 10 }

    /// Where page `pgno` is mapped, or nil if it is not (yet): a prefetch hint's address.
    @inline(__always)
    func mapped(_ pgno: UInt64) -> UnsafeRawPointer? {
        let offset = pgno &* UInt64(pageSize)
        guard pgno < pageLimit, offset &+ UInt64(pageSize) <= mapping.length else { return nil }
        return mapping.base + Int(offset)
    }
}
