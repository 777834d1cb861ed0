extension ReadTransaction {
    /// Calls `body` with the position in `keys` and the value of each of `keys` that `tree`
    /// holds, in the order of `keys`, until it returns false. The tree's keys are 8 bytes, each
    /// the big-endian form of a `UInt64` (as `keys` gives them, numbers); a key it does not
    /// hold is passed over. The value is valid only inside `body`.
    ///
    /// For many keys in ascending order (an index's matches, read for their records): each
    /// lookup starts where the last ended, one binary search in the same leaf, or a climb to the
    /// lowest ancestor that holds the key and a search from there, with the walk's state in
    /// locals rather than a ``Cursor``. A key below the one before it starts from the root.
    public func forEachValue(_ tree: Tree, forKeys keys: UnsafeBufferPointer<UInt64>,
                             _ body: (Int, UnsafeRawBufferPointer) throws -> Bool) throws {
        try beginOperation()
        guard !keys.isEmpty, tree.info.root != 0 else { return }
        if isWriter || cipher != nil {
            // `body` may move pages here: a cursor finds its place again after each call.
            let c = Cursor(transaction: self, tree: tree)
            for (n, key) in keys.enumerated() {
                var k = key.bigEndian
                let go = try withUnsafeBytes(of: &k) { kb -> Bool in
                    guard try c.seek(forwardTo: kb) else { return true }
                    return try c.withEntry { found, value in try compareKeys(found, kb) != 0 || body(n, value) }
                }
                if !go { return }
            }
            return
        }
        let root = tree.info.root
        let capacity = max(Int(tree.info.depth), 1)
        try withUnsafeTemporaryAllocation(of: (node: NodeView, index: Int).self, capacity: capacity) { path in
            // path[0 ..< depth]: the branches above `leaf`, each with the child taken; entries
            // up to `filled` are initialized (a climb leaves them for the next descent to reuse).
            var depth = 0, filled = 0
            // Pages of a reader's snapshot never change, and its mappings stay valid while held.
            let firstMapping = mapping
            var laterMappings: [StorageMapping] = []
            defer { withExtendedLifetime(firstMapping) {} }
            var leaf: NodeView?
            var at = 0
            var previous: UInt64 = 0
            for (n, key) in keys.enumerated() {
                try checkLive()
                let forward = leaf != nil && key >= previous
                previous = key
                var k = key.bigEndian
                let go = try withUnsafeBytes(of: &k) { kb -> Bool in
                    if forward, let current = leaf, current.count > 0, try compareKeys(kb, current.key(current.count - 1)) <= 0 {
                        // In this leaf, at or after the last key looked up.
                        at = try Self.find(current, kb, key, from: at)
                    } else {
                        // The lowest ancestor whose child's range ends after `kb` holds it; the
                        // root holds every key, and a key behind the last starts there.
                        if !forward { depth = 0 }
                        while depth > 0 {
                            let (node, i) = path[depth - 1]
                            if i + 1 < node.count, try compareKeys(kb, node.key(i + 1)) < 0 { break }
                            depth -= 1
                        }
                        var node: NodeView
                        if depth == 0 {
                            node = try self.node(root)
                        } else {
                            depth -= 1
                            node = path[depth].node
                        }
                        while !node.isLeaf {
                            guard depth < capacity else {
                                throw StorageError.corrupt(page: node.pgno, detail: "tree deeper than its recorded \(tree.info.depth) levels (a cycle?)")
                            }
                            // Going forward through a branch it passed before, the search starts
                            // at the child it took then (entry 0 of a branch has no key).
                            var from = 1
                            if forward, depth < filled, path[depth].node.pgno == node.pgno { from = Swift.max(path[depth].index, 1) }
                            let (i, exact) = try Self.lowerBound(node, kb, from: from)
                            let child = exact ? i : i - 1
                            if depth < filled { path[depth] = (node, child) } else { path.initializeElement(at: depth, to: (node, child)); filled += 1 }
                            depth += 1
                            node = try self.node(try node.child(child))
                        }
                        if mapping !== (laterMappings.last ?? firstMapping) { laterMappings.append(mapping) }
                        leaf = node
                        at = try Self.find(node, kb, key, from: 0)
                    }
                    guard let current = leaf, at < current.count, try compareKeys(current.key(at), kb) == 0 else { return true }
                    return try withLeafValue(current, at) { try body(n, $0) }
                }
                if !go { return }
            }
        }
    }

    /// Where `kb` (`key`'s bytes) is in leaf `n`, or would be, from entry `lo` on. Keys that
    /// are numbers given out in order (object keys) are spread about evenly over a leaf: the
    /// entry at the key's share of the way between the ends is tried first, a line of the page
    /// where a binary search reads several.
    @inline(__always)
    private static func find(_ n: NodeView, _ kb: UnsafeRawBufferPointer, _ key: UInt64, from lo: Int) throws -> Int {
        let hi = n.count - 1
        if hi > lo {
            let first = try n.key(lo), last = try n.key(hi)
            if first.count == 8, last.count == 8 {
                let a = UInt64(bigEndian: first.loadUnaligned(as: UInt64.self)), b = UInt64(bigEndian: last.loadUnaligned(as: UInt64.self))
                if a <= key, key <= b, a < b {
                    let guess = lo + Int((Double(key - a) / Double(b - a) * Double(hi - lo)).rounded())
                    if compareKeys(try n.key(Swift.min(Swift.max(guess, lo), hi)), kb) == 0 { return Swift.min(Swift.max(guess, lo), hi) }
                }
            }
        }
        return try lowerBound(n, kb, from: lo).index
    }

    /// `NodeView.lowerBound` from entry `lo` on.
    @inline(__always)
    private static func lowerBound(_ n: NodeView, _ key: UnsafeRawBufferPointer, from lo: Int) throws -> (index: Int, exact: Bool) {
        var lo = lo, hi = n.count
        while lo < hi {
            let mid = (lo &+ hi) >> 1
            let c = compareKeys(try n.key(mid), key)
            if c < 0 { lo = mid + 1 } else if c > 0 { hi = mid } else { return (mid, true) }
        }
        return (lo, false)
    }
}
