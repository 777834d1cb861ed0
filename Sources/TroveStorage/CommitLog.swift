/// The commit log beside a store (`PATH-log`): where a small durable commit becomes durable,
/// appended as one record of the writes it made in place. Its format, when a commit goes to
/// it, the invariant that makes replay safe, and why deltas may name earlier records' pages
/// are stated in `StorageProtocol.swift`; `CommitLogState` holds a writer's position in it.
final class CommitLog {
    static let magic: [UInt8] = Array("TROVELOG".utf8)
    static let recordMagic: UInt32 = 0x4452_4352 // "RCRD"
    /// Version 2 named the store; version 3 records may hold deltas, so version 2 readers
    /// (which stop at a record whose extent lengths do not add up) must not read them.
    static let version: UInt32 = 3
    static let headerSize: UInt64 = 4096
    static let recordHeaderSize = 48
    /// The largest the log grows: a checkpoint comes once it is full. SQLite's default
    /// checkpoint comes at 1,000 pages (4 MiB) of log too.
    let capacity: UInt64
    /// The size a new log starts at, and the last process to close the store cuts it back to:
    /// a store that commits little keeps a small log.
    let initialSize: UInt64
    /// A size the file is known to reach; appends stay below it.
    private var knownSize: UInt64 = 0
    /// The largest commit (bytes written in place) the log takes; a larger one is written in
    /// place and syncs the data file, where its pages mostly form long runs anyway.
    let largestRecord: Int

    let io: StorageIO

    /// Whether appends go out as direct writes (see `appendDirect`); false once the file
    /// system refused one.
    private var direct = true
    /// Where a direct append assembles its blocks: aligned as direct writes need.
    private var staging: UnsafeMutableRawPointer?
    private var stagingCapacity = 0
    /// The last block the previous direct append wrote, and the generation and offset it ended
    /// at. The next append of that generation starts there, inside this block, and writes it
    /// again with these first bytes: any other offset or generation means another writer
    /// appended since, and the bytes are read from the log instead.
    private var tail: (generation: UInt64, end: UInt64)?
    private let tailBlock = UnsafeMutableRawPointer.allocate(byteCount: directWriteAlignment, alignment: directWriteAlignment)

    init(io: StorageIO, capacity: UInt64 = 4 << 20, largestRecord: Int = 1 << 20, initialSize: UInt64 = 64 << 10) {
        self.io = io
        // Whole blocks, so that a direct append's last block never reaches past the log's end.
        let block = UInt64(directWriteAlignment)
        self.capacity = max((capacity + block - 1) / block * block, CommitLog.headerSize * 2)
        self.initialSize = min(max((initialSize + block - 1) / block * block, CommitLog.headerSize * 2), self.capacity)
        // A record always fits an empty log.
        self.largestRecord = min(largestRecord, Int(self.capacity - CommitLog.headerSize) / 2)
    }

    deinit {
        staging?.deallocate()
        tailBlock.deallocate()
    }

    /// One extent of a record: `bytes` written at `offset` of the data file, or, for a delta,
    /// the page at `offset` described by a `PageDelta`.
    typealias Extent = (offset: UInt64, bytes: UnsafeRawBufferPointer, isDelta: Bool)
    /// Set in an extent's length when its data is a `PageDelta`.
    static let deltaFlag: UInt64 = 1 << 63


    /// What the header says: the generation, and which data file and commit it follows
    /// (nil for a version 1 header, which did not say).
    struct Header {
        var generation: UInt64
        var owner: (storeID: UInt64, base: UInt64)?
    }

