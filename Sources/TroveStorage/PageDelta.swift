#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A page written as the byte runs in which it differs from another page of the data file: how
/// a commit log record carries a page copied from one an earlier record of its generation
/// wrote (see `CommitLog`).
///
/// A small commit rewrites a path of pages per tree it changes, and most of each page is the
/// copy-on-write source's bytes: a branch differs in one child's number and checksum, a leaf in
/// one entry and the slots after it. Logging only those runs cuts a single-object insert's
/// record from ~18 whole pages to a few pages, which is what the log's write and `fdatasync`
/// cost is made of.
///
/// ```
/// 0  source offset u64 (in the data file)   8 page length u32   12 run count u32
/// 16 runs: (offset u32, length u32) each, ascending and disjoint; then their bytes, in order
/// ```
enum PageDelta {
    static let headerSize = 16
    /// More runs than this and the page is logged whole (a rewritten page, not an edit).
    static let maxRuns = 48

    /// Encodes `page` as its differences from `source` (both `length` bytes, a multiple of 8)
    /// into `out`; returns the bytes written, or nil if they would exceed `limit`.
    static func encode(_ page: UnsafeRawPointer, from source: UnsafeRawPointer, length: Int,
                       sourceOffset: UInt64, into out: UnsafeMutableRawPointer, limit: Int) -> Int? {
        withUnsafeTemporaryAllocation(of: (start: Int, end: Int).self, capacity: maxRuns) { runs -> Int? in
            var count = 0
            var bytes = 0
            var i = 0
            var blockEnd = 0
            while i < length {
                if i == blockEnd {
                    // Most of a page is unchanged: skip equal blocks at `memcmp`'s vector speed.
                    blockEnd = min(i + 256, length)
                    if memcmp(page + i, source + i, blockEnd - i) == 0 {
                        i = blockEnd
                        continue
                    }
                }
                // Within a block that differs, most 32-byte chunks are still equal: skip them
                // four words at a time (the runs found are the same).
                if i & 31 == 0, i + 32 <= blockEnd, equal32(page + i, source + i) {
                    i += 32
                    continue
                }
                if page.loadUnaligned(fromByteOffset: i, as: UInt64.self) == source.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
                    i += 8
                    continue
                }
                // The words that differ from here on, in one tight loop (shifted slots, a
                // rewritten page): the same runs as taking them one by one.
                var end = i + 8
                while end < blockEnd,
                      page.loadUnaligned(fromByteOffset: end, as: UInt64.self) != source.loadUnaligned(fromByteOffset: end, as: UInt64.self) {
                    end += 8
                }
                // A gap shorter than a run's table entry and then some is cheaper kept.
                if count > 0, i - runs[count - 1].end <= 16 {
                    bytes += end - runs[count - 1].end
                    runs[count - 1].end = end
                } else {
                    guard count < maxRuns else { return nil }
                    runs[count] = (i, end)
                    count += 1
                    bytes += end - i
                }
                // The size only grows: a page past the limit is logged whole, found out early.
                guard headerSize + 8 * count + bytes <= limit else { return nil }
                i = end
            }
            let total = headerSize + 8 * count + bytes
            out.storeBytes(of: sourceOffset, toByteOffset: 0, as: UInt64.self)
            out.storeBytes(of: UInt32(length), toByteOffset: 8, as: UInt32.self)
            out.storeBytes(of: UInt32(count), toByteOffset: 12, as: UInt32.self)
            var at = headerSize + 8 * count
            for r in 0..<count {
                let (start, end) = runs[r]
                out.storeBytes(of: UInt32(start), toByteOffset: headerSize + 8 * r, as: UInt32.self)
                out.storeBytes(of: UInt32(end - start), toByteOffset: headerSize + 8 * r + 4, as: UInt32.self)
                (out + at).copyMemory(from: page + start, byteCount: end - start)
                at += end - start
            }
            return total
        }
    }

    /// Whether the 32 bytes at `a` and `b` are equal.
    @inline(__always)
    private static func equal32(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer) -> Bool {
        let x0 = a.loadUnaligned(fromByteOffset: 0, as: UInt64.self) ^ b.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        let x1 = a.loadUnaligned(fromByteOffset: 8, as: UInt64.self) ^ b.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        let x2 = a.loadUnaligned(fromByteOffset: 16, as: UInt64.self) ^ b.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
        let x3 = a.loadUnaligned(fromByteOffset: 24, as: UInt64.self) ^ b.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
        return (x0 | x1 | x2 | x3) == 0
    }

    /// Where the source page is, and how long the page is; nil if `delta` is too short to say.
    static func source(of delta: UnsafeRawBufferPointer) -> (offset: UInt64, length: Int)? {
        guard delta.count >= headerSize else { return nil }
        return (delta.loadUnaligned(fromByteOffset: 0, as: UInt64.self), Int(delta.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
    }

    /// Applies `delta` to `page`, which holds the source's bytes. Returns false, changing
    /// nothing, if the delta is malformed (a record torn in its data).
    static func apply(_ delta: UnsafeRawBufferPointer, to page: UnsafeMutableRawBufferPointer) -> Bool {
        guard let (_, length) = source(of: delta), length == page.count else { return false }
        let count = Int(delta.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        guard count <= maxRuns, headerSize + 8 * count <= delta.count else { return false }
        var at = headerSize + 8 * count
        var previousEnd = 0
        for r in 0..<count {
            let start = Int(delta.loadUnaligned(fromByteOffset: headerSize + 8 * r, as: UInt32.self))
            let runLength = Int(delta.loadUnaligned(fromByteOffset: headerSize + 8 * r + 4, as: UInt32.self))
            guard start >= previousEnd, runLength <= length - start, runLength <= delta.count - at else { return false }
            previousEnd = start + runLength
            at += runLength
        }
        guard at == delta.count else { return false }
        at = headerSize + 8 * count
        for r in 0..<count {
            let start = Int(delta.loadUnaligned(fromByteOffset: headerSize + 8 * r, as: UInt32.self))
            let runLength = Int(delta.loadUnaligned(fromByteOffset: headerSize + 8 * r + 4, as: UInt32.self))
            (page.baseAddress! + start).copyMemory(from: delta.baseAddress! + at, byteCount: runLength)
            at += runLength
        }
        return true
    }
}
