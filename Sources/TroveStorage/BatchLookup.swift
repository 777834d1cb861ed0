import CTroveSystem

extension ReadTransaction {
    /// Calls `body` with the position in `keys` and the value of each of `keys` that `tree`
    /// holds, in the order of `keys`, until it returns false. The tree's keys are 8 bytes, each
    /// the big-endian form of a `UInt64` (as `keys` gives them, numbers); a key it does not
    /// hold is passed over. The value is valid only inside `body`.
    ///
    /// For many keys in ascending order (an index's matches, read for their records): each
    /// lookup starts where the last ended, a search in the same leaf, a step to a later leaf
    /// of the same parent, or a climb to the lowest ancestor that holds the key and a search
    /// from there, with the walk's state in locals rather than a ``Cursor``. A key below the
    /// one before it starts from the root.
    ///
    /// Keys a few per leaf (one object in 40 of a model) read most leaves, each a page the
    /// CPU's caches do not hold: entering a leaf asks the CPU for the header and slots of a
    /// leaf further on, and for the entries the coming keys will read in the next one, so
    /// that the walk does not wait on each page in turn. Moving on to the next leaf of the
    /// same parent takes its separators, compared as numbers, rather than a climb.
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
            // Where the last key looked up is (or would be) in `leaf`, and the leaf's last key
            // as a number, when its keys from `at` on are 8 bytes (`numeric`); `upper` is the
            // first key of the next leaf, the parent's separator after `leaf`, when it is an
            // 8-byte key.
            var at = 0
            var last: UInt64 = 0
            var numeric = false
            var upper: UInt64?
            var previous: UInt64 = 0
            for n in 0..<keys.count {
                let key = keys[n]
                try checkLive()
                let forward = leaf != nil && key >= previous
                previous = key
                var found: Int?
                if forward, numeric, key <= last, let current = leaf {
                    // In this leaf, at or after the last key looked up.
                    (found, at) = try Self.place(current, key, from: at, last: last)
                } else if forward, numeric, let bound = upper, key < bound {
                    // After this leaf's last key and before the next leaf's first: in no leaf.
                    continue
                } else {
                    var next: NodeView?
                    if forward, depth > 0, let bound = upper, key >= bound {
                        // Past this leaf (`key >= bound`): most often the next leaf of the same
                        // parent, or one soon after, holds it. The separators say which.
                        let (parent, i) = path[depth - 1]
                        var c = i + 1
                        for _ in 0..<4 {
                            guard c + 1 < parent.count, let s = try parent.key64(c + 1) else { break }
                            if key < s {
                                path[depth - 1].index = c
                                upper = s
                                next = try self.node(try parent.child(c))
                                break
                            }
                            c += 1
                        }
                    }
                    let node: NodeView
                    if let next, next.isLeaf {
                        node = next
                    } else {
                        var k = key.bigEndian
                        node = try withUnsafeBytes(of: &k) { kb -> NodeView in
                            // The lowest ancestor whose child's range ends after `kb` holds it;
                            // the root holds every key, and a key behind the last starts there.
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
                                // Going forward through a branch it passed before, the search
                                // starts at the child it took then.
                                var from = 0
                                if forward, depth < filled, path[depth].node.pgno == node.pgno { from = path[depth].index }
                                let child = try Self.child(node, kb, from: from)
                                if depth < filled { path[depth] = (node, child) } else { path.initializeElement(at: depth, to: (node, child)); filled += 1 }
                                depth += 1
                                node = try self.node(try node.child(child))
                            }
                            return node
                        }
                        upper = nil
                        if depth > 0 {
                            let (parent, i) = path[depth - 1]
                            if i + 1 < parent.count { upper = try parent.key64(i + 1) }
                        }
                    }
                    if mapping !== (laterMappings.last ?? firstMapping) { laterMappings.append(mapping) }
                    leaf = node
                    if depth > 0 { prefetchAfter(path[depth - 1], keys, from: n) }
                    numeric = false
                    if node.count > 0, let l = try node.key64(node.count - 1) {
                        numeric = true
                        last = l
                        if key > l {
                            at = node.count
                        } else {
                            (found, at) = try Self.place(node, key, from: 0, last: l)
                        }
                    } else {
                        (found, at) = try Self.bytePlace(node, key, from: 0)
                    }
                }
                guard let found, let current = leaf else { continue }
                if try !withLeafValue(current, found, { try body(n, $0) }) { return }
            }
        }
    }

    /// Where `key` is in leaf `n`, from entry `lo` on, its last key `last`, `key <= last`: the
    /// entry that holds it (nil if none) and where the next search may start. Object keys are
    /// numbers given out in order, spread about evenly over a leaf: the entry at the key's
    /// share of the way between two known entries is tried first, a line of the page where a
    /// binary search reads several; two such tries, then halving.
    @inline(__always)
    private static func place(_ n: NodeView, _ key: UInt64, from lo: Int, last: UInt64) throws -> (found: Int?, next: Int) {
        var lo = lo, hi = n.count - 1
        guard lo <= hi, let first = try n.key64(lo) else { return try bytePlace(n, key, from: lo) }
        if key <= first { return (key == first ? lo : nil, lo) }
        if key == last { return (hi, hi) }
        // key(lo) < key < key(hi)
        var a = first, b = last
        var tries = 0
        while hi - lo > 1 {
            var guess: Int
            if tries < 2 {
                guess = lo + Int(Double(key &- a) / Double(b &- a) * Double(hi - lo))
                guess = Swift.min(Swift.max(guess, lo + 1), hi - 1)
            } else {
                guess = (lo &+ hi) >> 1
            }
            tries += 1
            guard let g = try n.key64(guess) else { return try bytePlace(n, key, from: lo) }
            if g == key { return (guess, guess) }
            if g < key { lo = guess; a = g } else { hi = guess; b = g }
        }
        return (nil, lo)
    }

    /// `place` for a leaf whose keys are not all 8 bytes: a binary search of the bytes.
    @inline(never)
    private static func bytePlace(_ n: NodeView, _ key: UInt64, from lo: Int) throws -> (found: Int?, next: Int) {
        var k = key.bigEndian
        let (i, exact) = try withUnsafeBytes(of: &k) { try lowerBound(n, $0, from: lo) }
        return (exact ? i : nil, i)
    }

    /// The child of branch `n` whose range holds `kb`, at or after child `from` (whose key,
    /// if it has one, is at most `kb`): the next few are tried in turn, then a binary search.
    @inline(__always)
    private static func child(_ n: NodeView, _ kb: UnsafeRawBufferPointer, from: Int) throws -> Int {
        var c = from
        let count = n.count
        for _ in 0..<4 {
            guard c + 1 < count else { return c }
            if compareKeys(try n.key(c + 1), kb) > 0 { return c }
            c += 1
        }
        // The last entry at most `kb`, among c + 1 ..< count.
        var lo = c + 1, hi = count
        while lo < hi {
            let mid = (lo &+ hi) >> 1
            if compareKeys(try n.key(mid), kb) <= 0 { lo = mid + 1 } else { hi = mid }
        }
        return lo - 1
    }

    /// Asks the CPU for what the walk reads next, on entering the leaf `parent.index` of
    /// `parent`: the header and slots of the third leaf on, and, in the next leaf (whose slots
    /// were asked for two leaves ago), the first and last entries and those the keys after
    /// `keys[n]` in its range will read, found by their share of the way between its
    /// separators. Hints only: what the pages hold is read without checks, and nothing is
    /// read outside the mapping.
    @inline(__always)
    private func prefetchAfter(_ parent: (node: NodeView, index: Int), _ keys: UnsafeBufferPointer<UInt64>, from n: Int) {
        let (branch, c) = parent
        let count = branch.count
        // Leaves ahead: a leaf takes about as long to read as a line takes to arrive.
        let d1 = 3, d2 = 1
        if c + d1 < count, let pgno = branch.childHint(c + d1), let afterNext = mapped(pgno) {
            trove_prefetch(afterNext)
            trove_prefetch(afterNext + 64)
            trove_prefetch(afterNext + 128)
        }
        guard c + d2 < count, let pgno = branch.childHint(c + d2), let next = mapped(pgno) else { return }
        let entries = Swift.min(Int(next.loadUnaligned(fromByteOffset: 18, as: UInt16.self)), (pageSize - PageLayout.headerSize) / 2)
        guard entries > 0 else { return }
        let cellLimit = pageSize - 64
        @inline(__always) func entry(_ e: Int) {
            let o = Int(next.loadUnaligned(fromByteOffset: PageLayout.headerSize + 2 * e, as: UInt16.self))
            if o < cellLimit {
                trove_prefetch(next + o)
                trove_prefetch(next + o + 63)
            }
        }
        entry(0)
        entry(entries - 1)
        guard c + d2 + 1 < count, let low = branch.key64Hint(c + d2), let high = branch.key64Hint(c + d2 + 1), low < high else { return }
        var j = n + 1, steps = 0
        while j < keys.count, keys[j] < low, steps < 64 * d2 { j += 1; steps += 1 }
        var guesses = 0
        while j < keys.count, keys[j] >= low, keys[j] < high, guesses < 4 {
            let e = Int(Double(keys[j] &- low) / Double(high &- low) * Double(entries))
            entry(Swift.min(e, entries - 1))
            j += 1
            guesses += 1
        }
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

extension NodeView {
    /// The key of entry `i` as a number, when it is 8 bytes (big-endian, so that numbers order
    /// as the bytes do), else nil.
    @inline(__always)
    func key64(_ i: Int) throws -> UInt64? {
        let k = try key(i)
        guard k.count == 8 else { return nil }
        return UInt64(bigEndian: k.loadUnaligned(as: UInt64.self))
    }

    /// ``key64(_:)`` of a branch entry for a prefetch hint: nil where that throws.
    @inline(__always)
    func key64Hint(_ i: Int) -> UInt64? {
        try? key64(i)
    }
}