    /// The header, or nil if the log holds no valid one.
    func readHeader() throws -> Header? {
        guard try io.size() >= CommitLog.headerSize else { return nil }
        return try withUnsafeTemporaryAllocation(byteCount: 48, alignment: 8) { b in
            try io.read(into: b, at: 0)
            let p = UnsafeRawPointer(b.baseAddress!)
            for (i, m) in CommitLog.magic.enumerated() where p.load(fromByteOffset: i, as: UInt8.self) != m { return nil }
            let generation = p.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
            switch p.loadUnaligned(fromByteOffset: 8, as: UInt32.self) {
            case 1:
                guard Checksum.xxh64(p, 24) == p.loadUnaligned(fromByteOffset: 24, as: UInt64.self) else { return nil }
                return Header(generation: generation, owner: nil)
            case 2, CommitLog.version:
                guard Checksum.xxh64(p, 40) == p.loadUnaligned(fromByteOffset: 40, as: UInt64.self) else { return nil }
                return Header(generation: generation, owner: (p.loadUnaligned(fromByteOffset: 24, as: UInt64.self),
                                                              p.loadUnaligned(fromByteOffset: 32, as: UInt64.self)))
            default:
                return nil
            }
        }
    }

    /// Why records up to `lastTxnid` under `header` cannot be replayed into a data file whose
    /// valid metas are `metas` (newest first); nil if they can.
    ///
    /// The data file's newest valid meta is at least the base's predecessor (the base's slot
    /// may hold a torn later meta) and at most one past the last record (a commit written in
    /// place that died before it restarted the log).
    static func mismatch(_ header: Header, lastTxnid: UInt64, metas: [Meta]) -> String? {
        guard let owner = header.owner, let newest = metas.first else { return nil }
        if newest.storeID != owner.storeID {
            return "they belong to another store (a compacted copy, or another file, was put at this path)"
        }
        if newest.txnid + 1 < owner.base {
            return "they follow commit \(owner.base), but the store's newest commit is \(newest.txnid) (an older copy of the store was put at this path)"
        }
        if newest.txnid > lastTxnid + 1 {
            // Replay stops at the first record that fails its checksum: commits after it are lost too.
            return "they end at commit \(lastTxnid), but the store's newest commit is \(newest.txnid) (the log was cut short or damaged after its record of commit \(lastTxnid), or a newer copy of the store was put at this path)"
        }
        return nil
    }

    /// Starts a new generation: an empty log, durable before this returns; returns the
    /// generation. It is random, so that no record a user's bytes imitate, nor one left over
    /// from an earlier generation, can pass for a record of this one. The file is at least
    /// `initialSize` afterwards (see `makeRoom`). `storeID` and `base` name the data file and
    /// its synced commit that the records will follow.
    func restart(storeID: UInt64, base: UInt64) throws -> UInt64 {
        var rng = SystemRandomNumberGenerator()
        let generation = rng.next() | 1
        knownSize = try io.size()
        if knownSize < initialSize { try fillWithZeros(upTo: initialSize) }
        try withUnsafeTemporaryAllocation(byteCount: 48, alignment: 8) { b in
            let p = b.baseAddress!
            p.initializeMemory(as: UInt8.self, repeating: 0, count: 48)
            for (i, m) in CommitLog.magic.enumerated() { p.storeBytes(of: m, toByteOffset: i, as: UInt8.self) }
            p.storeBytes(of: CommitLog.version, toByteOffset: 8, as: UInt32.self)
            p.storeBytes(of: generation, toByteOffset: 16, as: UInt64.self)
            p.storeBytes(of: storeID, toByteOffset: 24, as: UInt64.self)
            p.storeBytes(of: base, toByteOffset: 32, as: UInt64.self)
            p.storeBytes(of: Checksum.xxh64(p, 40), toByteOffset: 40, as: UInt64.self)
            try io.write(UnsafeRawBufferPointer(b), at: 0)
        }
        try io.sync()
        return generation
    }

