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
        let leftSibling = index > 0 ? try node(try pv.child(index - 1)) : nil
        let rightSibling = index + 1 < pv.count ? try node(try pv.child(index + 1)) : nil
        // What must leave the leaf: no sibling with less room can take it, and most full
        // leaves of a packed tree have full siblings. Decided before reading any entry.
        let need = try NodeView(leaf, pgno: pgno, pageSize: pageSize).usedBytes + entry.count + 2 - usable
        guard max(leftSibling.map { usable - $0.usedBytes } ?? -1, rightSibling.map { usable - $0.usedBytes } ?? -1) >= need else {
            return false
        }
        scratch.copyMemory(from: leaf, byteCount: pageSize)
        let entries = try PendingEntries(try NodeView(scratch, pgno: pgno, pageSize: pageSize), inserting: entry, at: at)
        defer { entries.deallocate() }
        let n = entries.count
        func key(_ j: Int) -> UnsafeRawBufferPointer { NodeView.narrowKey(entries.raw(j)) }
        let total = entries.total
        let parentRoom = NodeEditor(p: parent, pageSize: pageSize).freeSpace

        /// How many entries go to the sibling, which holds `used` bytes, taken from the start
        /// (`fromStart`) or the end: both pages must fit, the leaf keeps one entry, and the
        /// two end as equal as the entries allow. Nil when no count fits.
        func moved(siblingUsed used: Int, fromStart: Bool) -> Int? {
            var chosen: (count: Int, imbalance: Int)?
            for m in 1..<n {
                let bytes = fromStart ? entries.bytes(before: m) : total - entries.bytes(before: n - m)
                guard total - bytes <= usable else { continue }
                guard used + bytes <= usable else { break }
                let imbalance = abs(used + bytes - (total - bytes))
                if imbalance < chosen?.imbalance ?? .max { chosen = (m, imbalance) }
            }
            return chosen?.count
        }

        var best: (left: Bool, count: Int, room: Int)?
        if let sibling = leftSibling {
            if let m = moved(siblingUsed: sibling.usedBytes, fromStart: true),
               key(m).count - (try pv.key(index)).count <= parentRoom {
                best = (true, m, usable - sibling.usedBytes)
            }
        }
        if let sibling = rightSibling {
            if let m = moved(siblingUsed: sibling.usedBytes, fromStart: false),
               key(n - m).count - (try pv.key(index + 1)).count <= parentRoom,
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
            for j in 0..<best.count { sibling.appendRaw(entries.raw(j)) }
            for j in best.count..<n { editor.appendRaw(entries.raw(j)) }
            separator = Array(key(best.count))
        } else {
            let first = n - best.count
            for j in first..<n {
                let e = entries.raw(j)
                sibling.insertRaw(at: j - first, size: e.count) { $0.copyMemory(from: e.baseAddress!, byteCount: e.count) }
            }
            for j in 0..<first { editor.appendRaw(entries.raw(j)) }
            separator = Array(key(first))
        }
        let separatorIndex = best.left ? index : index + 1
        try replaceSeparator(parent: parent, parentPgno: parentPgno, at: separatorIndex, with: separator)
        NodeEditor(p: parent, pageSize: pageSize).setChild(siblingIndex, pgno: siblingPgno, checksum: 0)
        return true
    }

    /// Gives entry `i` of the branch `parent` the key `key`, keeping its child and checksum.
    /// The caller checked that the page has room for the difference.
    func replaceSeparator(parent: UnsafeMutableRawPointer, parentPgno: UInt64, at i: Int, with key: [UInt8]) throws {
        let view = try NodeView(parent, pgno: parentPgno, pageSize: pageSize)
        let child = try view.child(i)
        let checksum = view.childChecksum(i)
        let editor = NodeEditor(p: parent, pageSize: pageSize)
        editor.remove(at: i, size: try view.entrySize(i))
        key.withUnsafeBytes { editor.insertBranch(at: i, key: $0, child: child, checksum: checksum) }
    }
}
