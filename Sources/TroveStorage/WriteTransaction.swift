#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The one write transaction of a store (across threads and processes): copy-on-write edits
/// that become visible to new readers, all at once, at ``commit()``. ``abort()``, an error, or
/// dropping the transaction leaves nothing behind.
public final class WriteTransaction: ReadTransaction {
    // Stored state: unchecked exclusivity, as in `ReadTransaction` (see `Tree.info`).
    let txnid: UInt64
    @exclusivity(unchecked) var freeList: FreeList
    /// Committed pages this transaction stopped using: pending under `txnid` at commit.
    @exclusivity(unchecked) var freed: [UInt64] = []
    /// Each page copied for writing and the page it was copied from, for a commit log record's
    /// deltas (see `PageDelta`); kept only when a record could use them.
    @exclusivity(unchecked) var copiedFrom: [(page: UInt64, source: UInt64)] = []
    let keepsCopySources: Bool
    /// Runs written before commit (overflow values, spilled leaves): page number -> (pages, checksum).
    @exclusivity(unchecked) var early: [UInt64: (pages: Int, checksum: UInt64)] = [:]
    @exclusivity(unchecked) var dirtyBytes = 0
    /// Committed pages `touch` copied and validated (tests read it).
    @exclusivity(unchecked) private(set) var validatedPages = 0
    @exclusivity(unchecked) var nonceCounter: UInt32 = 0
    let nonceEpoch: UInt32
    var lockHeld = true
    /// A vacuum's transaction (``Storage/vacuum()``): its commit never starts another.
    @exclusivity(unchecked) var isCompaction = false
    /// A vacuum's pages of live data moved toward the start of the file (first page -> pages
    /// of its run), carried from round to round: a page copied again follows its copy, and
    /// one merged away or freed leaves (``VacuumReport/pagesMoved``).
    @exclusivity(unchecked) var relocated: [UInt64: Int] = [:]
    /// Set while commit seals pages: nothing may be spilled (it would seal them twice).
    @exclusivity(unchecked) var committing = false
    let scratch: UnsafeMutableRawPointer
    /// Where the dirty pages live.
    @exclusivity(unchecked) var pageArena: PageArena

    init(storage: Storage, meta: Meta, mapping: StorageMapping, freeList: FreeList, nonceEpoch: UInt32) {
        txnid = meta.txnid + 1
        self.freeList = freeList
        self.nonceEpoch = nonceEpoch
        nonceCounter = storage.writer.nonceCounter
        // Sealed pages differ everywhere from their sources; deltas are for plain stores.
        keepsCopySources = storage.logState != nil && storage.cipher == nil && storage.options.durability == .durable
        scratch = UnsafeMutableRawPointer.allocate(byteCount: Int(meta.pageSize), alignment: 16)
        // Under the writer gate: no other transaction holds the store's spare chunk.
        pageArena = PageArena(pageSize: Int(meta.pageSize), first: storage.writer.spareChunk)
        storage.writer.spareChunk = nil
        super.init(storage: storage, meta: meta, mapping: mapping, slot: nil, isWriter: true)
        // A single-object commit copies a path per tree it changes, ~16 pages: one allocation
        // each rather than five as they grow.
        freed.reserveCapacity(32)
        if keepsCopySources { copiedFrom.reserveCapacity(32) }
    }

    deinit {
        scratch.deallocate()
        discardDirty()
        releaseWriter()
    }

    /// Drops every dirty page. Called before the writer lock goes, so handing the first chunk
    /// back to the store is still under the writer gate.
    func discardDirty() {
        dirty.removeAll()
        dirtyBytes = 0
        if let first = pageArena.reset() { storage.writer.spareChunk = first }
    }

    func releaseWriter() {
        if lockHeld {
            lockHeld = false
            storage.releaseWriter()
        }
    }

    /// Discards every change. Idempotent; also what happens if the transaction is dropped.
    public func abort() {
        if finished { return }
        finished = true
        // Pages sealed here may be on disk (spilled, or committed): the session's next
        // transaction must not seal with their nonces again.
        storage.writer.nonceCounter = nonceCounter
        discardDirty()
        releaseResources()
        releaseWriter()
    }

    public override func end() { abort() }

    // MARK: Trees

