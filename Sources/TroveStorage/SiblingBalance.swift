extension WriteTransaction {
    /// Makes room in the full leaf `leaf` (page `pgno`, child `index` of `parent`) for `entry`
    /// at entry index `at` by moving entries into a sibling that has room, as SQLite balances
    /// siblings, instead of splitting. A split leaves two half-full pages, so keys inserted in
    /// random order leave a tree about 70% full; moving into siblings first keeps it fuller.
    /// The two pages end about equally full. Returns false, having changed nothing, when
    /// neither sibling can take enough, or the parent has no room for the new separator.
    func shiftIntoSibling(leaf: UnsafeMutableRawPointer, pgno: UInt64, at: Int, entry: UnsafeRawBufferPointer,
                          parent: UnsafeMutableRawPointer, parentPgno: UInt64, index: Int) throws -> Bool {
        let pv = try NodeView(parent, pgno: parentPgno, pageSize: pageSize)
        guard pv.count >= 2 else { return false }
        let usable = pageSize - PageLayout.headerSize - PageLayout.trailerSize
        scratch.copyMemory(from: leaf, byteCount: pageSize)
        let old = try NodeView(scratch, pgno: pgno, pageSize: pageSize)
        let n = old.count + 1
        func raw(_ j: Int) throws -> UnsafeRawBufferPointer {
            if j == at { return entry }
            let k = j < at ? j : j - 1
            return UnsafeRawBufferPointer(start: scratch + old.slot(k), count: try old.entrySize(k))
        }
        func key(_ j: Int) throws -> UnsafeRawBufferPointer { NodeView.narrowKey(try raw(j)) }
        // prefix[j]: bytes (slots included) of the first j entries.
        var prefix = [0]
        prefix.reserveCapacity(n + 1)
        for j in 0..<n { prefix.append(prefix[j] + (try raw(j).count) + 2) }
        let total = prefix[n]
        let parentRoom = NodeEditor(p: parent, pageSize: pageSize).freeSpace

        /// How many entries go to the sibling, which holds `used` bytes, taken from the start
        /// (`fromStart`) or the end: both pages must fit, the leaf keeps one entry, and the
        /// two end as equal as the entries allow. Nil when no count fits.
        func moved(siblingUsed used: Int, fromStart: Bool) -> Int? {
            let bytes: (Int) -> Int = { m in fromStart ? prefix[m] : total - prefix[n - m] }
            var chosen: (count: Int, imbalance: Int)?
            for m in 1..<n where total - bytes(m) <= usable {
                guard used + bytes(m) <= usable else { break }
                let imbalance = abs(used + bytes(m) - (total - bytes(m)))
                if imbalance < chosen?.imbalance ?? .max { chosen = (m, imbalance) }
            }
            return chosen?.count
        }

        var best: (left: Bool, count: Int, room: Int)?
        if index > 0 {
            let sibling = try node(try pv.child(index - 1))
            if let m = moved(siblingUsed: sibling.usedBytes, fromStart: true),
               try key(m).count - (try pv.key(index)).count <= parentRoom {
                best = (true, m, usable - sibling.usedBytes)
            }
        }
        if index + 1 < pv.count {
            let sibling = try node(try pv.child(index + 1))
            if let m = moved(siblingUsed: sibling.usedBytes, fromStart: false),
               try key(n - m).count - (try pv.key(index + 1)).count <= parentRoom,
               usable - sibling.usedBytes > best?.room ?? -1 {
                best = (false, m, usable - sibling.usedBytes)
            }
        }
        guard let best else { return false }

        let siblingIndex = best.left ? index - 1 : index + 1
        let (siblingPgno, sp) = try touch(try pv.child(siblingIndex))
        let sibling = NodeEditor(p: sp, pageSize: pageSize)
        let editor = NodeEditor(p: leaf, pageSize: pageSize)
        editor.reset()
        let separator: [UInt8]
        if best.left {
            for j in 0..<best.count { sibling.appendRaw(try raw(j)) }
            for j in best.count..<n { editor.appendRaw(try raw(j)) }
            separator = Array(try key(best.count))
        } else {
            let first = n - best.count
            for j in first..<n {
                let e = try raw(j)
                sibling.insertRaw(at: j - first, size: e.count) { $0.copyMemory(from: e.baseAddress!, byteCount: e.count) }
            }
            for j in 0..<first { editor.appendRaw(try raw(j)) }
            separator = Array(try key(first))
        }
        let separatorIndex = best.left ? index : index + 1
        try replaceSeparator(parent: parent, parentPgno: parentPgno, at: separatorIndex, with: separator)
        NodeEditor(p: parent, pageSize: pageSize).setChild(siblingIndex, pgno: siblingPgno, checksum: 0)
        return true
    }

    /// Gives entry `i` of the branch `parent` the key `key`, keeping its child and checksum.
    /// The caller checked that the page has room for the difference.
    private func replaceSeparator(parent: UnsafeMutableRawPointer, parentPgno: UInt64, at i: Int, with key: [UInt8]) throws {
        let view = try NodeView(parent, pgno: parentPgno, pageSize: pageSize)
        let child = try view.child(i)
        let checksum = view.childChecksum(i)
        let editor = NodeEditor(p: parent, pageSize: pageSize)
        editor.remove(at: i, size: try view.entrySize(i))
        key.withUnsafeBytes { editor.insertBranch(at: i, key: $0, child: child, checksum: checksum) }
    }
}
