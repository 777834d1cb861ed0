/// One of the two meta slots (pages 0 and 1): the root of everything, written last by a
/// commit. Its layout is stated in `StorageProtocol.swift`.
struct Meta: Equatable {
    static let magic: [UInt8] = Array("TROVEDB\0".utf8)
    /// The version a commit writes. Version 2 pages may leave their free space out of their
    /// checksum (`PageLayout.flagGapUnchecked`); version 1 files, whose pages never do, read as
    /// they are. Version 3 metas carry the store id, and the commit log beside the file may hold
    /// page deltas (`PageDelta`), which a build reading only versions 1–2 would not replay:
    /// such builds must refuse the file. Version 4 commits keep the free pages as bitmap chunks
    /// behind an index (`FreeList`), which a build reading only versions 1–3 would take for a
    /// damaged free list. Older files become version 4 at their first commit (a meta-only
    /// commit, such as a new nonce epoch, may name the older list until the next one: the
    /// list's page type says which it is). Version 5 leaves have narrow entry lengths, and
    /// version 6 files may hold the narrow integers and object keys of the layers above: the
    /// pages read as in 5, and a version bump makes builds that would misread them refuse
    /// the file (see `StorageProtocol.swift`).
    static let formatVersion: UInt32 = 6
    static let readableVersions: ClosedRange<UInt32> = 1...6
    static let size = 512
    static let flagEncrypted: UInt32 = 1

    var pageSize: UInt32 = 4096
    var flags: UInt32 = 0
    var txnid: UInt64 = 0
    var pageCount: UInt64 = PageLayout.metaPages
    var lastSyncedTxnid: UInt64 = 0
    var catalog = TreeInfo()
    var freeListPgno: UInt64 = 0
    var freeListPages: UInt32 = 0
    var freeListChecksum: UInt64 = 0
    var nonceEpoch: UInt64 = 0
    var keySalt = [UInt8](repeating: 0, count: 32)
    var keyCheck = [UInt8](repeating: 0, count: 44)
    /// Names the file a commit log belongs to (see `CommitLog`): a compacted copy gets its own.
    var storeID: UInt64 = 0
    /// Which slot (0 or 1) this meta was read from or written to; not stored.
    var slot = 0

    static let flagDurableCommit: UInt32 = 2
    /// Every transaction up to this one is on stable storage, as far as this meta knows.
    var syncedThrough: UInt64 { flags & Meta.flagDurableCommit != 0 ? txnid : lastSyncedTxnid }

    var isEncrypted: Bool { flags & Meta.flagEncrypted != 0 }

    init() {}

    func encode(into p: UnsafeMutableRawPointer) {
        p.initializeMemory(as: UInt8.self, repeating: 0, count: Meta.size)
        for (i, b) in Meta.magic.enumerated() { p.storeBytes(of: b, toByteOffset: i, as: UInt8.self) }
        p.storeBytes(of: Meta.formatVersion, toByteOffset: 8, as: UInt32.self)
        p.storeBytes(of: pageSize, toByteOffset: 12, as: UInt32.self)
        p.storeBytes(of: flags, toByteOffset: 16, as: UInt32.self)
        p.storeBytes(of: txnid, toByteOffset: 24, as: UInt64.self)
        p.storeBytes(of: pageCount, toByteOffset: 32, as: UInt64.self)
        p.storeBytes(of: lastSyncedTxnid, toByteOffset: 40, as: UInt64.self)
        catalog.encode(into: p + 48)
        p.storeBytes(of: freeListPgno, toByteOffset: 96, as: UInt64.self)
        p.storeBytes(of: freeListPages, toByteOffset: 104, as: UInt32.self)
        p.storeBytes(of: freeListChecksum, toByteOffset: 112, as: UInt64.self)
        p.storeBytes(of: nonceEpoch, toByteOffset: 120, as: UInt64.self)
        for (i, b) in keySalt.enumerated() { p.storeBytes(of: b, toByteOffset: 128 + i, as: UInt8.self) }
        for (i, b) in keyCheck.enumerated() { p.storeBytes(of: b, toByteOffset: 160 + i, as: UInt8.self) }
        p.storeBytes(of: storeID, toByteOffset: 208, as: UInt64.self)
        p.storeBytes(of: Checksum.xxh64(p, 504), toByteOffset: 504, as: UInt64.self)
    }

