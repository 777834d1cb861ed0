#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A consistent snapshot of the store: it sees the last commit before it began, for its whole
/// life, whatever writers do meanwhile. Readers never block the writer nor each other.
///
/// A transaction is not thread-safe; use it from one thread at a time. End it with
/// ``end()`` (or let ``Storage/read(_:)`` do it): a live reader keeps the pages of its snapshot
/// from being reused.
public class ReadTransaction {
    let storage: Storage
    let pageSize: Int
    @exclusivity(unchecked) var meta: Meta
    @exclusivity(unchecked) var mapping: StorageMapping
    /// Pages below this number exist in this transaction's view of the file.
    @exclusivity(unchecked) var pageLimit: UInt64
    let cipher: PageCipher?
    let isWriter: Bool
    var readerSlot: Int?
    @exclusivity(unchecked) var finished = false
    @exclusivity(unchecked) var openTrees = OpenTrees()
    /// Catalog entries known without a lookup (a writer's, from the previous commit).
    @exclusivity(unchecked) var knownTrees: [String: TreeInfo] = [:]
    var catalog: Tree
    /// Dirty pages of a write transaction, by page number (empty for readers). A writer's is
    /// sized for a small commit's ~20 pages, so that it never grows.
    @exclusivity(unchecked) var dirty: PageTable
    /// Decrypted pages (encrypted stores only), dropped between operations once it grows.
    @exclusivity(unchecked) var decrypted: [UInt64: UnsafeMutableRawPointer] = [:]
    /// Bumped by every write, so cursors know to re-seek.
    @exclusivity(unchecked) var generation: UInt64 = 0

    init(storage: Storage, meta: Meta, mapping: StorageMapping, slot: Int?, isWriter: Bool) {
        self.storage = storage
        self.pageSize = Int(meta.pageSize)
        self.meta = meta
        self.mapping = mapping
        self.pageLimit = meta.pageCount
        self.cipher = storage.cipher
        self.isWriter = isWriter
        dirty = PageTable(capacity: isWriter ? 64 : 1)
        self.readerSlot = slot
        self.catalog = Tree(name: "", info: meta.catalog, isCatalog: true)
    }

    deinit {
        releaseResources()
        dirty.deallocate()
    }

    func releaseResources() {
        for (_, p) in decrypted { p.deallocate() }
        decrypted.removeAll()
        if let slot = readerSlot {
            storage.lockFile?.releaseSlot(slot)
            readerSlot = nil
        }
    }

    /// The transaction id of the snapshot this transaction reads.
    public var snapshotID: UInt64 { meta.txnid }

    /// Ends the transaction, letting its snapshot's pages be reused. Idempotent.
    public func end() {
        if finished { return }
        finished = true
        releaseResources()
    }

    @inline(__always)
    func checkLive() throws {
        if finished { throw StorageError.transactionFinished }
    }

    // MARK: Pages

    /// The page `pgno` as this transaction sees it. Valid until the next operation.
    @inline(__always)
    final func page(_ pgno: UInt64) throws -> UnsafeRawPointer {
        if isWriter, let d = dirty[pgno] { return UnsafeRawPointer(d) }
        guard pgno >= PageLayout.metaPages, pgno < pageLimit else {
            throw StorageError.corrupt(page: pgno, detail: "reference to page \(pgno), outside the store's \(pageLimit) pages")
        }
        if cipher != nil { return try decryptedRun(pgno, pages: 1) }
        let offset = pgno &* UInt64(pageSize)
        if offset + UInt64(pageSize) > mapping.length { try remap() }
        let p = mapping.base + Int(offset)
        if storage.options.verifyChecksumsOnRead {
            let stored = p.loadUnaligned(fromByteOffset: pageSize - PageLayout.trailerSize, as: UInt64.self)
            if Checksum.run(p, length: pageSize) != stored {
                throw StorageError.corrupt(page: pgno, detail: "checksum mismatch")
            }
        }
        return p
    }

