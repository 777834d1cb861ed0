extension WriteTransaction {
    // The commit protocol (one fdatasync per durable commit):
    // 1. Every changed page is written to a page no live snapshot uses: copy-on-write, and a
    //    freed page is reused only once no reader, nor the meta a crash falls back to, sees it.
    // 2. Parents record their children's checksums, the catalog its trees' roots', the free
    //    list's index its chunks', the meta the catalog's and the index's: the meta's own
    //    checksum thus covers every new page.
    // 3. The meta goes to the slot that does not hold the last durable state.
    // 4. One fdatasync: pages and meta reach the disk together, in whatever order the disk likes.
    //    A small commit on a durable base makes the commit log durable instead, appending the
    //    same writes to it as one record (`CommitLog`, most pages as deltas from pages an
    //    earlier record wrote) in one direct write; the data file is synced when the log fills.
    // 5. Open checks the newest meta's new pages against those checksums; a torn commit fails
    //    and the other slot, untouched by it, wins.
    // 6. Only a machine crash can tear a commit: within one boot the page cache holds every
    //    write a process made, even one killed mid-commit, and the meta is written last. So
    //    the lock file records the last commit known whole with the boot id, and an open in
    //    the same boot that finds that commit newest skips step 5 (`LockFile.CompleteCommit`).

    /// Makes the transaction's changes visible to new readers and, unless the store is
    /// `.noSync`, durable. On error nothing changes.
    public func commit() throws {
        try checkLive()
        defer { abort() }
        let anyChange = !dirty.isEmpty || !early.isEmpty || !freed.isEmpty
            || openTrees.values.contains(where: \.modified)
        guard anyChange else { return }
        committing = true

        // Trees into the catalog, then the catalog, each sealed bottom-up.
        for (name, t) in openTrees.sorted(by: { $0.key < $1.key }) where t.modified && !t.dropped {
            if t.info.root != 0 && isOwn(t.info.root) { t.info.rootChecksum = try seal(tree: t.info.root) }
            let value = t.info.bytes
            try Array(name.utf8).withUnsafeBytes { k in try value.withUnsafeBytes { try put(catalog, raw: k, $0) } }
        }
        if catalog.info.root != 0 && isOwn(catalog.info.root) {
            catalog.info.rootChecksum = try seal(tree: catalog.info.root)
        }

        // The free list, written last because everything above allocates and frees pages.
        if meta.freeListPgno != 0 {
            for i in 0..<UInt64(meta.freeListPages) { freed.append(meta.freeListPgno + i) }
        }
        freeList.addPending(txnid: txnid, pages: freed)
        freed.removeAll()
        let list = try sealFreeList()
        defer { list.buffer.deallocate() }

        let durable = storage.options.durability == .durable
        let needed = pageLimit * UInt64(pageSize)
        let synced = max(storage.lastSynced, meta.syncedThrough)
        // The log takes a commit only on top of a durable base (a record holds this commit's
        // pages alone) and none of whose pages went out early.
        let recordBytes = (dirty.count + 1) * pageSize + list.bytes + Meta.size
        let log = durable && early.isEmpty && meta.txnid <= synced
            ? storage.commitLog.flatMap { recordBytes <= $0.largestRecord ? $0 : nil } : nil
        let logged = log != nil
        do {
            // A no-sync commit writes in place what no record repeats: the log must first be
            // empty, so that a replay never undoes it (see `CommitLog`).
            if !durable, storage.commitLogHasRecords { try storage.checkpoint() }
            var position = storage.commitLogPosition
            // A full log, one whose position is unknown, or one another data file left at this
            // path (see `CommitLog`) restarts first.
            if let log, try position.end == 0
                || position.end + CommitLog.recordSize(extents: dirty.count + list.pages.count + 2, dataBytes: recordBytes) > log.capacity
                || !storage.commitLogFollowsThisStore(generation: position.generation, storeID: meta.storeID, txnid: meta.txnid) {
                // Nothing of this commit is written yet: the data file holds the base state.
                try storage.checkpoint(restartingLog: true)
                position = storage.commitLogPosition
            }
            let written = try writePages(adding: list.pages)
            var extents: [CommitLog.Extent] = []
            var deltas: UnsafeMutableRawPointer? = nil
            defer { deltas?.deallocate() }
            if logged {
                extents.reserveCapacity(written.count + 2)
                deltas = try logExtents(written, at: position, rebuilt: list.sources, into: &extents)
            }
            var zero: UnsafeMutableRawPointer? = nil
            defer { zero?.deallocate() }
            // Pages taken from the end and released again were never written: extend the file
            // so that it holds every page the meta counts. The file never shrinks, so a size
            // once seen needs no `fstat` again.
            if storage.writerFileSize < needed {
                if try storage.io.size() < needed {
                    let z = UnsafeMutableRawPointer.allocate(byteCount: pageSize, alignment: 16)
                    zero = z
                    z.initializeMemory(as: UInt8.self, repeating: 0, count: pageSize)
                    let page = UnsafeRawBufferPointer(start: z, count: pageSize)
                    try storage.io.write(page, at: (pageLimit - 1) * UInt64(pageSize))
                    // The record repeats the write: replay must grow the file as far.
                    if logged { extents.append(((pageLimit - 1) * UInt64(pageSize), page, false)) }
                }
                storage.writerFileSize = needed
            }

            var m = meta
            m.txnid = txnid
            m.pageCount = pageLimit
            m.catalog = catalog.info
            m.freeListPgno = list.indexPgno
            m.freeListPages = UInt32(list.indexPages)
            m.freeListChecksum = list.indexChecksum
            m.lastSyncedTxnid = synced
            if durable { m.flags |= Meta.flagDurableCommit } else { m.flags &= ~Meta.flagDurableCommit }
            // Keep the slot holding the last durable state; overwrite the other.
            m.slot = meta.txnid <= synced ? meta.slot ^ 1 : meta.slot
            let metaBuffer = UnsafeMutableRawPointer.allocate(byteCount: Meta.size, alignment: 16)
            defer { metaBuffer.deallocate() }
            let digest = try storage.writeMeta(m, buffer: metaBuffer)
            if let log {
                extents.append((UInt64(m.slot * pageSize), UnsafeRawBufferPointer(start: metaBuffer, count: Meta.size), false))
                // Unknown while the record is under way: a writer that dies mid-append may
                // still leave it whole on disk, so the next one must restart, not append.
                storage.commitLogPosition = (0, 0)
                let end = try log.append(generation: position.generation, txnid: txnid, extents: extents,
                                                        fileSize: needed, at: position.end)
                storage.commitLogPosition = (position.generation, end)
                if position.end == CommitLog.headerSize { storage.logFirstRecord = (position.generation, txnid) }
                storage.loggedSinceCheckpoint = true
            } else if durable {
                try storage.checkpoint()
            }
            // Every tree opened here now reads as its info says; the others as before.
            var trees = knownTrees
            for (name, t) in openTrees { trees[name] = t.dropped ? nil : t.info }
            storage.cacheCatalog(m, trees: trees)
            storage.published(m, digest: digest, freeList: freeList)
            storage.ownLastCommit = txnid
        } catch {
            storage.poison("\(error)")
            throw error
        }
    }

    /// The free list's pages a commit writes, sealed (see `FreeList`).
    private struct SealedFreeList {
        var indexPgno: UInt64 = 0
        var indexPages = 0
        var indexChecksum: UInt64 = 0
        /// The index run and the chunk pages.
        var pages: [(pgno: UInt64, bytes: UnsafeRawBufferPointer)] = []
        /// Each page rebuilt in place of one the base had: mostly the same bytes.
        var sources: [(page: UInt64, source: UInt64)] = []
        /// Holds `pages`; the caller frees it.
        var buffer: UnsafeMutableRawPointer
        var bytes: Int { pages.reduce(0) { $0 + $1.bytes.count } }
    }

    /// Builds the free list's changed chunks in new pages and its index in a new run, and
    /// seals them for `writePages`. Nothing may allocate or free pages afterwards.
    private func sealFreeList() throws -> SealedFreeList {
        // The index's run first, sized for every chunk and every pending page the chunk pages
        // below can add: taking a run after them could change a chunk already encoded.
        var maxChunks = max(freeList.chunkCount(pageCount: pageLimit), freeList.chunkPages.count)
        var indexPages: Int
        repeat {
            let bytes = freeList.indexSize(chunks: maxChunks, extraPending: maxChunks) + PageLayout.headerSize + PageLayout.trailerSize
            indexPages = (bytes + pageSize - 1) / pageSize
            // The run, and a page per chunk, may come from the file's end and add chunks.
            let bound = freeList.chunkCount(pageCount: pageLimit + UInt64(indexPages + maxChunks))
            if bound <= maxChunks { break }
            maxChunks = bound
        } while true
        let indexPgno = allocateRun(indexPages)
        // A new page for each changed chunk, the old one freed; taking a page from the list
        // can change another chunk. Allocating only takes pages, so a chunk found empty stays
        // empty and needs no page.
        var placed: [(chunk: Int, pgno: UInt64)] = []
        placed.reserveCapacity(4)
        while case let next = freeList.changedChunks.filter({ k in !placed.contains { $0.chunk == k } }), !next.isEmpty {
            for k in next {
                let old = freeList.committedPage(k)
                if old != 0 { freeList.addPending(txnid: txnid, pages: [old]) }
                placed.append((k, freeList.chunkIsEmpty(k) ? 0 : allocateRun(1)))
            }
        }
        let chunkCount = freeList.chunkCount(pageCount: pageLimit)
        precondition(chunkCount <= maxChunks, "free list index sized for \(maxChunks) chunks, needs \(chunkCount)")

        let pagesWritten = placed.reduce(0) { $0 + ($1.pgno != 0 ? 1 : 0) }
        var sealed = SealedFreeList(indexPgno: indexPgno, indexPages: indexPages,
                                    buffer: .allocate(byteCount: (indexPages + pagesWritten) * pageSize, alignment: 16))
        sealed.pages.reserveCapacity(pagesWritten + 1)
        sealed.sources.reserveCapacity(pagesWritten + 1)
        do {
            var committed: [(chunk: Int, pgno: UInt64, checksum: UInt64)] = []
            committed.reserveCapacity(placed.count)
            var p = sealed.buffer + indexPages * pageSize
            for c in placed {
                guard c.pgno != 0 else { committed.append((c.chunk, 0, 0)); continue }
                PageHeader.initialize(p, pgno: c.pgno, txnid: txnid, type: .freeBitmap, pages: 1, pageSize: pageSize)
                freeList.encodeChunk(c.chunk, into: p + PageLayout.headerSize)
                committed.append((c.chunk, c.pgno, try seal(p, length: pageSize, pgno: c.pgno)))
                sealed.pages.append((c.pgno, UnsafeRawBufferPointer(start: p, count: pageSize)))
                let old = freeList.committedPage(c.chunk)
                if old != 0 { sealed.sources.append((c.pgno, old)) }
                p += pageSize
            }
            freeList.committedChunks(committed, count: chunkCount)
            let length = indexPages * pageSize
            sealed.buffer.initializeMemory(as: UInt8.self, repeating: 0, count: length)
            PageHeader.initialize(sealed.buffer, pgno: indexPgno, txnid: txnid, type: .freeIndex, pages: indexPages, pageSize: pageSize)
            freeList.encodeIndex(into: sealed.buffer + PageLayout.headerSize)
            sealed.indexChecksum = try seal(sealed.buffer, length: length, pgno: indexPgno)
            sealed.pages.append((indexPgno, UnsafeRawBufferPointer(start: sealed.buffer, count: length)))
            if indexPages == 1, meta.freeListPgno != 0, meta.freeListPages == 1 { sealed.sources.append((indexPgno, meta.freeListPgno)) }
        } catch {
            sealed.buffer.deallocate()
            throw error
        }
        return sealed
    }

    /// Appends to `extents` the log record's view of the pages written: whole, or as a delta
    /// from the page it was copied from when an earlier record of the log's generation wrote
    /// that page. Replay applies records in order, so it will have put that page back by then,
    /// and no later commit can change it first: it was reachable until this commit freed it.
    /// `rebuilt` names pages built anew in place of a freed one, mostly repeating it (the free
    /// list's). Returns the buffer the deltas live in (the caller frees it).
    private func logExtents(_ written: [(pgno: UInt64, bytes: UnsafeRawBufferPointer)], at position: (generation: UInt64, end: UInt64),
                            rebuilt: [(page: UInt64, source: UInt64)],
                            into extents: inout [CommitLog.Extent]) throws -> UnsafeMutableRawPointer? {
        let size = UInt64(pageSize)
        guard keepsCopySources, !copiedFrom.isEmpty || !rebuilt.isEmpty, let first = try storage.firstLoggedTxnid(at: position) else {
            for p in written { extents.append((p.pgno * size, p.bytes, false)) }
            return nil
        }
        var sources: [UInt64: UInt64] = [:]
        sources.reserveCapacity(copiedFrom.count + rebuilt.count)
        // A page number freed and copied into again in this transaction: the last copy counts.
        for c in copiedFrom { sources[c.page] = c.source }
        for c in rebuilt { sources[c.page] = c.source }
        let limit = pageSize / 2
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(1, sources.count) * limit, alignment: 8)
        var used = 0
        for p in written {
            if p.bytes.count == pageSize, let source = sources[p.pgno] {
                let old = try run(source, pages: 1)
                let writer = PageHeader(old).txnid
                if writer >= first, writer < txnid,
                   let n = PageDelta.encode(p.bytes.baseAddress!, from: old, length: pageSize, sourceOffset: source * size,
                                            into: buffer + used, limit: limit) {
                    extents.append((p.pgno * size, UnsafeRawBufferPointer(start: buffer + used, count: n), true))
                    used += n
                    continue
                }
            }
            extents.append((p.pgno * size, p.bytes, false))
        }
        return buffer
    }

    /// Seals the dirty pages of a subtree bottom-up and returns its root's checksum.
    private func seal(tree pgno: UInt64) throws -> UInt64 {
        if let e = early[pgno] { return e.checksum }
        guard let p = dirty[pgno] else {
            throw StorageError.corrupt(page: pgno, detail: "commit reached a page it does not own")
        }
        let view = try NodeView(p, pgno: pgno, pageSize: pageSize)
        if !view.isLeaf {
            let editor = NodeEditor(p: p, pageSize: pageSize)
            for i in 0..<view.count {
                // Children this transaction touched had their checksum zeroed; skip the rest
                // without a table lookup.
                guard view.childChecksum(i) == 0 else { continue }
                let child = try view.child(i)
                if isOwn(child) { editor.setChild(i, pgno: child, checksum: try seal(tree: child)) }
            }
        }
        return try seal(p, length: pageSize, pgno: pgno)
    }

    /// The page cache sizes a file's folios after the writes that fill them, and every later
    /// write into a folio, and its flush by `fdatasync`, walks the whole folio: after a bulk
    /// load written in 1 MiB calls, a small commit's 4 KiB writes cost ~2x the kernel time
    /// they cost in 64 KiB folios (Linux 6.18, ext4). Bulk loads lose nothing measurable.
    static let maxWriteBytes = 64 << 10

    /// Writes the sealed dirty pages and `extra` (the free list's) in page order, consecutive
    /// pages in one call of at most `maxWriteBytes`; returns them in that order.
    private func writePages(adding extra: [(pgno: UInt64, bytes: UnsafeRawBufferPointer)]) throws -> [(pgno: UInt64, bytes: UnsafeRawBufferPointer)] {
        var pages: [(pgno: UInt64, bytes: UnsafeRawBufferPointer)] = []
        pages.reserveCapacity(dirty.count + extra.count)
        dirty.forEach { pgno, p in pages.append((pgno, UnsafeRawBufferPointer(start: p, count: pageSize))) }
        pages.append(contentsOf: extra)
        pages.sort { $0.pgno < $1.pgno }
        var run: [UnsafeRawBufferPointer] = []
        var i = 0
        while i < pages.count {
            let start = pages[i].pgno
            var next = start
            run.removeAll(keepingCapacity: true)
            var bytes = 0
            while i < pages.count, pages[i].pgno == next, bytes == 0 || bytes + pages[i].bytes.count <= WriteTransaction.maxWriteBytes {
                bytes += pages[i].bytes.count
                run.append(pages[i].bytes)
                next += UInt64(pages[i].bytes.count / pageSize)
                i += 1
            }
            try storage.io.write(contiguous: run, at: start * UInt64(pageSize))
        }
        return pages
    }
}
