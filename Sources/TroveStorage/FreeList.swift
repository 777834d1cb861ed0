/// The pages a store can reuse, and the pages waiting until no reader can see them.
///
/// Ready pages are reusable now, the lowest first so that the file stays compact. `pending[t]`
/// holds the pages transaction `t` stopped using: snapshots older than `t` still see them, so
/// they become ready only once every reader (in any process), and the meta a crash would fall
/// back to, is at `t` or newer.
///
/// The ready pages are a bitmap over the file, kept on disk in chunks of one page each: chunk
/// `k` covers pages `k·B ..< (k+1)·B`, where B is the number of bits in a page's body (32,256
/// for 4 KiB pages: 126 MiB of file). A commit writes again, copy-on-write like every other
/// page, only the chunks whose bits it changed, and a small index run that names each chunk's
/// page and checksum and holds the pending records. So a small commit's free-list cost does not
/// grow with the number of free pages. Format 3 wrote the whole list at every commit (bbolt's
/// trade): 57 pages per commit at 29,000 free pages. That list is still read, and its store
/// changes to chunks at its first commit.
///
/// ```
/// index (type freeIndex, a run):  chunkCount u64, (pgno u64, checksum u64) * chunkCount
///                                 (pgno 0: the chunk holds no ready page and has no page),
///                                 recordCount u64, (txnid u64, n u64, pgno u64 * n) * recordCount
/// chunk (type freeBitmap, a page): the body is B bits as u64 words: bit i set ⇔ page k·B + i is ready
/// format 3 list (type freeList):  readyCount u64, pgno u64 * readyCount, then the records as above
/// ```
struct FreeList {
    /// Bit `p` set: page `p` is ready.
    private var words: [UInt64] = []
    /// Bit `w` set: `words[w]` is not zero. Freed pages are scattered over the file, so finding
    /// the lowest ready page scans this (one bit per 64 pages), not `words`.
    private var nonZeroWords: [UInt64] = []
    /// Ready pages in each chunk.
    private var chunkReady: [Int] = []
    /// No ready page lies below word `lowestWord`: allocation scans from there.
    private var lowestWord = 0
    private(set) var readyCount = 0
    private(set) var pending: [(txnid: UInt64, pages: [UInt64])] = []
    /// Bitmap words per chunk page.
    let wordsPerChunk: Int
    /// Each chunk's page and checksum as last committed (pgno 0: no page).
    private(set) var chunkPages: [(pgno: UInt64, checksum: UInt64)] = []
    /// Bit `k` set: chunk `k`'s bits differ from its committed page.
    private var changedBits: [UInt64] = []

    init(pageSize: Int) {
        wordsPerChunk = (pageSize - PageLayout.headerSize - PageLayout.trailerSize) / 8
    }

    var pendingCount: Int { pending.reduce(0) { $0 + $1.pages.count } }

    /// The chunks whose bits differ from their committed page, in order.
    var changedChunks: [Int] { FreeList.setBits(changedBits) }

    /// The first chunk at or after `k` whose bits differ from its committed page, if any:
    /// ``changedChunks`` without building an array, for the commit that writes them.
    func changedChunk(atOrAfter k: Int) -> Int? {
        var w = k >> 6
        guard w < changedBits.count else { return nil }
        var bits = changedBits[w] & (~0 << UInt64(k & 63))
        while bits == 0 {
            w += 1
            guard w < changedBits.count else { return nil }
            bits = changedBits[w]
        }
        return w * 64 + bits.trailingZeroBitCount
    }