    /// Makes the file reach `end`, doubling it up to `capacity`, before a record goes there:
    /// appends then rarely grow the file, which makes their sync write the inode too. The
    /// zeros need no sync of their own: the append that follows is durable with the file's
    /// size (`fdatasync`, or `O_DSYNC`). False, with nothing changed, if `end` is past
    /// `capacity`, or, unless `growing`, past the file's end: the log is full.
    func makeRoom(upTo end: UInt64, growing: Bool = true) throws -> Bool {
        guard end > knownSize else { return true }
        guard end <= capacity else { return false }
        // Another process may have grown it.
        knownSize = try io.size()
        guard end > knownSize else { return true }
        guard growing else { return false }
        var size = max(knownSize, initialSize)
        while size < end { size = min(size * 2, capacity) }
        try fillWithZeros(upTo: size)
        return true
    }

    /// Cuts the file back to `initialSize`. Only when no process has the store open but this
    /// one, under the writer lock, with no records in the log.
    func shrink() throws {
        guard try io.size() > initialSize else { return }
        try io.truncate(to: initialSize)
        try io.sync()
        knownSize = initialSize
        tail = nil
    }

    /// Whether the file is larger than a new log.
    var hasGrown: Bool { ((try? io.size()) ?? 0) > initialSize }

    /// Writes zeros from the end of the file, or the header's end, up to `size`.
    private func fillWithZeros(upTo size: UInt64) throws {
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var o = max(knownSize, CommitLog.headerSize)
        while o < size {
            let n = Int(min(UInt64(zeros.count), size - o))
            try zeros.withUnsafeBytes { try io.write(UnsafeRawBufferPointer(rebasing: $0[0..<n]), at: o) }
            o += UInt64(n)
        }
        knownSize = max(knownSize, size)
    }

    /// The txnid of the first record of `generation`, or nil if there is none.
    func firstRecordTxnid(generation: UInt64) throws -> UInt64? {
        guard try io.size() >= CommitLog.headerSize + UInt64(CommitLog.recordHeaderSize) else { return nil }
        return try withUnsafeTemporaryAllocation(byteCount: CommitLog.recordHeaderSize, alignment: 8) { b in
            try io.read(into: b, at: CommitLog.headerSize)
            guard b.loadUnaligned(fromByteOffset: 0, as: UInt32.self) == CommitLog.recordMagic,
                  b.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == generation else { return nil }
            return b.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
        }
    }

    /// The bytes a record of `extents` takes in the log.
    static func recordSize(extents: Int, dataBytes: Int) -> UInt64 {
        UInt64(recordHeaderSize + 16 * extents + dataBytes)
    }

    /// Appends one record at `offset` in one write, direct or followed by a sync of the log:
    /// when this returns, the commit `txnid` is durable. Returns the offset after the record.
    func append(generation: UInt64, txnid: UInt64, extents: [Extent], fileSize: UInt64, at offset: UInt64) throws -> UInt64 {
        let headLength = CommitLog.recordHeaderSize + 16 * extents.count
        let head = UnsafeMutableRawPointer.allocate(byteCount: headLength, alignment: 8)
        defer { head.deallocate() }
        var data = 0
        for (i, e) in extents.enumerated() {
            head.storeBytes(of: e.offset, toByteOffset: CommitLog.recordHeaderSize + 16 * i, as: UInt64.self)
            head.storeBytes(of: UInt64(e.bytes.count) | (e.isDelta ? CommitLog.deltaFlag : 0),
                            toByteOffset: CommitLog.recordHeaderSize + 16 * i + 8, as: UInt64.self)
            data += e.bytes.count
        }
        head.storeBytes(of: CommitLog.recordMagic, toByteOffset: 0, as: UInt32.self)
        head.storeBytes(of: UInt32(extents.count), toByteOffset: 4, as: UInt32.self)
        head.storeBytes(of: generation, toByteOffset: 8, as: UInt64.self)
        head.storeBytes(of: txnid, toByteOffset: 16, as: UInt64.self)
        head.storeBytes(of: UInt64(data), toByteOffset: 24, as: UInt64.self)
        head.storeBytes(of: fileSize, toByteOffset: 32, as: UInt64.self)
        head.storeBytes(of: CommitLog.checksum(head, headLength, generation: generation), toByteOffset: 40, as: UInt64.self)
        var buffers: [UnsafeRawBufferPointer] = [UnsafeRawBufferPointer(start: head, count: headLength)]
        buffers.reserveCapacity(extents.count + 1)
        for e in extents { buffers.append(e.bytes) }
        let end = offset + UInt64(headLength + data)
        if direct, try appendDirect(buffers, generation: generation, at: offset, end: end) { return end }
        try io.write(contiguous: buffers, at: offset)
        try io.sync()
        return end
    }

