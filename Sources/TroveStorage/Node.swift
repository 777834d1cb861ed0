#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a leaf entry's value lives.
enum LeafValue {
    case inline(UnsafeRawBufferPointer)
    /// A run of overflow pages holding `length` bytes, whose trailer checksum is `checksum`.
    case overflow(pgno: UInt64, checksum: UInt64, length: UInt64)
}

/// Compares two byte strings the way every tree orders keys: bytewise, shorter first on a tie.
/// Negative, zero or positive as `a` sorts before, with or after `b`.
///
/// Eight bytes at a time as big-endian words: keys are short, and a call to `memcmp` per
/// comparison cost more than the comparison itself. Inlinable for the layers above, whose
/// range scans test every entry against their bounds.
@inlinable @inline(__always)
public func compareKeys(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let n = min(a.count, b.count)
    guard n > 0 else { return a.count - b.count }
    let pa = a.baseAddress!, pb = b.baseAddress!
    var i = 0
    while i &+ 8 <= n {
        let x = UInt64(bigEndian: pa.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        let y = UInt64(bigEndian: pb.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        if x != y { return x < y ? -1 : 1 }
        i &+= 8
    }
    while i < n {
        let x = pa.load(fromByteOffset: i, as: UInt8.self), y = pb.load(fromByteOffset: i, as: UInt8.self)
        if x != y { return x < y ? -1 : 1 }
        i &+= 1
    }
    return a.count - b.count
}

/// A read-only view of a branch or leaf page.
///
/// Every offset it follows is checked against the page bounds, so a damaged page makes it throw
/// ``StorageError/corrupt(page:detail:)`` rather than read outside the page.
///
/// Entry formats (after the slot array):
/// ```
/// leaf:   klen n15 | vtag n15 | key | value      (flagNarrowEntries: every leaf from format 5)
///         vtag is the value's length plus one, or 0 for an overflow value:
///         key | length u64 | pgno u64 | checksum u64
/// leaf:   klen u16 | vlen u32 (0xFFFF_FFFF = overflow) | key | value   (leaves of older files)
/// branch: child u64 | checksum u64 | klen u16 | key     (entry 0's key is empty: the leftmost child)
/// ```
/// An `n15` is a number below 2^15 in one byte when below 128, else in two, big-endian, the
/// first with its top bit set. Keys are at most `Storage.maxKeySize` and inline values a
/// quarter page, so both fit. A leaf of an older file is rewritten narrow when a write
/// transaction copies it (`WriteTransaction.touch`); readers take either.
struct NodeView {
    let p: UnsafeRawPointer
    let pgno: UInt64
    let count: Int
    let isLeaf: Bool
    /// A leaf with narrow entry lengths (`PageLayout.flagNarrowEntries`).
    let narrow: Bool
    let usableEnd: Int

    static let overflowMarker: UInt32 = 0xFFFF_FFFF
    static let leafFixed = 6
    static let branchFixed = 18
    static let overflowRefSize = 24
    /// More than a run of `UInt32.max` pages of the largest page size holds.
    static let maxOverflowLength: UInt64 = 1 << 48

    @inline(__always)
    init(_ p: UnsafeRawPointer, pgno: UInt64, pageSize: Int) throws {
        self.p = p
        self.pgno = pgno
        let h = PageHeader(p)
        let type = h.type
        usableEnd = pageSize - PageLayout.trailerSize
        guard type == PageType.leaf.rawValue || type == PageType.branch.rawValue else {
            throw StorageError.corrupt(page: pgno, detail: "expected a tree page, found page type \(type)")
        }
        isLeaf = type == PageType.leaf.rawValue
        narrow = isLeaf && h.flags & PageLayout.flagNarrowEntries != 0
        count = h.count
        let upper = h.upper
        guard h.pgno == pgno else {
            throw StorageError.corrupt(page: pgno, detail: "page header names page \(h.pgno)")
        }
        guard PageLayout.headerSize + 2 * count <= upper, upper <= usableEnd else {
            throw StorageError.corrupt(page: pgno, detail: "entry count \(count) does not fit the page")
        }
        if !isLeaf && count == 0 {
            throw StorageError.corrupt(page: pgno, detail: "empty branch page")
        }
    }

    @inline(__always)
    func slot(_ i: Int) -> Int {
        Int(p.loadUnaligned(fromByteOffset: PageLayout.headerSize + 2 * i, as: UInt16.self))
    }

    @inline(__always)
    func corrupt(_ detail: String) -> StorageError { .corrupt(page: pgno, detail: detail) }

    /// The key length, the value length (`overflowMarker` for an overflow value) and the size
    /// of the lengths of the leaf entry at offset `o` (entry `i`). Reads at most four bytes
    /// from `o`, which the trailer keeps inside the page when the first two are in the body.
    @inline(__always)
    func leafHeader(at o: Int, entry i: Int) throws -> (klen: Int, vlen: UInt32, fixed: Int) {
        if narrow {
            guard o + 2 <= usableEnd else { throw corrupt("entry \(i) outside the page") }
            var klen = Int(p.load(fromByteOffset: o, as: UInt8.self)), fixed = 1
            if klen >= 0x80 {
                klen = (klen & 0x7F) << 8 | Int(p.load(fromByteOffset: o + 1, as: UInt8.self))
                fixed = 2
            }
            var tag = Int(p.load(fromByteOffset: o + fixed, as: UInt8.self))
            if tag >= 0x80 {
                tag = (tag & 0x7F) << 8 | Int(p.load(fromByteOffset: o + fixed + 1, as: UInt8.self))
                fixed += 2
            } else {
                fixed += 1
            }
            return (klen, tag == 0 ? NodeView.overflowMarker : UInt32(tag - 1), fixed)
        }
        guard o + NodeView.leafFixed <= usableEnd else { throw corrupt("entry \(i) outside the page") }
        return (Int(p.loadUnaligned(fromByteOffset: o, as: UInt16.self)),
                p.loadUnaligned(fromByteOffset: o + 2, as: UInt32.self), NodeView.leafFixed)
    }

    /// The key of entry `i` (empty for a branch's entry 0).
    @inline(__always)
    func key(_ i: Int) throws -> UnsafeRawBufferPointer {
        let o = slot(i)
        if isLeaf {
            let (klen, _, fixed) = try leafHeader(at: o, entry: i)
            guard o + fixed + klen <= usableEnd else { throw corrupt("key \(i) outside the page") }
            return UnsafeRawBufferPointer(start: p + o + fixed, count: klen)
        } else {
            guard o + NodeView.branchFixed <= usableEnd else { throw corrupt("entry \(i) outside the page") }
            let klen = Int(p.loadUnaligned(fromByteOffset: o + 16, as: UInt16.self))
            guard o + NodeView.branchFixed + klen <= usableEnd else { throw corrupt("key \(i) outside the page") }
            return UnsafeRawBufferPointer(start: p + o + NodeView.branchFixed, count: klen)
        }
    }

    /// The key and value of leaf entry `i`, reading its slot and header once (a scan's step).
    @inline(__always)
    func entry(_ i: Int) throws -> (key: UnsafeRawBufferPointer, value: LeafValue) {
        let o = slot(i)
        let (klen, vlen, fixed) = try leafHeader(at: o, entry: i)
        let v = o + fixed + klen
        let key = UnsafeRawBufferPointer(start: p + o + fixed, count: klen)
        if vlen == NodeView.overflowMarker {
            guard v + NodeView.overflowRefSize <= usableEnd else { throw corrupt("overflow reference \(i) outside the page") }
            let length = p.loadUnaligned(fromByteOffset: v, as: UInt64.self)
            // Bounded so that its page count is an `Int`; where the run lies is for its reader to check.
            guard length <= NodeView.maxOverflowLength else { throw corrupt("overflow value \(i) claims \(length) bytes") }
            return (key, .overflow(
                pgno: p.loadUnaligned(fromByteOffset: v + 8, as: UInt64.self),
                checksum: p.loadUnaligned(fromByteOffset: v + 16, as: UInt64.self),
                length: length))
        }
        guard v + Int(vlen) <= usableEnd else { throw corrupt("value \(i) outside the page") }
        return (key, .inline(UnsafeRawBufferPointer(start: p + v, count: Int(vlen))))
    }

    @inline(__always)
    func value(_ i: Int) throws -> LeafValue {
        try entry(i).value
    }

    @inline(__always)
    func child(_ i: Int) throws -> UInt64 {
        let o = slot(i)
        guard o + NodeView.branchFixed <= usableEnd else { throw corrupt("entry \(i) outside the page") }
        return p.loadUnaligned(fromByteOffset: o, as: UInt64.self)
    }

    /// ``child(_:)`` for a prefetch hint: nil where that throws, since the reader may never
    /// get to the child, and a scan must not fail on a page it does not read.
    @inline(__always)
    func childHint(_ i: Int) -> UInt64? {
        let o = slot(i)
        guard o + NodeView.branchFixed <= usableEnd else { return nil }
        return p.loadUnaligned(fromByteOffset: o, as: UInt64.self)
    }

    @inline(__always)
    func childChecksum(_ i: Int) -> UInt64 {
        p.loadUnaligned(fromByteOffset: slot(i) + 8, as: UInt64.self)
    }

    /// Binary search: the first index whose key is >= `key`, and whether it is equal.
    @inline(__always)
    func lowerBound(_ key: UnsafeRawBufferPointer) throws -> (index: Int, exact: Bool) {
        var lo = isLeaf ? 0 : 1, hi = count
        while lo < hi {
            let mid = (lo &+ hi) >> 1
            let c = compareKeys(try self.key(mid), key)
            if c < 0 { lo = mid + 1 } else if c > 0 { hi = mid } else { return (mid, true) }
        }
        return (lo, false)
    }

    /// The child index of a branch to descend into for `key`.
    @inline(__always)
    func childIndex(for key: UnsafeRawBufferPointer) throws -> Int {
        let (i, exact) = try lowerBound(key)
        return exact ? i : i - 1
    }

    /// Size in bytes of entry `i`, excluding its slot.
    func entrySize(_ i: Int) throws -> Int {
        let o = slot(i)
        if isLeaf {
            let (klen, vlen, fixed) = try leafHeader(at: o, entry: i)
            let size = fixed + klen + (vlen == NodeView.overflowMarker ? NodeView.overflowRefSize : Int(vlen))
            guard o + size <= usableEnd else { throw corrupt("entry \(i) outside the page") }
            return size
        }
        let klen = Int(p.loadUnaligned(fromByteOffset: o + 16, as: UInt16.self))
        guard o + NodeView.branchFixed + klen <= usableEnd else { throw corrupt("entry \(i) outside the page") }
        return NodeView.branchFixed + klen
    }

    /// Checks every entry lies inside the page and keys ascend: done before a page is copied for
    /// writing, so mutation code can trust the layout. One pass over the slots with the bounds
    /// of `entrySize` and `key` inlined: every page a write touches pays it (a sixth of a small
    /// commit's instructions when it called them per entry).
    func validate() throws {
        let upper = PageHeader(p).upper
        let end = usableEnd
        let leaf = isLeaf
        var previous = 0, previousLength = -1
        for i in 0..<count {
            let o = slot(i)
            guard o >= upper else { throw corrupt("entry \(i) overlaps the slot array") }
            let keyStart: Int, keyLength: Int, size: Int
            if leaf {
                let (klen, vlen, fixed) = try leafHeader(at: o, entry: i)
                keyLength = klen
                size = fixed + klen + (vlen == NodeView.overflowMarker ? NodeView.overflowRefSize : Int(vlen))
                keyStart = o + fixed
            } else {
                guard o + NodeView.branchFixed <= end else { throw corrupt("entry \(i) outside the page") }
                keyLength = Int(p.loadUnaligned(fromByteOffset: o + 16, as: UInt16.self))
                size = NodeView.branchFixed + keyLength
                keyStart = o + NodeView.branchFixed
            }
            guard o + size <= end else { throw corrupt("entry \(i) outside the page") }
            if previousLength >= 0, compareKeys(UnsafeRawBufferPointer(start: p + previous, count: previousLength),
                                                UnsafeRawBufferPointer(start: p + keyStart, count: keyLength)) >= 0 {
                throw corrupt("keys out of order at entry \(i)")
            }
            if leaf || i > 0 { previous = keyStart; previousLength = keyLength }
        }
    }

    var usedBytes: Int { usableEnd - PageHeader(p).upper + 2 * count }

    /// The bytes of entry `i` as a narrow leaf holds them: the entry itself when this page is
    /// narrow, else re-encoded into `buffer` (room for `NodeEditor.maxNarrowEntry` bytes).
    func narrowEntry(_ i: Int, buffer: UnsafeMutableRawPointer) throws -> UnsafeRawBufferPointer {
        let o = slot(i)
        if narrow { return UnsafeRawBufferPointer(start: p + o, count: try entrySize(i)) }
        let (klen, vlen, fixed) = try leafHeader(at: o, entry: i)
        let body = klen + (vlen == NodeView.overflowMarker ? NodeView.overflowRefSize : Int(vlen))
        guard o + fixed + body <= usableEnd else { throw corrupt("entry \(i) outside the page") }
        let h = NodeEditor.writeNarrowLengths(to: buffer, keyCount: klen, valueTag: vlen == NodeView.overflowMarker ? 0 : Int(vlen) + 1)
        (buffer + h).copyMemory(from: p + o + fixed, byteCount: body)
        return UnsafeRawBufferPointer(start: buffer, count: h + body)
    }

    /// The key of a narrow leaf entry held apart from its page (`narrowEntry`, or one being
    /// inserted).
    static func narrowKey(_ e: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var klen = Int(e[0]), fixed = 1
        if klen >= 0x80 { klen = (klen & 0x7F) << 8 | Int(e[1]); fixed = 2 }
        fixed += e[fixed] >= 0x80 ? 2 : 1
        return UnsafeRawBufferPointer(rebasing: e[fixed..<(fixed + klen)])
    }
}

/// In-place edits of a dirty branch or leaf page. Callers check `fits` first.
struct NodeEditor {
    let p: UnsafeMutableRawPointer
    let pageSize: Int

    var count: Int { Int(p.loadUnaligned(fromByteOffset: 18, as: UInt16.self)) }
    var upper: Int { Int(p.loadUnaligned(fromByteOffset: 20, as: UInt32.self)) }
    var freeSpace: Int { upper - PageLayout.headerSize - 2 * count }

    private func setCount(_ n: Int) { p.storeBytes(of: UInt16(n), toByteOffset: 18, as: UInt16.self) }
    private func setUpper(_ u: Int) { p.storeBytes(of: UInt32(u), toByteOffset: 20, as: UInt32.self) }
    private func slot(_ i: Int) -> Int { Int(p.loadUnaligned(fromByteOffset: PageLayout.headerSize + 2 * i, as: UInt16.self)) }
    private func setSlot(_ i: Int, _ o: Int) { p.storeBytes(of: UInt16(o), toByteOffset: PageLayout.headerSize + 2 * i, as: UInt16.self) }

    /// Inserts an already-encoded entry at index `i`. The caller ensures `size + 2 <= freeSpace`.
    func insertRaw(at i: Int, size: Int, _ write: (UnsafeMutableRawPointer) -> Void) {
        let n = count
        let newUpper = upper - size
        write(p + newUpper)
        let slots = p + PageLayout.headerSize
        if i < n { memmove(slots + 2 * (i + 1), slots + 2 * i, 2 * (n - i)) }
        setSlot(i, newUpper)
        setUpper(newUpper)
        setCount(n + 1)
    }

    /// Removes entry `i` and closes the gap it leaves in the heap.
    func remove(at i: Int, size: Int) {
        let n = count
        let o = slot(i)
        let up = upper
        if o > up { memmove(p + up + size, p + up, o - up) }
        let slots = p + PageLayout.headerSize
        if i < n - 1 { memmove(slots + 2 * i, slots + 2 * (i + 1), 2 * (n - 1 - i)) }
        setCount(n - 1)
        setUpper(up + size)
        // Entries below the removed one moved up by `size`. Wrapping, branch-free arithmetic
        // on the u16 slots lets the compiler vectorize the loop (offsets stay below the page
        // size, so nothing wraps).
        let o16 = UInt16(truncatingIfNeeded: o), size16 = UInt16(truncatingIfNeeded: size)
        for j in 0..<(n - 1) {
            let s = slots.loadUnaligned(fromByteOffset: 2 * j, as: UInt16.self)
            slots.storeBytes(of: s < o16 ? s &+ size16 : s, toByteOffset: 2 * j, as: UInt16.self)
        }
    }

    /// Removes the entries `range` (`size(i)`: entry `i`'s size, its slot left out) and closes
    /// their gaps in the heap. Adjacent gaps close as one run. A page laid out in order holds
    /// the entries at either end of it in one run, closed with one move of the heap and one
    /// pass over the slots. A page filled in random key order holds them in about half as
    /// many runs as entries, and a move and a pass per run would cost the heap and the slots
    /// once per run; past a few runs, every byte below the top gap moves once, by the sizes
    /// of the gaps above it, and each slot finds that sum by a binary search.
    func removeEntries(_ range: Range<Int>, size: (Int) -> Int) {
        let k = range.count
        guard k > 0 else { return }
        let n = count
        if k == n { reset(); return }
        // Offsets and sizes below 2^16 (slots are two bytes; the gaps' total stays below the
        // page size): four bytes a gap keep a page's worth within a stack allocation.
        withUnsafeTemporaryAllocation(of: (offset: UInt16, size: UInt16).self, capacity: k) { buffer in
            var gaps = buffer
            var descending = true
            for j in 0..<k {
                gaps[j] = (offset: UInt16(truncatingIfNeeded: slot(range.lowerBound + j)),
                           size: UInt16(truncatingIfNeeded: size(range.lowerBound + j)))
                if j > 0, gaps[j].offset > gaps[j - 1].offset { descending = false }
            }
            // Descending offsets (the order in which a page laid out in order holds them),
            // adjacent gaps merged into runs.
            if !descending { gaps.sort { $0.offset > $1.offset } }
            var runs = 0
            for j in 0..<k {
                if runs > 0, gaps[j].offset &+ gaps[j].size == gaps[runs - 1].offset {
                    gaps[runs - 1] = (offset: gaps[j].offset, size: gaps[runs - 1].size &+ gaps[j].size)
                } else {
                    gaps[runs] = gaps[j]
                    runs += 1
                }
            }
            let slots = p + PageLayout.headerSize
            if range.upperBound < n {
                memmove(slots + 2 * range.lowerBound, slots + 2 * range.upperBound, 2 * (n - range.upperBound))
            }
            let remaining = n - k
            setCount(remaining)
            if runs <= 16 {
                // Lowest run first: closing it moves only the bytes below it, never a gap above.
                var up = upper
                for r in stride(from: runs - 1, through: 0, by: -1) {
                    let o = Int(gaps[r].offset), size = Int(gaps[r].size)
                    if o > up { memmove(p + up + size, p + up, o - up) }
                    up += size
                    // As in `remove(at:size:)`: branch-free, so the loop vectorizes.
                    let o16 = gaps[r].offset, size16 = gaps[r].size
                    for j in 0..<remaining {
                        let s = slots.loadUnaligned(fromByteOffset: 2 * j, as: UInt16.self)
                        slots.storeBytes(of: s < o16 ? s &+ size16 : s, toByteOffset: 2 * j, as: UInt16.self)
                    }
                }
                setUpper(up)
                return
            }
            // Highest run first: the bytes between run r and the run below it move up by the
            // sizes of runs 0...r, into the place the bytes above them have left. Each run's
            // size becomes that running total, which the slots' search reads.
            let up = upper
            var shift: UInt16 = 0
            for r in 0..<runs {
                shift &+= gaps[r].size
                let top = Int(gaps[r].offset)
                let bottom = r + 1 < runs ? Int(gaps[r + 1].offset) + Int(gaps[r + 1].size) : up
                if top > bottom { memmove(p + bottom + Int(shift), p + bottom, top - bottom) }
                gaps[r].size = shift
            }
            for j in 0..<remaining {
                let s = slots.loadUnaligned(fromByteOffset: 2 * j, as: UInt16.self)
                // How many runs lie above `s` (runs are in descending offsets).
                var lo = 0, hi = runs
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if gaps[mid].offset > s { lo = mid + 1 } else { hi = mid }
                }
                if lo > 0 { slots.storeBytes(of: s &+ gaps[lo - 1].size, toByteOffset: 2 * j, as: UInt16.self) }
            }
            setUpper(up + Int(shift))
        }
    }

    /// Inserts `k` encoded entries at index `i`, `entry(j)` giving the `j`th, with one move of
    /// the slot array. The caller ensures they fit.
    func insertRaws(at i: Int, count k: Int, _ entry: (Int) -> UnsafeRawBufferPointer) {
        let n = count
        let slots = p + PageLayout.headerSize
        if i < n { memmove(slots + 2 * (i + k), slots + 2 * i, 2 * (n - i)) }
        var up = upper
        for j in 0..<k {
            let e = entry(j)
            up -= e.count
            (p + up).copyMemory(from: e.baseAddress!, byteCount: e.count)
            setSlot(i + j, up)
        }
        setUpper(up)
        setCount(n + k)
    }

    func setChild(_ i: Int, pgno: UInt64, checksum: UInt64) {
        let o = slot(i)
        p.storeBytes(of: pgno, toByteOffset: o, as: UInt64.self)
        p.storeBytes(of: checksum, toByteOffset: o + 8, as: UInt64.self)
    }

    /// Points the overflow value of entry `i` (of this narrow leaf) at another run.
    func setOverflow(_ i: Int, pgno: UInt64, checksum: UInt64) {
        let key = NodeView.narrowKey(UnsafeRawBufferPointer(start: p + slot(i), count: 4 + Storage.maxKeySize))
        let v = UnsafeMutableRawPointer(mutating: key.baseAddress! + key.count)
        v.storeBytes(of: pgno, toByteOffset: 8, as: UInt64.self)
        v.storeBytes(of: checksum, toByteOffset: 16, as: UInt64.self)
    }

    /// Empties the page, keeping its identity and type.
    func reset() {
        setCount(0)
        setUpper(pageSize - PageLayout.trailerSize)
    }

    /// Appends an encoded entry (copied from elsewhere) at the end.
    func appendRaw(_ bytes: UnsafeRawBufferPointer) {
        insertRaw(at: count, size: bytes.count) { dst in
            dst.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        }
    }

    /// Appends a branch entry with an empty key (it becomes entry 0: the leftmost child).
    func appendLeftmost(child: UInt64, checksum: UInt64) {
        insertRaw(at: count, size: NodeView.branchFixed) { dst in
            dst.storeBytes(of: child, toByteOffset: 0, as: UInt64.self)
            dst.storeBytes(of: checksum, toByteOffset: 8, as: UInt64.self)
            dst.storeBytes(of: 0, toByteOffset: 16, as: UInt16.self)
        }
    }

    /// Bytes of an `n15`.
    @inline(__always)
    static func narrowLengthSize(_ n: Int) -> Int { n < 0x80 ? 1 : 2 }

    /// The largest narrow leaf entry: the lengths, the largest key and an overflow reference
    /// (inline values are smaller).
    static let maxNarrowEntry = 4 + Storage.maxKeySize + NodeView.overflowRefSize

    /// Writes a narrow entry's key length and value tag (`NodeView`); returns their size.
    @inline(__always)
    static func writeNarrowLengths(to dst: UnsafeMutableRawPointer, keyCount: Int, valueTag: Int) -> Int {
        @inline(__always) func put(_ n: Int, at o: Int) -> Int {
            if n < 0x80 {
                dst.storeBytes(of: UInt8(n), toByteOffset: o, as: UInt8.self)
                return o + 1
            }
            dst.storeBytes(of: UInt8(0x80 | n >> 8), toByteOffset: o, as: UInt8.self)
            dst.storeBytes(of: UInt8(n & 0xFF), toByteOffset: o + 1, as: UInt8.self)
            return o + 2
        }
        return put(valueTag, at: put(keyCount, at: 0))
    }

    static func leafEntrySize(keyCount: Int, valueCount: Int, overflow: Bool) -> Int {
        narrowLengthSize(keyCount) + narrowLengthSize(overflow ? 0 : valueCount + 1) + keyCount
            + (overflow ? NodeView.overflowRefSize : valueCount)
    }

    /// Writes a narrow leaf entry to `dst`: an inline value, or (`overflow`) a reference to
    /// the run holding `length` bytes.
    static func writeLeafEntry(to dst: UnsafeMutableRawPointer, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer,
                               overflow: (pgno: UInt64, checksum: UInt64, length: UInt64)? = nil) {
        let h = writeNarrowLengths(to: dst, keyCount: key.count, valueTag: overflow == nil ? value.count + 1 : 0)
        if key.count > 0 { (dst + h).copyMemory(from: key.baseAddress!, byteCount: key.count) }
        let v = dst + h + key.count
        if let overflow {
            v.storeBytes(of: overflow.length, toByteOffset: 0, as: UInt64.self)
            v.storeBytes(of: overflow.pgno, toByteOffset: 8, as: UInt64.self)
            v.storeBytes(of: overflow.checksum, toByteOffset: 16, as: UInt64.self)
        } else if value.count > 0 {
            v.copyMemory(from: value.baseAddress!, byteCount: value.count)
        }
    }

    func insertLeaf(at i: Int, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        insertRaw(at: i, size: NodeEditor.leafEntrySize(keyCount: key.count, valueCount: value.count, overflow: false)) { dst in
            NodeEditor.writeLeafEntry(to: dst, key: key, value: value)
        }
    }

    func insertLeafOverflow(at i: Int, key: UnsafeRawBufferPointer, length: UInt64, pgno: UInt64, checksum: UInt64) {
        insertRaw(at: i, size: NodeEditor.leafEntrySize(keyCount: key.count, valueCount: 0, overflow: true)) { dst in
            NodeEditor.writeLeafEntry(to: dst, key: key, value: UnsafeRawBufferPointer(start: nil, count: 0),
                                      overflow: (pgno, checksum, length))
        }
    }

    /// Makes this copy of the leaf `source` (an older file's, wide entries) narrow: the same
    /// entries, re-encoded, in the same order.
    func rewriteNarrow(from source: NodeView) throws {
        reset()
        PageHeader.addFlags(p, PageLayout.flagNarrowEntries)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: NodeEditor.maxNarrowEntry, alignment: 8)
        defer { buffer.deallocate() }
        for i in 0..<source.count { appendRaw(try source.narrowEntry(i, buffer: buffer)) }
    }

    func insertBranch(at i: Int, key: UnsafeRawBufferPointer, child: UInt64, checksum: UInt64) {
        let size = NodeView.branchFixed + key.count
        insertRaw(at: i, size: size) { dst in
            dst.storeBytes(of: child, toByteOffset: 0, as: UInt64.self)
            dst.storeBytes(of: checksum, toByteOffset: 8, as: UInt64.self)
            dst.storeBytes(of: UInt16(key.count), toByteOffset: 16, as: UInt16.self)
            if key.count > 0 { (dst + 18).copyMemory(from: key.baseAddress!, byteCount: key.count) }
        }
    }
}