    /// The numbers of the bits set in `words` (bit `i` of word `w` is `w·64 + i`), in order.
    private static func setBits(_ words: [UInt64], reservingCapacity count: Int = 0) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(count)
        for (w, word) in words.enumerated() {
            var bits = word
            while bits != 0 {
                out.append(w * 64 + bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
        return out
    }

    private mutating func markChanged(_ chunk: Int) {
        let i = chunk >> 6
        if i >= changedBits.count { changedBits.append(contentsOf: repeatElement(0, count: i + 1 - changedBits.count)) }
        changedBits[i] |= 1 << UInt64(chunk & 63)
    }
    /// Pages a chunk covers.
    var pagesPerChunk: UInt64 { UInt64(wordsPerChunk * 64) }

    /// The ready pages, lowest first.
    var readyPages: [UInt64] { FreeList.setBits(words, reservingCapacity: readyCount).map(UInt64.init) }

    /// Every page number in the list, for verification.
    var allPages: [UInt64] { readyPages + pending.flatMap(\.pages) }

    // MARK: Allocation

    /// Makes room for the words up to `w`, and their chunk's count.
    private mutating func grow(toWord w: Int) {
        guard w >= words.count else { return }
        words.append(contentsOf: repeatElement(0, count: w + 1 - words.count))
        let summary = (words.count + 63) / 64
        if summary > nonZeroWords.count { nonZeroWords.append(contentsOf: repeatElement(0, count: summary - nonZeroWords.count)) }
        let chunks = (words.count + wordsPerChunk - 1) / wordsPerChunk
        if chunks > chunkReady.count { chunkReady.append(contentsOf: repeatElement(0, count: chunks - chunkReady.count)) }
    }

    private mutating func markReady(_ p: UInt64) {
        let w = Int(p >> 6)
        grow(toWord: w)
        let bit: UInt64 = 1 << (p & 63)
        assert(words[w] & bit == 0, "page \(p) freed twice")
        words[w] |= bit
        nonZeroWords[w >> 6] |= 1 << UInt64(w & 63)
        readyCount += 1
        if w < lowestWord { lowestWord = w }
        let chunk = w / wordsPerChunk
        chunkReady[chunk] += 1
        markChanged(chunk)
    }

    /// Whether `reclaim(upTo: txnid)` would make any page reusable.
    func hasPending(upTo txnid: UInt64) -> Bool { pending.first.map { $0.txnid <= txnid } ?? false }

    /// Makes the pages freed by transactions `<= txnid` reusable.
    mutating func reclaim(upTo txnid: UInt64) {
        var reclaimed = 0
        while reclaimed < pending.count, pending[reclaimed].txnid <= txnid {
            for p in pending[reclaimed].pages { markReady(p) }
            reclaimed += 1
        }
        if reclaimed > 0 { pending.removeFirst(reclaimed) }
    }

    /// Takes `n` contiguous free pages, the lowest run there is, or nil if there is no such run.
    mutating func allocate(_ n: Int) -> UInt64? {
        guard n >= 1, readyCount >= n else { return nil }
        // readyCount > 0: some word at or above `lowestWord` is set.
        var s = lowestWord >> 6
        var summary = nonZeroWords[s] & (~0 << UInt64(lowestWord & 63))
        while summary == 0 {
            s += 1
            guard s < nonZeroWords.count else { return nil }
            summary = nonZeroWords[s]
        }
        var w = s * 64 + summary.trailingZeroBitCount
        lowestWord = w
        if n == 1 {
            let p = UInt64(w * 64 + words[w].trailingZeroBitCount)
            take(p, count: 1)
            return p
        }
        // A run may span words: `length` set bits end just before bit `b` of word `w`.
        var start = 0, length = 0
        while w < words.count {
            let word = words[w]
            if word == .max {
                if length == 0 { start = w * 64 }
                length += 64
                if length >= n { break }
            } else {
                var b = 0
                while b < 64 {
                    let rest = word >> UInt64(b)
                    if rest & 1 == 0 {
                        length = 0
                        if rest == 0 { break }
                        b += rest.trailingZeroBitCount
                        continue
                    }
                    let ones = (~rest).trailingZeroBitCount
                    if length == 0 { start = w * 64 + b }
                    length += ones
                    if length >= n { break }
                    b += ones
                }
                if length >= n { break }
            }
            w += 1
        }
        guard length >= n else { return nil }
        take(UInt64(start), count: n)
        return UInt64(start)
    }

    private mutating func take(_ first: UInt64, count: Int) {
        for p in first..<(first + UInt64(count)) {
            let w = Int(p >> 6)
            words[w] &= ~(1 << (p & 63))
            if words[w] == 0 { nonZeroWords[w >> 6] &= ~(1 << UInt64(w & 63)) }
            let chunk = w / wordsPerChunk
            chunkReady[chunk] -= 1
            markChanged(chunk)
        }
        readyCount -= count
    }

    /// The lowest ready page, or nil if there is none.
    var lowestReady: UInt64? {
        guard readyCount > 0 else { return nil }
        var s = lowestWord >> 6
        var summary = nonZeroWords[s] & (~0 << UInt64(lowestWord & 63))
        while summary == 0 {
            s += 1
            guard s < nonZeroWords.count else { return nil }
            summary = nonZeroWords[s]
        }
        let w = s * 64 + summary.trailingZeroBitCount
        return UInt64(w * 64 + words[w].trailingZeroBitCount)
    }

    /// Takes the ready pages that end a file of `pageCount` pages (it can then end before
    /// them, though not before `floor`); returns the page count left.
    mutating func trimTail(pageCount: UInt64, notBelow floor: UInt64 = PageLayout.metaPages) -> UInt64 {
        var n = pageCount
        while n > max(floor, PageLayout.metaPages), isReady(n - 1) { n -= 1 }
        if n < pageCount { take(n, count: Int(pageCount - n)) }
        return n
    }

    /// Has the next commit write again every chunk whose page lies at or past `page`.
    mutating func rewriteChunks(atOrPast page: UInt64) {
        for (k, c) in chunkPages.enumerated() where c.pgno >= page { markChanged(k) }
    }

    /// Returns pages nobody has seen (allocated and released within one transaction).
    mutating func release(_ pgno: UInt64, count: Int) {
        for p in pgno..<(pgno + UInt64(count)) { markReady(p) }
    }

    /// Records the pages transaction `txnid` stopped using.
    mutating func addPending(txnid: UInt64, pages: [UInt64]) {
        guard !pages.isEmpty else { return }
        if let last = pending.last, last.txnid == txnid {
            pending[pending.count - 1].pages.append(contentsOf: pages)
        } else {
            pending.append((txnid, pages))
        }
    }

    /// Records one page transaction `txnid` stopped using (a commit's old chunk page), in
    /// the record ``addPending(txnid:pages:)`` began: without an array of one.
    mutating func addPending(txnid: UInt64, page: UInt64) {
        if let last = pending.last, last.txnid == txnid {
            pending[pending.count - 1].pages.append(page)
        } else {
            pending.append((txnid, [page]))
        }
    }

    // MARK: Chunks

    /// The chunks a file of `pageCount` pages has.
    func chunkCount(pageCount: UInt64) -> Int { Int((pageCount + pagesPerChunk - 1) / pagesPerChunk) }

    /// The page chunk `k` was last committed to (0: none).
    func committedPage(_ k: Int) -> UInt64 { k < chunkPages.count ? chunkPages[k].pgno : 0 }

    /// Whether chunk `k` holds no ready page.
    func chunkIsEmpty(_ k: Int) -> Bool { k >= chunkReady.count || chunkReady[k] == 0 }

    /// Writes chunk `k`'s bitmap into a page body of `wordsPerChunk` words (little-endian).
    func encodeChunk(_ k: Int, into body: UnsafeMutableRawPointer) {
        let first = min(k * wordsPerChunk, words.count), end = min(first + wordsPerChunk, words.count)
        words.withUnsafeBufferPointer { w in
            #if _endian(little)
            if end > first { body.copyMemory(from: w.baseAddress! + first, byteCount: (end - first) * 8) }
            #else
            for i in first..<end { body.storeBytes(of: w[i].littleEndian, toByteOffset: (i - first) * 8, as: UInt64.self) }
            #endif
        }
        let written = (end - first) * 8
        (body + written).initializeMemory(as: UInt8.self, repeating: 0, count: wordsPerChunk * 8 - written)
    }

    /// Reads chunk `k`'s bitmap from a page body (the page `pgno`); no ready page may lie
    /// among the metas or past `pageCount`.
    mutating func loadChunk(_ k: Int, from body: UnsafeRawPointer, pageCount: UInt64, pgno: UInt64) throws {
        let first = k * wordsPerChunk
        grow(toWord: first + wordsPerChunk - 1)
        for i in 0..<wordsPerChunk {
            let word = UInt64(littleEndian: body.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))
            guard word != 0 else { continue }
            let base = UInt64((first + i) * 64)
            let lowest = base + UInt64(word.trailingZeroBitCount), highest = base + 63 - UInt64(word.leadingZeroBitCount)
            guard lowest >= PageLayout.metaPages, highest < pageCount else {
                let p = lowest < PageLayout.metaPages ? lowest : highest
                throw StorageError.corrupt(page: pgno, detail: "free-page bitmap names page \(p), outside the file's \(pageCount) pages")
            }
            precondition(words[first + i] == 0, "chunk \(k) loaded twice")
            words[first + i] = word
            nonZeroWords[(first + i) >> 6] |= 1 << UInt64((first + i) & 63)
            readyCount += word.nonzeroBitCount
            chunkReady[k] += word.nonzeroBitCount
        }
    }

    /// Records where the chunks a commit wrote went: chunk table of `count` entries, `written`
    /// replacing theirs; nothing is changed afterwards.
    ///
    /// `written` can name chunks past `count` and past the table: a commit that grew the file
    /// into a new chunk and then cut its tail off again (leaf packing, vacuum) changed that
    /// chunk's bits and left it empty.
    mutating func committedChunks(_ written: [(chunk: Int, pgno: UInt64, checksum: UInt64)], count: Int) {
        let needed = max(count, written.reduce(-1) { max($0, $1.chunk) } + 1)
        if chunkPages.count < needed { chunkPages.append(contentsOf: repeatElement((pgno: UInt64(0), checksum: UInt64(0)), count: needed - chunkPages.count)) }
        for c in written { chunkPages[c.chunk] = (c.pgno, c.checksum) }
        // A file cut short has fewer chunks: those past its end hold no page.
        while chunkPages.count > count, chunkPages[chunkPages.count - 1].pgno == 0 { chunkPages.removeLast() }
        changedBits.removeAll(keepingCapacity: true)
    }

    // MARK: The index

    /// The bytes of an index naming `chunks` chunks with the pending records, and room for
    /// `extraPending` more pending pages (in a record of their own, if need be).
    func indexSize(chunks: Int, extraPending: Int) -> Int {
        16 + 16 * chunks + pending.reduce(0) { $0 + 16 + 8 * $1.pages.count } + 16 + 8 * extraPending
    }

    /// Writes the index: the committed chunk table (see `committedChunks`), then the records.
    /// Returns the bytes written.
    @discardableResult
    func encodeIndex(into p: UnsafeMutableRawPointer) -> Int {
        var o = 0
        func put(_ v: UInt64) { p.storeBytes(of: v, toByteOffset: o, as: UInt64.self); o += 8 }
        put(UInt64(chunkPages.count))
        for c in chunkPages { put(c.pgno); put(c.checksum) }
        put(UInt64(pending.count))
        for r in pending {
            put(r.txnid); put(UInt64(r.pages.count))
            for pg in r.pages { put(pg) }
        }
        return o
    }

    /// A decoded index: the chunk table and the pending records.
    struct Index {
        var chunks: [(pgno: UInt64, checksum: UInt64)] = []
        var pending: [(txnid: UInt64, pages: [UInt64])] = []
    }

    /// Decodes an index run's body (`length` bytes, of the run at `pgno`). It may name no more
    /// chunks than a file of `pageCount` pages has, and chunk pages and pending pages must lie
    /// in `2..<pageCount`.
    func decodeIndex(_ p: UnsafeRawPointer, length: Int, pageCount: UInt64, pgno: UInt64) throws -> Index {
        var reader = Reader(p: p, length: length, pageCount: pageCount, pgno: pgno)
        var index = Index()
        let n = try reader.count(of: 16, "chunk")
        guard n <= chunkCount(pageCount: pageCount) else {
            throw StorageError.corrupt(page: pgno, detail: "free list names \(n) chunks, a file of \(pageCount) pages has \(chunkCount(pageCount: pageCount))")
        }
        index.chunks.reserveCapacity(n)
        for _ in 0..<n {
            let page = try reader.get()
            let checksum = try reader.get()
            if page != 0 { _ = try reader.inFile(page) }
            index.chunks.append((page, checksum))
        }
        index.pending = try reader.records()
        return index
    }

    private func isReady(_ page: UInt64) -> Bool {
        let w = Int(page >> 6)
        return w < words.count && words[w] & (1 << (page & 63)) != 0
    }

    /// Takes `records` as the pending pages, each of which must be neither ready nor listed
    /// twice (the list at `pgno` names them): reclaiming a page twice would hand it out twice.
    mutating func loadPending(_ records: [(txnid: UInt64, pages: [UInt64])], pgno: UInt64) throws {
        var seen = Set<UInt64>()
        for r in records {
            for page in r.pages where isReady(page) || !seen.insert(page).inserted {
                throw StorageError.corrupt(page: pgno, detail: "free list names page \(page) twice")
            }
        }
        pending = records
    }

    /// Decodes a format 3 list (every ready page listed) into `self`, whose chunks all count as
    /// changed: the next commit writes them.
    mutating func loadList(_ p: UnsafeRawPointer, length: Int, pageCount: UInt64, pgno: UInt64) throws {
        var reader = Reader(p: p, length: length, pageCount: pageCount, pgno: pgno)
        let n = try reader.count(of: 8, "free list")
        for _ in 0..<n {
            let page = try reader.inFile(try reader.get())
            guard !isReady(page) else { throw StorageError.corrupt(page: pgno, detail: "free list names page \(page) twice") }
            markReady(page)
        }
        try loadPending(try reader.records(), pgno: pgno)
    }

    /// Reads the free list `meta` names; `run(pgno, pages, checksum)` gives a run's bytes,
    /// decrypted, once they match the checksum.
    init(pageSize: Int, meta: Meta, run: (UInt64, Int, UInt64) throws -> UnsafeRawPointer) throws {
        self.init(pageSize: pageSize)
        guard meta.freeListPgno != 0 else { return }
        let p = try run(meta.freeListPgno, Int(meta.freeListPages), meta.freeListChecksum)
        let length = Int(meta.freeListPages) * pageSize - PageLayout.headerSize - PageLayout.trailerSize
        switch PageHeader(p).type {
        case PageType.freeIndex.rawValue:
            let index = try decodeIndex(p + PageLayout.headerSize, length: length, pageCount: meta.pageCount, pgno: meta.freeListPgno)
            for (k, c) in index.chunks.enumerated() where c.pgno != 0 {
                let chunk = try run(c.pgno, 1, c.checksum)
                guard PageHeader(chunk).type == PageType.freeBitmap.rawValue else {
                    throw StorageError.corrupt(page: c.pgno, detail: "expected a free-page bitmap")
                }
                try loadChunk(k, from: chunk + PageLayout.headerSize, pageCount: meta.pageCount, pgno: c.pgno)
            }
            chunkPages = index.chunks
            try loadPending(index.pending, pgno: meta.freeListPgno)
        case PageType.freeList.rawValue:
            try loadList(p + PageLayout.headerSize, length: length, pageCount: meta.pageCount, pgno: meta.freeListPgno)
        default:
            throw StorageError.corrupt(page: meta.freeListPgno, detail: "expected the free list")
        }
    }

    /// Reads the u64 fields of an index or list body, each checked against what is left.
    private struct Reader {
        let p: UnsafeRawPointer, length: Int, pageCount: UInt64, pgno: UInt64
        var o = 0

        mutating func get() throws -> UInt64 {
            guard o + 8 <= length else { throw StorageError.corrupt(page: pgno, detail: "free list is truncated") }
            defer { o += 8 }
            return p.loadUnaligned(fromByteOffset: o, as: UInt64.self)
        }

        /// A count of items of `size` bytes each, which must fit in what is left.
        mutating func count(of size: Int, _ what: String) throws -> Int {
            let n = try get()
            guard n <= UInt64((length - o) / size) else { throw StorageError.corrupt(page: pgno, detail: "\(what) count \(n) is impossible") }
            return Int(n)
        }

        func inFile(_ page: UInt64) throws -> UInt64 {
            guard page >= PageLayout.metaPages, page < pageCount else {
                throw StorageError.corrupt(page: pgno, detail: "free list names page \(page), outside the file's \(pageCount) pages")
            }
            return page
        }

        mutating func records() throws -> [(txnid: UInt64, pages: [UInt64])] {
            let n = try count(of: 16, "free list record")
            var records: [(txnid: UInt64, pages: [UInt64])] = []
            for _ in 0..<n {
                let t = try get()
                let c = try count(of: 8, "free list record size")
                var pages: [UInt64] = []
                pages.reserveCapacity(c)
                for _ in 0..<c { pages.append(try inFile(try get())) }
                records.append((t, pages))
            }
            return records
        }
    }
}
