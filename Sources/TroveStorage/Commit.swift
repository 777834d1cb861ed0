extension WriteTransaction {
    // The commit protocol these steps follow, what each guarantees and why a failed commit
    // leaves the `Storage` unusable, is stated in `StorageProtocol.swift`.

    /// Makes the transaction's changes visible to new readers and, unless the store is
    /// `.noSync`, durable. An error before anything reaches the file changes nothing; a failed
    /// write or sync makes the `Storage` throw from then on, until the store is reopened.
    public func commit() throws {
        if try commitChanges() { storage.compactAutomatically() }
    }

    /// The commit itself; returns whether the automatic vacuum should run next, once the
    /// writer is free.
    private func commitChanges() throws -> Bool {
        try checkLive()
        defer { abort() }
        guard hasChanges else { return false }
        committing = true
        try packWrittenLeaves()
        try sealTrees()
        let list = try sealFreeList()
        defer { list.buffer.deallocate() }

        let durable = storage.options.durability == .durable
        let synced = max(storage.lastSynced, meta.syncedThrough)
        do {
            var record = try placeRecord(list: list, durable: durable, synced: synced)
            defer { record?.deltas?.deallocate() }
            let written = try writePages(adding: list.pages)
            if record != nil { try logWrites(written, rebuilt: list.sources, into: &record!) }
            try extendFile(record: &record)
            let m = nextMeta(list: list, durable: durable, synced: synced)
            let metaBuffer = UnsafeMutableRawPointer.allocate(byteCount: Meta.size, alignment: 16)
            defer { metaBuffer.deallocate() }
            let digest = try storage.writeMeta(m, buffer: metaBuffer)
            try makeDurable(m, metaBytes: UnsafeRawBufferPointer(start: metaBuffer, count: Meta.size),
                            record: record, durable: durable)
            publish(m, digest: digest)
        } catch {
            storage.poison("\(error)")
            throw error
        }
        return !isCompaction && storage.wantsCompaction(txnid: txnid, pageCount: pageLimit,
                                                        freePages: freeList.readyCount + freeList.pendingCount)
    }

    /// Whether there is anything to commit: a commit without changes writes nothing.
    private var hasChanges: Bool {
        !dirty.isEmpty || !early.isEmpty || !freed.isEmpty || openTrees.all.contains(where: \.modified)
            || pageLimit < meta.pageCount
    }

    /// Seals each changed tree bottom-up and records its root in the catalog, then seals the
    /// catalog: every parent holds its children's checksums. The trees go in the order the
    /// transaction opened them: the catalog holds the same entries in any order.
    private func sealTrees() throws {
        for t in openTrees.all where t.modified && !t.dropped {
            if t.info.root != 0 && isOwn(t.info.root) { t.info.rootChecksum = try seal(tree: t.info.root) }
            // On the stack: an array would cost an allocation per tree at every commit.
            var key = t.name
            try withUnsafeTemporaryAllocation(byteCount: TreeInfo.encodedSize, alignment: 8) { value in
                t.info.encode(into: value.baseAddress!)
                try key.withUTF8 { k in try put(catalog, raw: UnsafeRawBufferPointer(k), UnsafeRawBufferPointer(value)) }
            }
        }
        if catalog.info.root != 0 && isOwn(catalog.info.root) {
            catalog.info.rootChecksum = try seal(tree: catalog.info.root)
        }
    }

    /// The commit log record a commit appends: where it goes, the writes it repeats, and the
    /// buffer its page deltas live in.
    private struct Record {
        let log: CommitLogState
        var position: CommitLogState.Position
        var extents: [CommitLog.Extent] = []
        var deltas: UnsafeMutableRawPointer?
    }

    /// Where this commit's record goes, the log restarted first if it must be; nil when the
    /// commit syncs the data file instead, or is not durable. The log takes only a commit on
    /// top of a durable base (a record holds this commit's pages alone), none of whose pages
    /// went out early, and no larger than `CommitLog.largestRecord`. A vacuum's round goes
    /// there only while the log holds it without growing (`StorageProtocol.swift`,
    /// "Compaction").
    private func placeRecord(list: SealedFreeList, durable: Bool, synced: UInt64) throws -> Record? {
        // A no-sync commit writes in place what no record repeats: the log must first be
        // empty, so that a replay never undoes it.
        if !durable, storage.logState?.mayHoldRecords == true { try storage.checkpoint() }
        let bytes = (dirty.count + 1) * pageSize + list.bytes + Meta.size
        guard durable, early.isEmpty, meta.txnid <= synced, let log = storage.logState,
              bytes <= log.log.largestRecord else { return nil }
        let size = CommitLog.recordSize(extents: dirty.count + list.pages.count + 2, dataBytes: bytes)
        let position = log.position
        // A full log (one that cannot grow to take the record), one whose position is
        // unknown, or one another data file left at this path restarts first; a vacuum's
        // round is written in place instead, since restarting costs the same sync of the data
        // file, and the log does not grow for it.
        if try position.end == 0 || !log.log.makeRoom(upTo: position.end + size, growing: !isCompaction)
            || !log.follows(generation: position.generation, storeID: meta.storeID, txnid: meta.txnid) {
            guard !isCompaction else { return nil }
            // Nothing of this commit is written yet: the data file holds the base state.
            try storage.checkpoint(restartingLog: true)
            let restarted = log.position
            guard try log.log.makeRoom(upTo: restarted.end + size) else { return nil }
            return Record(log: log, position: restarted)
        }
        return Record(log: log, position: position)
    }

    /// A page of zeros, as long as the largest page: what extends the file.
    nonisolated(unsafe) private static let zeroPage: UnsafeMutableRawPointer = {
        let p = UnsafeMutableRawPointer.allocate(byteCount: 1 << 16, alignment: 16)
        p.initializeMemory(as: UInt8.self, repeating: 0, count: 1 << 16)
        return p
    }()

    /// Pages taken from the end and released again were never written: extends the file so
    /// that it holds every page the meta counts, and has the record repeat the write, so that
    /// replay grows the file as far. Only a vacuum shrinks the file, after a commit that
    /// counts fewer pages: a size once seen needs no `fstat` again while it is no more than
    /// the base commit counts.
    private func extendFile(record: inout Record?) throws {
        let needed = pageLimit * UInt64(pageSize)
        if storage.writer.fileSize > meta.pageCount * UInt64(pageSize) { storage.writer.fileSize = 0 }
        guard storage.writer.fileSize < needed else { return }
        if try storage.io.size() < needed {
            let page = UnsafeRawBufferPointer(start: WriteTransaction.zeroPage, count: pageSize)
            try storage.io.write(page, at: needed - UInt64(pageSize))
            record?.extents.append((needed - UInt64(pageSize), page, false))
        }
        storage.writer.fileSize = needed
    }

    /// The meta that names everything this commit wrote. It goes to the slot that does not
    /// hold the last durable state.
    private func nextMeta(list: SealedFreeList, durable: Bool, synced: UInt64) -> Meta {
        var m = meta
        m.txnid = txnid
        m.pageCount = pageLimit
        m.catalog = catalog.info
        m.freeListPgno = list.indexPgno
        m.freeListPages = UInt32(list.indexPages)
        m.freeListChecksum = list.indexChecksum
        m.lastSyncedTxnid = synced
        if durable { m.flags |= Meta.flagDurableCommit } else { m.flags &= ~Meta.flagDurableCommit }
        m.slot = meta.txnid <= synced ? meta.slot ^ 1 : meta.slot
        return m
    }

    /// Makes the commit durable: its record, ending with the meta, appended to the log, or
    /// the data file synced (and the log emptied). A no-sync commit skips this.
    private func makeDurable(_ m: Meta, metaBytes: UnsafeRawBufferPointer, record: Record?, durable: Bool) throws {
        if var record {
            record.extents.append((UInt64(m.slot * pageSize), metaBytes, false))
            try record.log.append(txnid: txnid, extents: record.extents, fileSize: m.pageCount * UInt64(pageSize),
                                  at: record.position)
        } else if durable {
            try storage.checkpoint()
        }
    }

    /// Makes commit `m` the one new readers see, and hands this transaction's catalog and free
    /// list on to the next.
    private func publish(_ m: Meta, digest: UInt64) {
        // Every tree opened here now reads as its info says; the others as before. With the
        // storage's reference dropped and this transaction's moved out, the entries are
        // updated in place rather than copied.
        storage.dropCachedCatalog()
        var trees = knownTrees
        knownTrees = [:]
        for t in openTrees.all { trees[t.name] = t.dropped ? nil : t.info }
        storage.cacheCatalog(m, trees: trees)
        storage.published(m, digest: digest, freeList: freeList)
        storage.writer.committed(txnid)
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

    /// Frees the pages this transaction stopped using and the list's own old index, builds
    /// the list's changed chunks in new pages and its index in a new run, and seals them for
    /// `writePages`. Written last, because everything before allocates and frees pages;
    /// nothing may allocate or free pages afterwards.
    private func sealFreeList() throws -> SealedFreeList {
        if meta.freeListPgno != 0 {
            for i in 0..<UInt64(meta.freeListPages) { freed.append(meta.freeListPgno + i) }
        }
        freeList.addPending(txnid: txnid, pages: freed)
        freed.removeAll()
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
        // can change another chunk, before or after this one, so the search starts again
        // from the first. Allocating only takes pages, so a chunk found empty stays empty
        // and needs no page.
        var placed: [(chunk: Int, pgno: UInt64)] = []
        placed.reserveCapacity(4)
        var from = 0
        while let k = freeList.changedChunk(atOrAfter: from) {
            guard !placed.contains(where: { $0.chunk == k }) else {
                from = k + 1
                continue
            }
            let old = freeList.committedPage(k)
            if old != 0 { freeList.addPending(txnid: txnid, page: old) }
            placed.append((k, freeList.chunkIsEmpty(k) ? 0 : allocateRun(1)))
            from = 0
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
            // Zeros where the header and the index leave off: the run is sized for the most
            // the index could hold, mostly more than it does.
            sealed.buffer.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.headerSize)
            PageHeader.initialize(sealed.buffer, pgno: indexPgno, txnid: txnid, type: .freeIndex, pages: indexPages, pageSize: pageSize)
            let end = PageLayout.headerSize + freeList.encodeIndex(into: sealed.buffer + PageLayout.headerSize)
            (sealed.buffer + end).initializeMemory(as: UInt8.self, repeating: 0, count: length - end)
            sealed.indexChecksum = try seal(sealed.buffer, length: length, pgno: indexPgno)
            sealed.pages.append((indexPgno, UnsafeRawBufferPointer(start: sealed.buffer, count: length)))
            if indexPages == 1, meta.freeListPgno != 0, meta.freeListPages == 1 { sealed.sources.append((indexPgno, meta.freeListPgno)) }
        } catch {
            sealed.buffer.deallocate()
            throw error
        }
        return sealed
    }

    /// Adds to `record` the log's view of the pages written: whole, or as a delta from the page
    /// it was copied from when an earlier record of the log's generation wrote that page.
    /// Replay applies records in order, so it will have put that page back by then, and no
    /// later commit can change it first: it was reachable until this commit freed it.
    /// `rebuilt` names pages built anew in place of a freed one, mostly repeating it (the free
    /// list's).
    private func logWrites(_ written: [(pgno: UInt64, bytes: UnsafeRawBufferPointer)],
                           rebuilt: [(page: UInt64, source: UInt64)], into record: inout Record) throws {
        record.extents.reserveCapacity(written.count + 3)
        let size = UInt64(pageSize)
        guard keepsCopySources, !copiedFrom.isEmpty || !rebuilt.isEmpty, let first = try record.log.firstLoggedTxnid(at: record.position) else {
            for p in written { record.extents.append((p.pgno * size, p.bytes, false)) }
            return
        }
        // Sorted by page, then by when the copy was made: a page number freed and copied into
        // again in this transaction takes its last copy. `written` is in page order too, so
        // one walk matches them (a dictionary's hashing cost more than the rest of the walk).
        var sources: [(page: UInt64, order: Int, source: UInt64)] = []
        sources.reserveCapacity(copiedFrom.count + rebuilt.count)
        for (i, c) in copiedFrom.enumerated() { sources.append((c.page, i, c.source)) }
        for (i, c) in rebuilt.enumerated() { sources.append((c.page, copiedFrom.count + i, c.source)) }
        sources.sort { $0.page != $1.page ? $0.page < $1.page : $0.order < $1.order }
        let limit = pageSize / 2
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(1, sources.count) * limit, alignment: 8)
        record.deltas = buffer
        var used = 0
        var next = 0
        for p in written {
            while next < sources.count, sources[next].page < p.pgno { next += 1 }
            var found: UInt64?
            while next < sources.count, sources[next].page == p.pgno {
                found = sources[next].source
                next += 1
            }
            if p.bytes.count == pageSize, let source = found {
                let old = try run(source, pages: 1)
                let writer = PageHeader(old).txnid
                if writer >= first, writer < txnid,
                   let n = PageDelta.encode(p.bytes.baseAddress!, from: old, length: pageSize, sourceOffset: source * size,
                                            into: buffer + used, limit: limit) {
                    record.extents.append((p.pgno * size, UnsafeRawBufferPointer(start: buffer + used, count: n), true))
                    used += n
                    continue
                }
            }
            record.extents.append((p.pgno * size, p.bytes, false))
        }
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
