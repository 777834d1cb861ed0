#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// Walks a tree's keys in order: `seek`, `first`, `last`, `next`, `prev`, and range scans.
///
/// In a write transaction a cursor survives writes made through the transaction: it finds its
/// place again by key (if its key was deleted, `next` moves to the key after it).
public final class Cursor {
    let txn: ReadTransaction
    let tree: Tree
    /// (page, index) from the root down to the leaf.
    private var stack: [(pgno: UInt64, index: Int)] = []
    private var generation: UInt64
    private var savedKey: [UInt8] = []
    /// The cursor sits on an entry.
    public private(set) var isPositioned = false
    /// The current leaf, kept between calls where its memory is stable (plain stores, read
    /// transactions), so that stepping within a leaf touches no page table and no checks.
    private var leaf: NodeView?
    private let cachesLeaf: Bool

    init(transaction: ReadTransaction, tree: Tree) {
        txn = transaction
        self.tree = tree
        generation = transaction.generation
        cachesLeaf = !transaction.isWriter && transaction.cipher == nil
        stack.reserveCapacity(8)
    }

    // MARK: Positioning

    /// Moves to the first key; false if the tree is empty.
    @discardableResult
    public func first() throws -> Bool {
        try txn.beginOperation()
        return try descend(edge: .first)
    }

    /// Moves to the last key; false if the tree is empty.
    @discardableResult
    public func last() throws -> Bool {
        try txn.beginOperation()
        return try descend(edge: .last)
    }

    /// Moves to the first key `>= key`; false if there is none.
    @discardableResult
    public func seek(_ key: some ContiguousBytes) throws -> Bool {
        try txn.beginOperation()
        return try key.withUnsafeBytes { try seek(raw: $0).found }
    }

    /// Moves to the next key; false (and unpositioned) at the end.
    @discardableResult
    public func next() throws -> Bool {
        if let leaf, !txn.finished {
            let i = stack[stack.count - 1].index + 1
            if i < leaf.count {
                stack[stack.count - 1].index = i
                return true
            }
        }
        try txn.beginOperation()
        guard isPositioned else { return false }
        if generation != txn.generation {
            let exact = try resync()
            if !exact { return isPositioned }
        }
        return try step(forward: true)
    }

    /// Moves to the previous key; false (and unpositioned) at the start.
    @discardableResult
    public func prev() throws -> Bool {
        try txn.beginOperation()
        guard isPositioned else { return false }
        if generation != txn.generation {
            let exact = try resync()
            if !exact && !isPositioned { return try descend(edge: .last) }
        }
        return try step(forward: false)
    }

    /// Moves to the first key `>= key`, like ``seek(_:)``, starting from the current entry:
    /// when `key` lies in the current leaf it is one binary search there, otherwise the descent
    /// starts from the lowest ancestor whose range holds `key`. For reading keys in ascending
    /// order (a merge of sorted keys with the tree); a `key` before the current one is a seek.
    @discardableResult
    public func seek(forwardTo key: UnsafeRawBufferPointer) throws -> Bool {
        try txn.beginOperation()
        guard isPositioned, generation == txn.generation else { return try seek(raw: key).found }
        let leafLevel = stack.count - 1
        let leaf = try self.leaf ?? txn.node(stack[leafLevel].pgno)
        let current = stack[leafLevel].index
        guard compareKeys(key, try leaf.key(current)) > 0 else {
            // At or before the current key: a key behind the cursor is a plain seek.
            if compareKeys(key, try leaf.key(current)) == 0 { return true }
            return try seek(raw: key).found
        }
        if compareKeys(key, try leaf.key(leaf.count - 1)) <= 0 {
            stack[leafLevel].index = try leaf.lowerBound(key).index
            try rememberKey()
            return true
        }
        // The lowest ancestor whose child's range ends after `key` holds it (the root holds all).
        var level = leafLevel - 1
        while level > 0 {
            let n = try txn.node(stack[level].pgno)
            let i = stack[level].index
            if i + 1 < n.count, compareKeys(key, try n.key(i + 1)) < 0 { break }
            level -= 1
        }
        guard level >= 0 else { return try seek(raw: key).found }
        stack.removeSubrange((level + 1)...)
        return try descend(toward: key, from: nil).found
    }