    /// The checksum this meta has on disk: it covers every page of its commit (see `StorageProtocol.swift`),
    /// so it names the commit's whole content.
    var digest: UInt64 {
        withUnsafeTemporaryAllocation(byteCount: Meta.size, alignment: 16) { b in
            encode(into: b.baseAddress!)
            return b.baseAddress!.loadUnaligned(fromByteOffset: 504, as: UInt64.self)
        }
    }

    enum DecodeResult {
        case valid(Meta)
        case blank          // all zeros: never written
        case notTrove       // no magic
        case unsupported(String)
        case damaged        // magic but bad checksum (a torn meta write)
    }

    /// The txnid field of the meta at `p`, whatever its checksum says.
    static func unverifiedTxnid(_ p: UnsafeRawPointer) -> UInt64 {
        p.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
    }

    /// Whether the meta at `p`, whatever its checksum says, names a format version this build
    /// reads, `meta`'s page size and (when `meta` has one) its store id: what a torn write of a
    /// later meta of the same store keeps, as a meta is one sector. (A later meta may name a
    /// later format version than `meta`: a file takes the newest at its next commit.)
    static func unverifiedFieldsMatch(_ p: UnsafeRawPointer, _ meta: Meta) -> Bool {
        Meta.readableVersions.contains(p.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            && p.loadUnaligned(fromByteOffset: 12, as: UInt32.self) == meta.pageSize
            && (meta.storeID == 0 || p.loadUnaligned(fromByteOffset: 208, as: UInt64.self) == meta.storeID)
    }

    static func decode(_ p: UnsafeRawPointer) -> DecodeResult {
        var allZero = true
        for i in 0..<Meta.size where p.load(fromByteOffset: i, as: UInt8.self) != 0 { allZero = false; break }
        if allZero { return .blank }
        for (i, b) in Meta.magic.enumerated() where p.load(fromByteOffset: i, as: UInt8.self) != b { return .notTrove }
        guard Checksum.xxh64(p, 504) == p.loadUnaligned(fromByteOffset: 504, as: UInt64.self) else { return .damaged }
        let version = p.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
        guard Meta.readableVersions.contains(version) else {
            return .unsupported("format version \(version), this build reads versions \(Meta.readableVersions.lowerBound) to \(Meta.readableVersions.upperBound)")
        }
        var m = Meta()
        m.pageSize = p.loadUnaligned(fromByteOffset: 12, as: UInt32.self)
        guard m.pageSize >= 4096, m.pageSize <= 65536, m.pageSize & (m.pageSize - 1) == 0 else {
            return .unsupported("page size \(m.pageSize)")
        }
        m.flags = p.loadUnaligned(fromByteOffset: 16, as: UInt32.self)
        m.txnid = unverifiedTxnid(p)
        m.pageCount = p.loadUnaligned(fromByteOffset: 32, as: UInt64.self)
        m.lastSyncedTxnid = p.loadUnaligned(fromByteOffset: 40, as: UInt64.self)
        m.catalog = TreeInfo(decoding: p + 48)
        m.freeListPgno = p.loadUnaligned(fromByteOffset: 96, as: UInt64.self)
        m.freeListPages = p.loadUnaligned(fromByteOffset: 104, as: UInt32.self)
        m.freeListChecksum = p.loadUnaligned(fromByteOffset: 112, as: UInt64.self)
        m.nonceEpoch = p.loadUnaligned(fromByteOffset: 120, as: UInt64.self)
        m.keySalt = (0..<32).map { p.load(fromByteOffset: 128 + $0, as: UInt8.self) }
        m.keyCheck = (0..<44).map { p.load(fromByteOffset: 160 + $0, as: UInt8.self) }
        m.storeID = p.loadUnaligned(fromByteOffset: 208, as: UInt64.self)
        return .valid(m)
    }
}
