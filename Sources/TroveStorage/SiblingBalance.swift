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
        let leafView = try NodeView(leaf, pgno: pgno, pageSize: pageSize)
        let need = leafView.usedBytes + entry.count + 2 - usable
        let leftRoom = leftSibling.map { usable - $0.usedBytes } ?? -1
        let rightRoom = rightSibling.map { usable - $0.usedBytes } ?? -1
        guard max(leftRoom, rightRoom) >= need else { return false }
        return try withUnsafeTemporaryAllocation(of: UInt16.self, capacity: leafView.count + 1) { sizes in
            let entries = PendingEntries(leafView, inserting: entry, at: at, sizes: sizes.baseAddress!)
            let n = entries.count
            let total = need + usable
            let parentRoom = NodeEditor(p: parent, pageSize: pageSize).freeSpace

            /// How many entries go to the sibling, which holds `used` bytes, taken from the start
            /// (`fromStart`) or the end: both pages must fit, the leaf keeps one entry, and the
            /// two end as equal as the entries allow. Nil when no count fits. Reads the sizes
            /// of the entries from that end inward, up to the count that balances the two.
            func moved(siblingUsed used: Int, fromStart: Bool) throws -> Int? {
                guard usable - used >= need else { return nil }
                var chosen: (count: Int, imbalance: Int)?
                var bytes = 0
                for m in 1..<n {
                    bytes += try entries.size(fromStart ? m - 1 : n - m)
                    guard used + bytes <= usable else { break }
                    guard total - bytes <= usable else { continue }
                    let difference = used + bytes - (total - bytes)
                    if abs(difference) < chosen?.imbalance ?? .max { chosen = (m, abs(difference)) }
                    // Each further entry leaves the two further apart.
                    if difference >= 0 { break }
                }
                return chosen?.count
            }
            func left() throws -> Int? {
                guard let sibling = leftSibling, let m = try moved(siblingUsed: sibling.usedBytes, fromStart: true),
                      try entries.key(m).count - (try pv.key(index)).count <= parentRoom else { return nil }
                return m
            }
            func right() throws -> Int? {
                guard let sibling = rightSibling, let m = try moved(siblingUsed: sibling.usedBytes, fromStart: false),
                      try entries.key(n - m).count - (try pv.key(index + 1)).count <= parentRoom else { return nil }
                return m
            }
            // The sibling with more room, the left one on a tie, else the other.
            let best: (left: Bool, count: Int)
            if rightRoom > leftRoom {
                if let m = try right() { best = (false, m) } else if let m = try left() { best = (true, m) } else { return false }
            } else {
                if let m = try left() { best = (true, m) } else if let m = try right() { best = (false, m) } else { return false }
            }

            let siblingIndex = best.left ? index - 1 : index + 1
            let (siblingPgno, sp) = try touch(try pv.child(siblingIndex))
            let sibling = NodeEditor(p: sp, pageSize: pageSize)
            let editor = NodeEditor(p: leaf, pageSize: pageSize)
            // The moved entries are copied, and the separator taken, before the leaf changes.
            let moving = best.left ? 0..<best.count : (n - best.count)..<n
            if best.left {
                sibling.insertRaws(at: sibling.count, count: best.count) { entries.raw($0) }
            } else {
                sibling.insertRaws(at: 0, count: best.count) { entries.raw(moving.lowerBound + $0) }
            }
            let separator = Array(try entries.key(best.left ? best.count : moving.lowerBound))
            editor.removeEntries(entries.oldRange(moving), size: entries.oldSize)
            if !entries.holdsInserted(moving) {
                editor.insertRaw(at: entries.insertedIndex(after: best.left ? best.count : 0), size: entry.count) {
                    $0.copyMemory(from: entry.baseAddress!, byteCount: entry.count)
                }
            }
            let separatorIndex = best.left ? index : index + 1
            try replaceSeparator(parent: parent, parentPgno: parentPgno, at: separatorIndex, with: separator)
            NodeEditor(p: parent, pageSize: pageSize).setChild(siblingIndex, pgno: siblingPgno, checksum: 0)
            return true
        }
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
