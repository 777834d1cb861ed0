/// The layout every page (or run of pages) but the metas shares: a 32-byte header and a
/// 32-byte trailer, stated in `StorageProtocol.swift`. Branch and leaf pages are slotted;
/// removing an entry compacts the heap at once, so free space is always
/// `upper - (header + 2 * count)`.
enum PageLayout {
    static let headerSize = 32
    static let trailerSize = 32
    static let metaPages: UInt64 = 2
    /// A branch or leaf page whose checksum leaves out its free space: the gap between the slot
    /// array and `upper`, which nothing reads. Set on every tree page a commit seals (format 2).
    static let flagGapUnchecked: UInt8 = 1
    /// A leaf whose entries start with one- or two-byte lengths (`NodeView`) instead of a
    /// `u16` key length and a `u32` value length: every leaf written from format 5 on.
    static let flagNarrowEntries: UInt8 = 2
}

enum PageType: UInt8 {
    case branch = 1
    case leaf = 2
    case overflow = 3
    /// The whole free list in one run: format 3 and older (see `FreeList`).
    case freeList = 4
    /// The free list's index run: its chunk table and pending records (see `FreeList`).
    case freeIndex = 5
    /// One chunk of the free-page bitmap (see `FreeList`).
    case freeBitmap = 6
}

/// A page's header fields, read and written in place.
struct PageHeader {
    let raw: UnsafeRawPointer

    @inline(__always) init(_ raw: UnsafeRawPointer) { self.raw = raw }

    @inline(__always) var pgno: UInt64 { raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self) }
    @inline(__always) var txnid: UInt64 { raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self) }
    @inline(__always) var type: UInt8 { raw.load(fromByteOffset: 16, as: UInt8.self) }
    @inline(__always) var flags: UInt8 { raw.load(fromByteOffset: 17, as: UInt8.self) }
    @inline(__always) var count: Int { Int(raw.loadUnaligned(fromByteOffset: 18, as: UInt16.self)) }
    @inline(__always) var upper: Int { Int(raw.loadUnaligned(fromByteOffset: 20, as: UInt32.self)) }
    @inline(__always) var pages: Int { Int(raw.loadUnaligned(fromByteOffset: 24, as: UInt32.self)) }
    /// A branch or leaf page: slotted, with `count` and `upper`.
    @inline(__always) var isTree: Bool { type == PageType.leaf.rawValue || type == PageType.branch.rawValue }

    static func initialize(_ p: UnsafeMutableRawPointer, pgno: UInt64, txnid: UInt64, type: PageType, pages: Int, pageSize: Int) {
        p.storeBytes(of: pgno, toByteOffset: 0, as: UInt64.self)
        p.storeBytes(of: txnid, toByteOffset: 8, as: UInt64.self)
        p.storeBytes(of: type.rawValue, toByteOffset: 16, as: UInt8.self)
        p.storeBytes(of: type == .leaf ? PageLayout.flagNarrowEntries : 0, toByteOffset: 17, as: UInt8.self)
        p.storeBytes(of: 0, toByteOffset: 18, as: UInt16.self)
        p.storeBytes(of: UInt32(pageSize - PageLayout.trailerSize), toByteOffset: 20, as: UInt32.self)
        p.storeBytes(of: UInt32(pages), toByteOffset: 24, as: UInt32.self)
        p.storeBytes(of: 0, toByteOffset: 28, as: UInt32.self)
    }

    static func addFlags(_ p: UnsafeMutableRawPointer, _ flags: UInt8) {
        p.storeBytes(of: PageHeader(p).flags | flags, toByteOffset: 17, as: UInt8.self)
    }

    static func setIdentity(_ p: UnsafeMutableRawPointer, pgno: UInt64, txnid: UInt64) {
        p.storeBytes(of: pgno, toByteOffset: 0, as: UInt64.self)
        p.storeBytes(of: txnid, toByteOffset: 8, as: UInt64.self)
    }
}