    /// Writes the record in `buffers` as whole blocks, straight to the disk (`O_DIRECT |
    /// O_DSYNC`): one write that is durable when it returns, instead of a write into the page
    /// cache and an `fdatasync` that finds it there and sends it: a third less CPU for a
    /// small commit's record, and less time waiting (`Benchmarks/RESULTS.md`, "Small durable
    /// commits: the commit log"). Returns false, having written nothing, where the file cannot.
    ///
    /// The first block also holds the end of the record before, which is written again as it
    /// is; a torn write leaves each of its bytes old or new, and both are the same there. The
    /// rest of the last block is written as zeros, past the end of the log.
    private func appendDirect(_ buffers: [UnsafeRawBufferPointer], generation: UInt64, at offset: UInt64, end: UInt64) throws -> Bool {
        let block = UInt64(directWriteAlignment)
        let start = offset / block * block
        let length = Int((end + block - 1) / block * block - start)
        if stagingCapacity < length {
            staging?.deallocate()
            stagingCapacity = max(length, 64 << 10)
            staging = UnsafeMutableRawPointer.allocate(byteCount: stagingCapacity, alignment: directWriteAlignment)
        }
        let p = staging!
        let lead = Int(offset - start)
        if lead > 0 {
            if let t = tail, t.generation == generation, t.end == offset {
                p.copyMemory(from: tailBlock, byteCount: lead)
            } else {
                try io.read(into: UnsafeMutableRawBufferPointer(start: p, count: lead), at: start)
            }
        }
        var o = lead
        for b in buffers where b.count > 0 {
            (p + o).copyMemory(from: b.baseAddress!, byteCount: b.count)
            o += b.count
        }
        (p + o).initializeMemory(as: UInt8.self, repeating: 0, count: length - o)
        tail = nil
        guard try io.writeDirect(UnsafeRawBufferPointer(start: p, count: length), at: start) else {
            direct = false
            return false
        }
        tailBlock.copyMemory(from: p + (length - directWriteAlignment), byteCount: directWriteAlignment)
        tail = (generation, end)
        return true
    }

    /// The checksum of a record's header (bytes 0..<40) and extent table.
    private static func checksum(_ head: UnsafeRawPointer, _ length: Int, generation: UInt64) -> UInt64 {
        Checksum.xxh64(head, 40, seed: generation) ^ Checksum.xxh64(head + recordHeaderSize, length - recordHeaderSize, seed: ~generation)
    }

