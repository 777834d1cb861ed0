/// XXH64 (Yann Collet's xxHash, 64-bit), the page checksum.
///
/// Chosen over CRC32C because it runs at memory speed in portable Swift with no CPU-specific
/// instructions, and 64 bits make an accidental match on a torn page negligible.
@usableFromInline
enum Checksum {
    @usableFromInline static let p1: UInt64 = 0x9E37_79B1_85EB_CA87
    @usableFromInline static let p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    @usableFromInline static let p3: UInt64 = 0x1656_67B1_9E37_79F9
    @usableFromInline static let p4: UInt64 = 0x85EB_CA77_C2B2_AE63
    @usableFromInline static let p5: UInt64 = 0x27D4_EB2F_1656_67C5

    @inline(__always) @usableFromInline
    static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        var acc = acc &+ input &* p2
        acc = (acc << 31) | (acc >> 33)
        return acc &* p1
    }

    @inline(__always) @usableFromInline
    static func merge(_ acc: UInt64, _ val: UInt64) -> UInt64 {
        let acc = acc ^ round(0, val)
        return acc &* p1 &+ p4
    }

    /// The XXH64 of `count` bytes at `base`.
    @inlinable
    static func xxh64(_ base: UnsafeRawPointer, _ count: Int, seed: UInt64 = 0) -> UInt64 {
        var p = 0
        var h: UInt64
        if count >= 32 {
            var v1 = seed &+ p1 &+ p2, v2 = seed &+ p2, v3 = seed, v4 = seed &- p1
            let limit = count - 32
            while p <= limit {
                v1 = round(v1, base.loadUnaligned(fromByteOffset: p, as: UInt64.self).littleEndian)
                v2 = round(v2, base.loadUnaligned(fromByteOffset: p + 8, as: UInt64.self).littleEndian)
                v3 = round(v3, base.loadUnaligned(fromByteOffset: p + 16, as: UInt64.self).littleEndian)
                v4 = round(v4, base.loadUnaligned(fromByteOffset: p + 24, as: UInt64.self).littleEndian)
                p += 32
            }
            h = ((v1 << 1) | (v1 >> 63)) &+ ((v2 << 7) | (v2 >> 57)) &+ ((v3 << 12) | (v3 >> 52)) &+ ((v4 << 18) | (v4 >> 46))
            h = merge(h, v1); h = merge(h, v2); h = merge(h, v3); h = merge(h, v4)
        } else {
            h = seed &+ p5
        }
        h = h &+ UInt64(count)
        while p + 8 <= count {
            let k = round(0, base.loadUnaligned(fromByteOffset: p, as: UInt64.self).littleEndian)
            h ^= k
            h = ((h << 27) | (h >> 37)) &* p1 &+ p4
            p += 8
        }
        if p + 4 <= count {
            h ^= UInt64(base.loadUnaligned(fromByteOffset: p, as: UInt32.self).littleEndian) &* p1
            h = ((h << 23) | (h >> 41)) &* p2 &+ p3
            p += 4
        }
        while p < count {
            h ^= UInt64(base.load(fromByteOffset: p, as: UInt8.self)) &* p5
            h = ((h << 11) | (h >> 53)) &* p1
            p += 1
        }
        h ^= h >> 33; h = h &* p2
        h ^= h >> 29; h = h &* p3
        h ^= h >> 32
        return h
    }
}

extension Checksum {
    /// The checksum of a sealed run of `length` bytes, trailer included: the XXH64 of everything
    /// before the trailer. A branch or leaf page flagged `PageLayout.flagGapUnchecked` leaves
    /// out its free space, which nothing reads: a third of a page on average, and about a
    /// quarter of a small commit's instructions went to checksums before.
    ///
    /// The flag, the entry count and `upper` are in the checked header, so a page damaged there
    /// fails like any other. A header whose bounds make no sense is checked whole.
    static func run(_ p: UnsafeRawPointer, length: Int) -> UInt64 {
        let body = length - PageLayout.trailerSize
        let h = PageHeader(p)
        if h.flags & PageLayout.flagGapUnchecked != 0 {
            let slotsEnd = PageLayout.headerSize + 2 * h.count, upper = h.upper
            if h.isTree, slotsEnd <= upper, upper <= body {
                return xxh64(p + upper, body - upper, seed: xxh64(p, slotsEnd))
            }
        }
        return xxh64(p, body)
    }

    /// How a sealed run stands against `expected`, the checksum its referrer recorded. A plain
    /// run's trailer must hold the XXH64 of its bytes (else it is damaged) and equal `expected`
    /// (else it is a torn or stale write). An encrypted run's trailer holds its tag, which must
    /// equal `expected`; opening the run authenticates its bytes.
    static func check(_ raw: UnsafeRawPointer, length: Int, expected: UInt64, encrypted: Bool) -> RunCheck {
        if encrypted { return PageCipher.sealedChecksum(raw, length: length) == expected ? .matches : .stale }
        let stored = raw.loadUnaligned(fromByteOffset: length - PageLayout.trailerSize, as: UInt64.self)
        guard run(raw, length: length) == stored else { return .damaged }
        return stored == expected ? .matches : .stale
    }
}

/// What ``Checksum/check(_:length:expected:encrypted:)`` found.
enum RunCheck {
    case matches
    /// The bytes do not hash to the checksum in their own trailer.
    case damaged
    /// Whole, but not the run the referrer recorded: a torn or older write.
    case stale
}