    /// The tree named `name`, created empty if it does not exist.
    public func createTree(named name: String) throws -> Tree {
        if let t = try tree(named: name) { return t }
        guard !name.isEmpty, name.utf8.count <= Storage.maxKeySize else {
            throw StorageError.invalidArgument("a tree name is 1...\(Storage.maxKeySize) bytes of UTF-8")
        }
        let t = Tree(name: name, info: TreeInfo())
        t.modified = true
        openTrees.set(t)
        generation &+= 1
        return t
    }

    /// Deletes the tree named `name` and all it holds; false if there was none.
    @discardableResult
    public func dropTree(named name: String) throws -> Bool {
        guard let t = try tree(named: name) else { return false }
        try freeSubtree(t.info.root)
        t.info = TreeInfo()
        t.dropped = true
        t.modified = true
        try Array(name.utf8).withUnsafeBytes { _ = try delete(catalog, raw: $0) }
        generation &+= 1
        return true
    }

    /// Removes every key of `tree`.
    public func clear(_ tree: Tree) throws {
        try beginOperation()
        try freeSubtree(tree.info.root)
        tree.info = TreeInfo()
        tree.modified = true
        generation &+= 1
    }

    // MARK: Writes

    /// Stores `value` under `key`, replacing any value there.
    public func put(_ tree: Tree, _ key: some ContiguousBytes, _ value: some ContiguousBytes) throws {
        try key.withUnsafeBytes { k in try value.withUnsafeBytes { v in try put(tree, raw: k, v) } }
    }

    /// Adds `key`, which must be greater than every key in the tree: the bulk-load path. A page
    /// that fills up is left full and the next key starts a new one, so sorted loads produce
    /// full pages (half-full with random inserts). Throws if `key` is not the largest.
    public func append(_ tree: Tree, _ key: some ContiguousBytes, _ value: some ContiguousBytes) throws {
        try key.withUnsafeBytes { k in
            try beginOperation()
            if tree.appendKey.isEmpty && tree.info.entries > 0 {
                let c = Cursor(transaction: self, tree: tree)
                if try c.last() { tree.appendKey = try c.key() }
            }
            let ascending = tree.appendKey.isEmpty || tree.appendKey.withUnsafeBytes { compareKeys(k, $0) > 0 }
            guard ascending else { throw StorageError.invalidArgument("append: the key is not greater than the tree's last key") }
            try value.withUnsafeBytes { v in try put(tree, raw: k, v) }
            tree.appendKey.replaceSubrange(0..., with: k)
        }
    }

    /// Removes `key`; false if it was not there.
    @discardableResult
    public func delete(_ tree: Tree, _ key: some ContiguousBytes) throws -> Bool {
        try key.withUnsafeBytes { try delete(tree, raw: $0) }
    }