    /// Writes every record of the current generation into `target`, oldest first, and returns
    /// how many there were and the last one's txnid (with no target, only reads them). Does
    /// not sync `target`.
    func replay(into target: StorageIO?) throws -> (records: Int, lastTxnid: UInt64) {
        guard let generation = try readHeader()?.generation else { return (0, 0) }
        let size = try io.size()
        var offset = CommitLog.headerSize
        var count = 0
        var lastTxnid: UInt64 = 0
        var targetSize = try target?.size() ?? 0
        var neededSize: UInt64 = 0
        var head = [UInt8](repeating: 0, count: CommitLog.recordHeaderSize)
        while offset + UInt64(CommitLog.recordHeaderSize) <= size {
            try head.withUnsafeMutableBytes { try io.read(into: $0, at: offset) }
            let (magic, extents, gen, dataBytes) = head.withUnsafeBytes { p in
                (p.loadUnaligned(fromByteOffset: 0, as: UInt32.self), Int(p.loadUnaligned(fromByteOffset: 4, as: UInt32.self)),
                 p.loadUnaligned(fromByteOffset: 8, as: UInt64.self), p.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
            }
            guard magic == CommitLog.recordMagic, gen == generation, extents > 0, extents <= 1 << 20,
                  dataBytes <= size else { break }
            let headLength = CommitLog.recordHeaderSize + 16 * extents
            guard offset + UInt64(headLength) + dataBytes <= size else { break }
            var full = [UInt8](repeating: 0, count: headLength)
            try full.withUnsafeMutableBytes { try io.read(into: $0, at: offset) }
            let valid = full.withUnsafeBytes { p in
                CommitLog.checksum(p.baseAddress!, headLength, generation: generation) == p.loadUnaligned(fromByteOffset: 40, as: UInt64.self)
            }
            let total = full.withUnsafeBytes { p in
                (0..<extents).reduce(UInt64(0)) { $0 &+ p.loadUnaligned(fromByteOffset: CommitLog.recordHeaderSize + 16 * $1 + 8, as: UInt64.self) & ~CommitLog.deltaFlag }
            }
            guard valid, total == dataBytes else { break }
            lastTxnid = full.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 16, as: UInt64.self) }
            guard let target else { count += 1; offset += UInt64(headLength) + dataBytes; continue }
            neededSize = max(neededSize, full.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 32, as: UInt64.self) })
            var at = offset + UInt64(headLength)
            var data = [UInt8]()
            var page = [UInt8]()
            for i in 0..<extents {
                let (target0, flaggedLength) = full.withUnsafeBytes { p in
                    (p.loadUnaligned(fromByteOffset: CommitLog.recordHeaderSize + 16 * i, as: UInt64.self),
                     p.loadUnaligned(fromByteOffset: CommitLog.recordHeaderSize + 16 * i + 8, as: UInt64.self))
                }
                let length = Int(flaggedLength & ~CommitLog.deltaFlag)
                if data.count < length { data = [UInt8](repeating: 0, count: length) }
                try data.withUnsafeMutableBytes { b in
                    let slice = UnsafeMutableRawBufferPointer(rebasing: b[0..<length])
                    try io.read(into: slice, at: at)
                    guard flaggedLength & CommitLog.deltaFlag != 0 else {
                        try target.write(UnsafeRawBufferPointer(slice), at: target0)
                        targetSize = max(targetSize, target0 + UInt64(length))
                        return
                    }
                    // The source holds what an earlier record of this generation wrote (see
                    // `StorageProtocol.swift`), which replay has just put back. A malformed delta
                    // belongs to a record torn in its data: the last, which open then rejects.
                    let delta = UnsafeRawBufferPointer(slice)
                    guard let source = PageDelta.source(of: delta), source.length <= 1 << 16,
                          source.offset <= UInt64.max - UInt64(source.length),
                          source.offset + UInt64(source.length) <= targetSize else { return }
                    if page.count != source.length { page = [UInt8](repeating: 0, count: source.length) }
                    try page.withUnsafeMutableBytes { pageBytes in
                        try target.read(into: pageBytes, at: source.offset)
                        guard PageDelta.apply(delta, to: pageBytes) else { return }
                        try target.write(UnsafeRawBufferPointer(pageBytes), at: target0)
                        targetSize = max(targetSize, target0 + UInt64(source.length))
                    }
                }
                at += UInt64(length)
            }
            offset = at
            count += 1
        }
        // A commit may count pages past every byte its record wrote (taken from the end and
        // freed again): the file must reach its page count.
        if let target, neededSize > 0, try target.size() < neededSize {
            let zero: [UInt8] = [0]
            try zero.withUnsafeBytes { try target.write($0, at: neededSize - 1) }
        }
        return (count, lastTxnid)
    }
}