    /// A run of `pages` pages starting at `pgno`, decrypted if needed.
    final func run(_ pgno: UInt64, pages: Int) throws -> UnsafeRawPointer {
        guard pages >= 1, pgno >= PageLayout.metaPages, pgno < pageLimit, UInt64(pages) <= pageLimit - pgno else {
            throw StorageError.corrupt(page: pgno, detail: "run of \(pages) pages at \(pgno) lies outside the store's \(pageLimit) pages")
        }
        if cipher != nil { return try decryptedRun(pgno, pages: pages) }
        let offset = pgno &* UInt64(pageSize)
        if offset + UInt64(pages * pageSize) > mapping.length { try remap() }
        return mapping.base + Int(offset)
    }

    /// A run of `pages` pages starting at `pgno`, decrypted if needed, whose checksum must be
    /// `checksum` (what its referrer recorded): for pages whose damage would not show when
    /// read, such as the free list's, which says which pages a writer may overwrite.
    final func run(_ pgno: UInt64, pages: Int, checksum: UInt64) throws -> UnsafeRawPointer {
        let p = try run(pgno, pages: pages)
        let raw = mapping.base + Int(pgno &* UInt64(pageSize))
        switch Checksum.check(raw, length: pages * pageSize, expected: checksum, encrypted: cipher != nil) {
        case .matches: return p
        case .damaged: throw StorageError.corrupt(page: pgno, detail: "checksum mismatch (page content is damaged)")
        case .stale: throw StorageError.corrupt(page: pgno, detail: "checksum does not match its referrer's record (a torn or stale write)")
        }
    }