    /// Moves forward `count` entries (0 stays); false (and unpositioned) past the end. Within a
    /// leaf it is one addition, and a whole leaf is skipped by its count: no key is read.
    @discardableResult
    public func advance(by count: Int) throws -> Bool {
        guard count >= 0 else { throw StorageError.invalidArgument("a cursor advances by a count >= 0, not \(count)") }
        try txn.beginOperation()
        guard isPositioned else { return false }
        var remaining = count
        if generation != txn.generation {
            // Its entry deleted, the cursor stands on the next one: one step taken.
            if try !resync() {
                guard isPositioned else { return false }
                remaining = max(remaining - 1, 0)
            }
        }
        while true {
            let level = stack.count - 1
            let entries = try leaf?.count ?? txn.node(stack[level].pgno).count
            let i = stack[level].index
            if remaining < entries - i {
                stack[level].index = i + remaining
                try rememberKey()
                return true
            }
            // To the leaf's last entry, then one step into the next leaf.
            remaining -= entries - 1 - i
            stack[level].index = entries - 1
            guard try step(forward: true) else { return false }
            remaining -= 1
        }
    }

    // MARK: Reading

    /// The current key, copied.
    public func key() throws -> [UInt8] { try withKey { Array($0) } }

    /// The current value, copied.
    public func value() throws -> [UInt8] { try withValue { Array($0) } }