    /// Stores `value` under `key`, replacing any value there (the zero-copy form).
    public func put(_ tree: Tree, raw key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws {
        _ = try put(tree, raw: key, value, replace: true)
    }

    /// Stores `value` under `key` unless the key is there already; returns false (and leaves
    /// the value there as it was) if it is. One descent does the check and the insert, where
    /// a lookup followed by ``put(_:_:_:)`` would descend twice: for unique keys.
    @discardableResult
    public func putIfAbsent(_ tree: Tree, _ key: some ContiguousBytes, _ value: some ContiguousBytes) throws -> Bool {
        try key.withUnsafeBytes { k in try value.withUnsafeBytes { v in try putIfAbsent(tree, raw: k, v) } }
    }

    /// ``putIfAbsent(_:_:_:)``, the zero-copy form.
    @discardableResult
    public func putIfAbsent(_ tree: Tree, raw key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool {
        try put(tree, raw: key, value, replace: false)
    }

    /// Inserts or replaces; with `replace` false an existing key is left alone and the result
    /// is false.
    private func put(_ tree: Tree, raw key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, replace: Bool) throws -> Bool {
        try beginOperation()
        guard !tree.dropped else { throw StorageError.noSuchTree(tree.name) }
        guard key.count >= 1, key.count <= Storage.maxKeySize else { throw StorageError.invalidKey(length: key.count) }
        if !committing && dirtyBytes > storage.options.maxDirtyBytes { try spill() }
        generation &+= 1
        tree.modified = true
        tree.appendKey.removeAll(keepingCapacity: true)

        let inlineSize = NodeEditor.leafEntrySize(keyCount: key.count, valueCount: value.count, overflow: false)
        var overflow: (pgno: UInt64, checksum: UInt64)? = nil
        if inlineSize > maxInlineEntry {
            overflow = try writeOverflow(value)
            tree.info.pages += UInt64(overflowPages(length: UInt64(value.count)))
        }
        let entrySize = overflow == nil ? inlineSize
            : NodeEditor.leafEntrySize(keyCount: key.count, valueCount: 0, overflow: true)
        let write: (UnsafeMutableRawPointer) -> Void = { dst in
            NodeEditor.writeLeafEntry(to: dst, key: key, value: value,
                                      overflow: overflow.map { ($0.pgno, $0.checksum, UInt64(value.count)) })
        }

        if tree.info.root == 0 {
            let (pgno, p) = try allocatePage(.leaf)
            NodeEditor(p: p, pageSize: pageSize).insertRaw(at: 0, size: entrySize, write)
            tree.info.root = pgno
            tree.info.depth = 1
            tree.info.pages += 1
            tree.info.entries = 1
            return true
        }
        let r = try insert(tree, pgno: tree.info.root, level: 1, key: key, entrySize: entrySize, replace: replace, write: write)
        tree.info.root = r.pgno
        if r.added { tree.info.entries += 1 }
        if let split = r.split {
            let (pgno, p) = try allocatePage(.branch)
            let e = NodeEditor(p: p, pageSize: pageSize)
            e.appendLeftmost(child: r.pgno, checksum: 0)
            split.key.withUnsafeBytes { e.insertBranch(at: 1, key: $0, child: split.right, checksum: 0) }
            tree.info.root = pgno
            tree.info.depth += 1
            tree.info.pages += 1
        }
        if r.present, let overflow {
            // The value written ahead for the entry that was not made.
            let pages = overflowPages(length: UInt64(value.count))
            try freePage(overflow.pgno, pages: pages)
            tree.info.pages -= UInt64(pages)
        }
        return !r.present
    }

    /// Removes `key` (the zero-copy form); false if it was not there.
    public func delete(_ tree: Tree, raw key: UnsafeRawBufferPointer) throws -> Bool {
        try delete(tree, raw: key, reading: { _ in })
    }

    /// Removes `key`, first calling `body` with the value it held (valid only inside `body`,
    /// which must not use the transaction); false, without calling `body`, if it was not
    /// there. Reading and removing take one search.
    public func delete(_ tree: Tree, raw key: UnsafeRawBufferPointer, reading body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        try beginOperation()
        guard !tree.dropped, tree.info.root != 0 else { return false }
        // One read-only descent finds the key and the child index at each level; the edit
        // then follows that path without searching again (and copies nothing if absent).
        return try withUnsafeTemporaryAllocation(of: Int.self, capacity: WriteTransaction.maxDepth) { buffer in
            guard let (path, leaf) = try searchPath(tree, key, into: buffer) else { return false }
            try withExtendedLifetime(mapping) { try withLeafValue(leaf, path[path.count - 1], body) }
            generation &+= 1
            tree.modified = true
            tree.appendKey.removeAll(keepingCapacity: true)
            let r = try remove(tree, pgno: tree.info.root, path: path, level: 0)
            tree.info.root = r.pgno
            tree.info.entries -= 1
            if r.state == .empty { try freeRoot(tree) } else { try shrinkRoot(tree) }
            return true
        }
    }

    /// Reads the value under `key` and replaces it with what `body` returns, with one search:
    /// a value of the same size is overwritten in place, another size is stored as by
    /// ``put(_:raw:_:)``. `body` sees the old value (valid only inside it), must not write to
    /// this transaction, and returns nil to leave the value as it was (nothing is copied then).
    /// Returns false, without calling `body`, if the key is absent.
    @discardableResult
    public func replace(_ tree: Tree, raw key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> [UInt8]?) throws -> Bool {
        try beginOperation()
        guard !tree.dropped, tree.info.root != 0 else { return false }
        return try withUnsafeTemporaryAllocation(of: Int.self, capacity: WriteTransaction.maxDepth) { buffer in
            guard let (path, leaf) = try searchPath(tree, key, into: buffer) else { return false }
            return try replaceValue(tree, raw: key, path: path, leaf: leaf, body)
        }
    }

    private func replaceValue(_ tree: Tree, raw key: UnsafeRawBufferPointer, path: UnsafeBufferPointer<Int>, leaf: NodeView,
                              _ body: (UnsafeRawBufferPointer) throws -> [UInt8]?) throws -> Bool {
        let i = path[path.count - 1]
        var inlineSize = -1
        if case .inline(let v) = try leaf.value(i) { inlineSize = v.count }
        // Reads in `body` may remap the file or drop decrypted pages: keep the old value's
        // mapping alive, and hand encrypted stores a copy.
        let new: [UInt8]? = try withExtendedLifetime(mapping) {
            if cipher != nil {
                let copy = try withLeafValue(leaf, i) { [UInt8]($0) }
                return try copy.withUnsafeBytes { try body($0) }
            }
            return try withLeafValue(leaf, i, body)
        }
        guard let new else { return true }
        guard new.count == inlineSize else {
            try new.withUnsafeBytes { try put(tree, raw: key, $0) }
            return true
        }
        if !committing && dirtyBytes > storage.options.maxDirtyBytes { try spill() }
        generation &+= 1
        tree.modified = true
        tree.info.root = try overwrite(pgno: tree.info.root, path: path, level: 0, with: new)
        return true
    }

    /// Levels a search may descend: deeper means a damaged tree (a cycle).
    static let maxDepth = 64

    /// The child index at each level down to `key`'s leaf entry, written to `buffer` (the
    /// leaf's entry index last), and the leaf; nil if the key is absent. The path lives in
    /// the caller's stack buffer: an array here cost an allocation and a generic destroy per
    /// delete of each of an object's trees (9% of an object delete's instructions).
    private func searchPath(_ tree: Tree, _ key: UnsafeRawBufferPointer,
                            into buffer: UnsafeMutableBufferPointer<Int>) throws -> (path: UnsafeBufferPointer<Int>, leaf: NodeView)? {
        var levels = 0
        var pgno = tree.info.root
        while true {
            guard levels < buffer.count else {
                throw StorageError.corrupt(page: pgno, detail: "tree deeper than \(buffer.count) levels (a cycle?)")
            }
            let n = try node(pgno)
            if n.isLeaf {
                let (i, exact) = try n.lowerBound(key)
                guard exact else { return nil }
                buffer[levels] = i
                return (UnsafeBufferPointer(rebasing: buffer[..<(levels + 1)]), n)
            }
            let i = try n.childIndex(for: key)
            buffer[levels] = i
            levels += 1
            pgno = try n.child(i)
        }
    }

    /// Copies `bytes` over the inline value at the end of `path` (the same size), touching the
    /// pages on the way; returns the subtree's new root.
    private func overwrite(pgno: UInt64, path: UnsafeBufferPointer<Int>, level: Int, with bytes: [UInt8]) throws -> UInt64 {
        let (np, p) = try touch(pgno)
        let view = try NodeView(p, pgno: np, pageSize: pageSize)
        let i = path[level]
        guard i < view.count else { throw StorageError.corrupt(page: np, detail: "entry \(i) vanished during replace") }
        if view.isLeaf {
            guard case .inline(let v) = try view.value(i), v.count == bytes.count else {
                throw StorageError.corrupt(page: np, detail: "entry \(i) changed during replace")
            }
            if v.count > 0 { bytes.withUnsafeBytes { UnsafeMutableRawPointer(mutating: v.baseAddress!).copyMemory(from: $0.baseAddress!, byteCount: v.count) } }
            return np
        }
        guard level + 1 < path.count else { throw StorageError.corrupt(page: np, detail: "tree is deeper than during the search") }
        let child = try overwrite(pgno: try view.child(i), path: path, level: level + 1, with: bytes)
        NodeEditor(p: p, pageSize: pageSize).setChild(i, pgno: child, checksum: 0)
        return np
    }

    // MARK: Tree edits

    var usable: Int { pageSize - PageLayout.headerSize - PageLayout.trailerSize }
    /// The largest entry kept in a leaf; larger values go to overflow pages. A quarter page
    /// keeps at least four entries per page, so any split leaves both halves valid.
    var maxInlineEntry: Int { usable / 4 - 2 }
    var underflowBytes: Int { usable / 4 }

    private struct InsertResult {
        var pgno: UInt64
        var split: (key: [UInt8], right: UInt64)?
        var added: Bool
        /// The key was there and `replace` was false: nothing changed below.
        var present = false
    }

    /// `parent` is the branch page above (and this page's index in it), which a full leaf
    /// needs to move entries into a sibling.
    private func insert(_ tree: Tree, pgno: UInt64, level: Int, key: UnsafeRawBufferPointer, entrySize: Int,
                        replace: Bool, parent: (page: UnsafeMutableRawPointer, pgno: UInt64, index: Int)? = nil,
                        write: (UnsafeMutableRawPointer) -> Void) throws -> InsertResult {
        if level > 64 { throw StorageError.corrupt(page: pgno, detail: "tree deeper than 64 levels (a cycle?)") }
        let (np, p) = try touch(pgno)
        let view = try NodeView(p, pgno: np, pageSize: pageSize)
        let editor = NodeEditor(p: p, pageSize: pageSize)
        if view.isLeaf {
            var (i, exact) = try view.lowerBound(key)
            if exact && !replace { return InsertResult(pgno: np, split: nil, added: false, present: true) }
            if exact {
                if case let .overflow(opg, _, length) = try view.value(i) {
                    try freePage(opg, pages: overflowPages(length: length))
                    tree.info.pages -= UInt64(overflowPages(length: length))
                }
                editor.remove(at: i, size: try view.entrySize(i))
            }
            if entrySize + 2 <= editor.freeSpace {
                editor.insertRaw(at: i, size: entrySize, write)
                return InsertResult(pgno: np, split: nil, added: !exact)
            }
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: entrySize, alignment: 8)
            defer { buffer.deallocate() }
            write(buffer)
            if exact { i = min(i, editor.count) }
            let newEntry = UnsafeRawBufferPointer(start: buffer, count: entrySize)
            if let parent, try shiftIntoSibling(leaf: p, pgno: np, at: i, entry: newEntry,
                                                parent: parent.page, parentPgno: parent.pgno, index: parent.index) {
                return InsertResult(pgno: np, split: nil, added: !exact)
            }
            let split = try splitInsert(tree, pgno: np, page: p, at: i, entry: newEntry)
            return InsertResult(pgno: np, split: split, added: !exact)
        }
        let i = try view.childIndex(for: key)
        let child = try view.child(i)
        let r = try insert(tree, pgno: child, level: level + 1, key: key, entrySize: entrySize, replace: replace,
                           parent: (p, np, i), write: write)
        editor.setChild(i, pgno: r.pgno, checksum: 0)
        guard let s = r.split else { return InsertResult(pgno: np, split: nil, added: r.added, present: r.present) }
        let size = NodeView.branchFixed + s.key.count
        if size + 2 <= editor.freeSpace {
            s.key.withUnsafeBytes { editor.insertBranch(at: i + 1, key: $0, child: s.right, checksum: 0) }
            return InsertResult(pgno: np, split: nil, added: r.added)
        }
        let entry = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { entry.deallocate() }
        entry.storeBytes(of: s.right, toByteOffset: 0, as: UInt64.self)
        entry.storeBytes(of: UInt64(0), toByteOffset: 8, as: UInt64.self)
        entry.storeBytes(of: UInt16(s.key.count), toByteOffset: 16, as: UInt16.self)
        s.key.withUnsafeBytes { (entry + 18).copyMemory(from: $0.baseAddress!, byteCount: s.key.count) }
        let split = try splitInsert(tree, pgno: np, page: p, at: i + 1, entry: UnsafeRawBufferPointer(start: entry, count: size))
        return InsertResult(pgno: np, split: split, added: r.added)
    }

    /// Splits the full page `p` while inserting `entry` at index `at`; returns the separator key
    /// and the new right sibling. Appending at the end (sequential keys) leaves the old page full
    /// and starts the new one with the new entry alone, so bulk loads fill pages completely;
    /// inserting at the start does the mirror image. The entries that go right are copied to
    /// the new page and removed from this one, which keeps the rest where they are: the split
    /// point is found from the end, reading the sizes of those entries only.
    private func splitInsert(_ tree: Tree, pgno: UInt64, page p: UnsafeMutableRawPointer, at: Int,
                             entry: UnsafeRawBufferPointer) throws -> (key: [UInt8], right: UInt64) {
        let old = try NodeView(p, pgno: pgno, pageSize: pageSize)
        return try withUnsafeTemporaryAllocation(of: UInt16.self, capacity: old.count + 1) { sizes in
            let entries = PendingEntries(old, inserting: entry, at: at, sizes: sizes.baseAddress!)
            let n = entries.count
            var splitAt: Int
            if at == old.count {
                splitAt = n - 1
            } else if at == 0 {
                // Descending keys: the new entry alone on the left, the old page whole on the right.
                splitAt = 1
            } else {
                // The first count whose entries hold half the bytes: the fewest entries from the
                // end that hold at most the other half start the right page.
                let total = old.usedBytes + entry.count + 2
                let rest = total - total / 2
                var suffix = 0
                splitAt = n
                while splitAt > 1 {
                    let size = try entries.size(splitAt - 1)
                    if suffix + size > rest { break }
                    suffix += size
                    splitAt -= 1
                }
                splitAt = min(splitAt, n - 1)
            }
            // A branch keeps two children on each side (`Tree`): one fewer than full on the left
            // when appending, and the mirror image. A full branch holds seven entries or more
            // (keys are at most `Storage.maxKeySize`), so both halves fit.
            if !old.isLeaf { splitAt = max(2, min(splitAt, n - 2)) }
            for j in splitAt..<n { _ = try entries.size(j) }
            let (rightPgno, rp) = try allocatePage(old.isLeaf ? .leaf : .branch)
            tree.info.pages += 1
            let right = NodeEditor(p: rp, pageSize: pageSize)
            let first = entries.raw(splitAt)
            let sepKey: [UInt8]
            if old.isLeaf {
                sepKey = Array(NodeView.narrowKey(first))
                right.appendRaw(first)
            } else {
                let klen = Int(first.loadUnaligned(fromByteOffset: 16, as: UInt16.self))
                sepKey = Array(UnsafeRawBufferPointer(rebasing: first[18..<(18 + klen)]))
                // Keep the child's recorded checksum: zero would mark it as touched by this transaction.
                right.appendLeftmost(child: first.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                                     checksum: first.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            }
            right.insertRaws(at: 1, count: n - splitAt - 1) { entries.raw(splitAt + 1 + $0) }
            let moving = splitAt..<n
            let left = NodeEditor(p: p, pageSize: pageSize)
            left.removeEntries(entries.oldRange(moving), size: entries.oldSize)
            if !entries.holdsInserted(moving) {
                left.insertRaw(at: at, size: entry.count) { $0.copyMemory(from: entry.baseAddress!, byteCount: entry.count) }
            }
            return (sepKey, rightPgno)
        }
    }

    /// Removes the entry at the end of `path` from the subtree at `pgno`; returns the
    /// subtree's new root and whether its parent must see to it (`NodeState`).
    private func remove(_ tree: Tree, pgno: UInt64, path: UnsafeBufferPointer<Int>, level: Int) throws -> (pgno: UInt64, state: NodeState) {
        let (np, p) = try touch(pgno)
        let view = try NodeView(p, pgno: np, pageSize: pageSize)
        let editor = NodeEditor(p: p, pageSize: pageSize)
        let i = path[level]
        guard i < view.count else { throw StorageError.corrupt(page: np, detail: "entry \(i) vanished during delete") }
        if view.isLeaf {
            if case let .overflow(opg, _, length) = try view.value(i) {
                let pages = overflowPages(length: length)
                try freePage(opg, pages: pages)
                tree.info.pages -= UInt64(pages)
            }
            editor.remove(at: i, size: try view.entrySize(i))
            return (np, nodeState(editor, isLeaf: true))
        }
        guard level + 1 < path.count else { throw StorageError.corrupt(page: np, detail: "tree is deeper than during the search") }
        let r = try remove(tree, pgno: try view.child(i), path: path, level: level + 1)
        if r.state == .empty {
            try removeEmptyChild(tree, parent: p, parentPgno: np, index: i, childPgno: r.pgno)
        } else {
            editor.setChild(i, pgno: r.pgno, checksum: 0)
            if r.state == .underfull {
                try repairChild(tree, parent: p, parentPgno: np, index: i, isBranch: level + 2 < path.count)
            }
        }
        return (np, nodeState(editor, isLeaf: false))
    }

    /// Frees every page of the subtree at `pgno`.
    func freeSubtree(_ pgno: UInt64, level: Int = 0) throws {
        guard pgno != 0 else { return }
        if level > 64 { throw StorageError.corrupt(page: pgno, detail: "tree deeper than 64 levels (a cycle?)") }
        let n = try node(pgno)
        for i in 0..<n.count {
            if n.isLeaf {
                if case let .overflow(opg, _, length) = try n.value(i) { try freePage(opg, pages: overflowPages(length: length)) }
            } else {
                try freeSubtree(try n.child(i), level: level + 1)
            }
        }
        try freePage(pgno, pages: 1)
    }

    // MARK: Pages

    /// True if `pgno` was allocated by this transaction (so it may be edited in place).
    @inline(__always)
    func isOwn(_ pgno: UInt64) -> Bool { dirty[pgno] != nil || (!early.isEmpty && early[pgno] != nil) }

    /// A writable copy of page `pgno`: the page itself if this transaction already owns it,
    /// else a copy at a new page number (the old one is freed once no reader can see it).
    func touch(_ pgno: UInt64) throws -> (UInt64, UnsafeMutableRawPointer) {
        if let d = dirty[pgno] { return (pgno, d) }
        if !early.isEmpty, early[pgno] != nil {
            // A spilled leaf: bring it back into memory at the same page number.
            let source = try run(pgno, pages: 1)
            early[pgno] = nil
            let p = newDirtyBuffer(pgno)
            p.copyMemory(from: source, byteCount: pageSize)
            return (pgno, p)
        }
        let source = try node(pgno)
        let (np, p) = try allocatePage(nil)
        p.copyMemory(from: source.p, byteCount: pageSize)
        // Validate the private copy (already in cache), so edits can trust its layout. A page
        // a commit through this `Storage` wrote is laid out as this code left it: a commit's
        // pages carry its txnid, which no other commit reuses, and copy-on-write never changes
        // a page while it is reachable. So only pages other writers (other objects, other
        // processes, earlier sessions) wrote are validated: in a long-lived process, most
        // pages a small commit copies are its own earlier commits' (root and branches every
        // time, leaves once it has written them).
        if !storage.writer.wrote(PageHeader(p).txnid) {
            validatedPages += 1
            do {
                try NodeView(p, pgno: pgno, pageSize: pageSize).validate()
            } catch {
                try freePage(np, pages: 1)
                throw error
            }
        }
        if source.isLeaf && !source.narrow {
            // A leaf of an older file: edits write narrow entries only.
            do {
                try NodeEditor(p: p, pageSize: pageSize).rewriteNarrow(from: source)
            } catch {
                try freePage(np, pages: 1)
                throw error
            }
        }
        PageHeader.setIdentity(p, pgno: np, txnid: txnid)
        freed.append(pgno)
        if isCompaction, let pages = relocated.removeValue(forKey: pgno) { relocated[np] = pages }
        // A transaction that copies more pages than a record takes is written in place.
        if keepsCopySources, copiedFrom.count < 512 { copiedFrom.append((np, pgno)) }
        return (np, p)
    }

    private func newDirtyBuffer(_ pgno: UInt64) -> UnsafeMutableRawPointer {
        let p = pageArena.allocate()
        dirty.insert(pgno, p)
        dirtyBytes += pageSize
        return p
    }

    /// A new page (initialized when `type` is given), from the free list or the end of the file.
    func allocatePage(_ type: PageType?) throws -> (UInt64, UnsafeMutableRawPointer) {
        let pgno = allocateRun(1)
        let p = newDirtyBuffer(pgno)
        if let type { PageHeader.initialize(p, pgno: pgno, txnid: txnid, type: type, pages: 1, pageSize: pageSize) }
        return (pgno, p)
    }

    func allocateRun(_ pages: Int) -> UInt64 {
        if let pgno = freeList.allocate(pages) { return pgno }
        let pgno = pageLimit
        pageLimit += UInt64(pages)
        return pgno
    }

    /// Releases a run: at once if this transaction made it, else when no reader can see it.
    func freePage(_ pgno: UInt64, pages: Int) throws {
        // A damaged reference must not hand live pages, or pages past the file, to the free list.
        guard pages >= 1, pgno >= PageLayout.metaPages, pgno < pageLimit, UInt64(pages) <= pageLimit - pgno else {
            throw StorageError.corrupt(page: pgno, detail: "run of \(pages) pages at \(pgno) to free lies outside the store's \(pageLimit) pages")
        }
        if isCompaction { relocated[pgno] = nil }
        if let d = dirty.remove(pgno) {
            pageArena.release(d)
            dirtyBytes -= pageSize
            freeList.release(pgno, count: pages)
        } else if let e = early.removeValue(forKey: pgno) {
            freeList.release(pgno, count: e.pages)
        } else {
            for i in 0..<UInt64(pages) { freed.append(pgno + i) }
        }
    }

    /// Writes a value too large for a leaf to its own run of pages, at once (it never changes).
    private func writeOverflow(_ value: UnsafeRawBufferPointer) throws -> (pgno: UInt64, checksum: UInt64) {
        let pages = overflowPages(length: UInt64(value.count))
        let pgno = allocateRun(pages)
        let length = pages * pageSize
        let p = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 16)
        defer { p.deallocate() }
        PageHeader.initialize(p, pgno: pgno, txnid: txnid, type: .overflow, pages: pages, pageSize: pageSize)
        if value.count > 0 { (p + PageLayout.headerSize).copyMemory(from: value.baseAddress!, byteCount: value.count) }
        let tail = PageLayout.headerSize + value.count
        (p + tail).initializeMemory(as: UInt8.self, repeating: 0, count: length - tail)
        let checksum = try seal(p, length: length, pgno: pgno)
        try storage.io.write(UnsafeRawBufferPointer(start: p, count: length), at: pgno * UInt64(pageSize))
        early[pgno] = (pages, checksum)
        return (pgno, checksum)
    }

    /// Writes every dirty leaf out early so a huge transaction runs in bounded memory. Branches
    /// stay in memory: commit fills in their children's checksums.
    func spill() throws {
        var leaves: [(UInt64, UnsafeMutableRawPointer)] = []
        dirty.forEach { pgno, p in if PageHeader(p).type == PageType.leaf.rawValue { leaves.append((pgno, p)) } }
        // The older half (lower page numbers, in allocation order from the file's end) goes
        // out; recently touched leaves, likely to be touched again, stay.
        leaves.sort { $0.0 < $1.0 }
        for (pgno, p) in leaves.prefix(max(1, leaves.count / 2)) {
            let checksum = try seal(p, length: pageSize, pgno: pgno)
            try storage.io.write(UnsafeRawBufferPointer(start: p, count: pageSize), at: pgno * UInt64(pageSize))
            early[pgno] = (1, checksum)
            dirty.remove(pgno)
            pageArena.release(p)
            dirtyBytes -= pageSize
        }
        // Decrypted copies of pages now rewritten on disk are stale.
        for (_, p) in decrypted { p.deallocate() }
        decrypted.removeAll()
    }

    /// Computes the trailer of a run (checksum, or encryption) and returns the checksum its
    /// parent records.
    func seal(_ p: UnsafeMutableRawPointer, length: Int, pgno: UInt64) throws -> UInt64 {
        if let cipher {
            if nonceCounter == UInt32.max {
                throw StorageError.invalidArgument("this session wrote 2^32 encrypted pages; reopen the store")
            }
            nonceCounter += 1
            return try cipher.seal(p, length: length, pgno: pgno, epoch: nonceEpoch, counter: nonceCounter)
        }
        if PageHeader(p).isTree { PageHeader.addFlags(p, PageLayout.flagGapUnchecked) }
        let c = Checksum.run(p, length: length)
        let t = p + length - PageLayout.trailerSize
        t.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.trailerSize)
        t.storeBytes(of: c, toByteOffset: 0, as: UInt64.self)
        return c
    }
}