    private func decryptedRun(_ pgno: UInt64, pages: Int) throws -> UnsafeRawPointer {
        if let p = decrypted[pgno] { return UnsafeRawPointer(p) }
        let length = pages * pageSize
        let offset = pgno &* UInt64(pageSize)
        if offset + UInt64(length) > mapping.length { try remap() }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 16)
        do {
            try cipher!.open(mapping.base + Int(offset), into: buffer, length: length, pgno: pgno)
        } catch {
            buffer.deallocate()
            throw error
        }
        decrypted[pgno] = buffer
        return UnsafeRawPointer(buffer)
    }

    func remap() throws {
        mapping = try storage.mapping(covering: pageLimit &* UInt64(pageSize))
    }

    /// Called at the start of each public operation: bounds the decrypted-page cache.
    @inline(__always)
    final func beginOperation() throws {
        try checkLive()
        if cipher != nil && decrypted.count > 2048 {
            for (_, p) in decrypted { p.deallocate() }
            decrypted.removeAll(keepingCapacity: true)
        }
    }

    @inline(__always)
    final func node(_ pgno: UInt64) throws -> NodeView {
        try NodeView(page(pgno), pgno: pgno, pageSize: pageSize)
    }

    // MARK: Trees

    /// The tree named `name`, or nil if there is none.
    public func tree(named name: String) throws -> Tree? {
        try beginOperation()
        if let t = openTrees[name] { return t.dropped ? nil : t }
        if let info = knownTrees[name] {
            let t = Tree(name: name, info: info)
            openTrees.set(t)
            return t
        }
        let key = Array(name.utf8)
        guard let raw = try key.withUnsafeBytes({ try lookup(catalog, $0) { Array($0) } }) else { return nil }
        guard raw.count == TreeInfo.encodedSize else {
            throw StorageError.corrupt(page: catalog.info.root, detail: "catalog entry for '\(name)' has \(raw.count) bytes")
        }
        let info = raw.withUnsafeBytes { TreeInfo(decoding: $0.baseAddress!) }
        let t = Tree(name: name, info: info)
        openTrees.set(t)
        return t
    }

    /// The names of every tree, in byte order.
    public func treeNames() throws -> [String] {
        try beginOperation()
        var names: [String] = []
        let c = Cursor(transaction: self, tree: catalog)
        var ok = try c.first()
        while ok {
            if let name = String(validating: try c.key(), as: UTF8.self) {
                if !(openTrees[name]?.dropped ?? false) { names.append(name) }
            }
            ok = try c.next()
        }
        for t in openTrees.all where !t.dropped && t.modified && !names.contains(t.name) { names.append(t.name) }
        return names.sorted()
    }

    // MARK: Reads

    /// Calls `body` with the value stored under `key`, or returns nil if there is none. The
    /// buffer is valid only inside `body`: this is the zero-copy read.
    public func withValue<R>(_ tree: Tree, forKey key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        try beginOperation()
        return try lookup(tree, key, body)
    }

    /// Calls `body` with the value stored under `key`, or returns nil if there is none, like
    /// ``withValue(_:forKey:_:)``, but the buffer stays valid while `body` reads other entries
    /// through this transaction: a reader holds the mapping it points into; a writer or an
    /// encrypted store (whose pages may move or be released meanwhile) passes a copy.
    public func withStableValue<R>(_ tree: Tree, forKey key: UnsafeRawBufferPointer,
                                   _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        try beginOperation()
        if isWriter || cipher != nil {
            guard let copy = try lookup(tree, key, { Array($0) }) else { return nil }
            return try copy.withUnsafeBytes(body)
        }
        // Pages of a reader's snapshot never change; its mapping stays valid while held, even
        // if a read inside `body` maps the file again.
        let held = mapping
        defer { withExtendedLifetime(held) {} }
        return try lookup(tree, key, body)
    }

    /// Calls `body` with the last key of `tree` and its value, or returns nil if the tree is
    /// empty: one descent along the right edge, no cursor. Both buffers are valid only inside
    /// `body`.
    public func withLastEntry<R>(_ tree: Tree, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> R) throws -> R? {
        try beginOperation()
        var pgno = tree.info.root
        if pgno == 0 { return nil }
        var level = 0
        while true {
            let n = try node(pgno)
            let count = n.count
            if n.isLeaf {
                // An empty leaf other than the root (deletes can leave one, see `Cursor.step`):
                // the last entry lies in an earlier leaf, which a cursor finds.
                guard count > 0 else { return level == 0 ? nil : try lastThroughCursor(tree, body) }
                let key = try n.key(count - 1)
                return try withLeafValue(n, count - 1) { try body(key, $0) }
            }
            level += 1
            if level > 64 || count == 0 { throw StorageError.corrupt(page: pgno, detail: "tree deeper than 64 levels or an empty branch") }
            pgno = try n.child(count - 1)
        }
    }

    private final func lastThroughCursor<R>(_ tree: Tree, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> R) throws -> R? {
        let c = Cursor(transaction: self, tree: tree)
        guard try c.last() else { return nil }
        return try c.withEntry(body)
    }

    /// The value stored under `key`, copied, or nil.
    public func get(_ tree: Tree, _ key: some ContiguousBytes) throws -> [UInt8]? {
        try key.withUnsafeBytes { k in try withValue(tree, forKey: k) { Array($0) } }
    }

    /// Whether `key` is in the tree.
    public func contains(_ tree: Tree, _ key: some ContiguousBytes) throws -> Bool {
        try key.withUnsafeBytes { k in try withValue(tree, forKey: k) { _ in true } } ?? false
    }

    /// A cursor over the tree, positioned nowhere until a `first`, `last` or `seek`.
    public func cursor(_ tree: Tree) throws -> Cursor {
        try beginOperation()
        return Cursor(transaction: self, tree: tree)
    }

    final func lookup<R>(_ tree: Tree, _ key: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        var pgno = tree.info.root
        if pgno == 0 { return nil }
        var level = 0
        while true {
            let n = try node(pgno)
            if n.isLeaf {
                let (i, exact) = try n.lowerBound(key)
                guard exact else { return nil }
                return try withLeafValue(n, i, body)
            }
            level += 1
            if level > 64 { throw StorageError.corrupt(page: pgno, detail: "tree deeper than 64 levels (a cycle?)") }
            pgno = try n.child(try n.childIndex(for: key))
        }
    }

    final func withLeafValue<R>(_ n: NodeView, _ i: Int, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        switch try n.value(i) {
        case .inline(let v):
            return try body(v)
        case let .overflow(pgno, _, length):
            let pages = overflowPages(length: length)
            let p = try run(pgno, pages: pages)
            let h = PageHeader(p)
            guard h.type == PageType.overflow.rawValue, h.pgno == pgno else {
                throw StorageError.corrupt(page: pgno, detail: "expected an overflow page")
            }
            return try body(UnsafeRawBufferPointer(start: p + PageLayout.headerSize, count: Int(length)))
        }
    }

    final func overflowPages(length: UInt64) -> Int {
        (Int(length) + PageLayout.headerSize + PageLayout.trailerSize + pageSize - 1) / pageSize
    }
}