    /// Calls `body` with the current key; the buffer is valid only inside `body`.
    public func withKey<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        if let leaf, !txn.finished { return try body(try leaf.key(stack[stack.count - 1].index)) }
        try ensureCurrent()
        let top = stack[stack.count - 1]
        return try body(try txn.node(top.pgno).key(top.index))
    }

    /// Calls `body` with the current value; the buffer is valid only inside `body`.
    public func withValue<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        if let leaf, !txn.finished { return try txn.withLeafValue(leaf, stack[stack.count - 1].index, body) }
        try ensureCurrent()
        let top = stack[stack.count - 1]
        return try txn.withLeafValue(try txn.node(top.pgno), top.index, body)
    }

    /// Calls `body` with the current key and value; both valid only inside `body`.
    public func withEntry<R>(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> R) throws -> R {
        if let leaf, !txn.finished {
            let i = stack[stack.count - 1].index
            let k = try leaf.key(i)
            return try txn.withLeafValue(leaf, i) { try body(k, $0) }
        }
        try ensureCurrent()
        let top = stack[stack.count - 1]
        let n = try txn.node(top.pgno)
        let k = try n.key(top.index)
        return try txn.withLeafValue(n, top.index) { try body(k, $0) }
    }

    // MARK: Internals

    private enum Edge { case first, last }

    private func ensureCurrent() throws {
        try txn.checkLive()
        guard isPositioned else { throw StorageError.invalidArgument("the cursor is not on an entry") }
        if generation != txn.generation {
            let exact = try resync()
            guard exact, isPositioned else { throw StorageError.invalidArgument("the cursor's entry was deleted") }
        }
    }

    /// Finds the saved key again after a write; true if it is still there.
    private func resync() throws -> Bool {
        let key = savedKey
        return try key.withUnsafeBytes { try seek(raw: $0).exact }
    }

    /// `remember()` after a move within the cached leaf: only a writer's saved key changes.
    private func rememberKey() throws {
        if leaf == nil || txn.isWriter { try remember() }
    }

    private func remember() throws {
        generation = txn.generation
        if cachesLeaf {
            leaf = isPositioned ? try txn.node(stack[stack.count - 1].pgno) : nil
        }
        if txn.isWriter, isPositioned {
            let top = stack[stack.count - 1]
            savedKey = Array(try txn.node(top.pgno).key(top.index))
        }
    }

    func seek(raw key: UnsafeRawBufferPointer) throws -> (found: Bool, exact: Bool) {
        stack.removeAll(keepingCapacity: true)
        return try descend(toward: key, from: tree.info.root)
    }

    /// Descends to the first key `>= key` from page `start`, or (nil) from the child the
    /// stack's last branch holds for `key`, which is then the branch's new index.
    private func descend(toward key: UnsafeRawBufferPointer, from start: UInt64?) throws -> (found: Bool, exact: Bool) {
        isPositioned = false
        leaf = nil
        var pgno: UInt64
        if let start {
            pgno = start
        } else {
            let top = stack.removeLast()
            pgno = top.pgno
        }
        guard pgno != 0 else { try remember(); return (false, false) }
        while true {
            let n = try txn.node(pgno)
            if n.isLeaf {
                let (i, exact) = try n.lowerBound(key)
                stack.append((pgno, i))
                if i < n.count {
                    isPositioned = true
                    try remember()
                    return (true, exact)
                }
                isPositioned = true
                let moved = try step(forward: true, fromPastEnd: true)
                return (moved, false)
            }
            let i = try n.childIndex(for: key)
            stack.append((pgno, i))
            if stack.count > 64 { throw StorageError.corrupt(page: pgno, detail: "tree deeper than 64 levels (a cycle?)") }
            pgno = try n.child(i)
        }
    }

    private func descend(edge: Edge) throws -> Bool {
        stack.removeAll(keepingCapacity: true)
        isPositioned = false
        leaf = nil
        let root = tree.info.root
        guard root != 0 else { try remember(); return false }
        try descend(from: root, edge: edge)
        let top = stack[stack.count - 1]
        if try txn.node(top.pgno).count > 0 {
            isPositioned = true
            try remember()
            return true
        }
        // An empty edge leaf (see `step`): the first entry lies in a later leaf.
        isPositioned = true
        return try step(forward: edge == .first, fromPastEnd: true)
    }

    private func descend(from start: UInt64, edge: Edge) throws {
        var pgno = start
        while true {
            let n = try txn.node(pgno)
            let i = edge == .first ? 0 : max(n.count - 1, 0)
            stack.append((pgno, i))
            if n.isLeaf { return }
            if stack.count > 64 { throw StorageError.corrupt(page: pgno, detail: "tree deeper than 64 levels (a cycle?)") }
            pgno = try n.child(i)
        }
    }

    private func step(forward: Bool, fromPastEnd: Bool = false) throws -> Bool {
        var level = stack.count - 1
        let leaf = try txn.node(stack[level].pgno)
        if forward {
            let next = fromPastEnd ? stack[level].index : stack[level].index + 1
            if next < leaf.count {
                stack[level].index = next
                try remember()
                return true
            }
        } else if stack[level].index > 0 {
            stack[level].index -= 1
            try remember()
            return true
        }
        // Climb to the first ancestor with a sibling in that direction, then descend its edge.
        // A leaf other than the root may be empty: deletes drain the only child of a branch,
        // which has no sibling to merge with, and a later merge of that branch into its
        // neighbour leaves the empty leaf among other children. Stepping over it goes on
        // from the empty leaf itself, climbing from its parent again: going on from `level`
        // would skip the rest of that ancestor's children (or, at the root, end the walk).
        while level > 0 {
            level -= 1
            let n = try txn.node(stack[level].pgno)
            let i = stack[level].index + (forward ? 1 : -1)
            if i >= 0 && i < n.count {
                stack[level].index = i
                stack.removeSubrange((level + 1)...)
                try descend(from: try n.child(i), edge: forward ? .first : .last)
                let top = stack[stack.count - 1]
                let count = try txn.node(top.pgno).count
                if count == 0 {
                    level = stack.count - 1
                    continue
                }
                try remember()
                return true
            }
        }
        isPositioned = false
        try remember()
        return false
    }
}
