/// The entries of a full page with one more inserted at `at`, as a split or a shift into a
/// sibling sees them. Both move entries from one end of the page and leave the rest in place,
/// so each entry's size is read from the page only when first asked for: a shift reads the
/// few entries it moves, a split the half it moves, not every entry.
struct PendingEntries {
    /// Entries, the inserted one included.
    let count: Int
    let old: NodeView
    private let entry: UnsafeRawBufferPointer
    private let at: Int
    /// Each entry's size with its slot once read, else 0 (no entry is empty). Two bytes
    /// each, so that a page's worth stays within a stack allocation.
    private let sizes: UnsafeMutablePointer<UInt16>

    /// The entries of `old`, with `entry` inserted at `at`; `sizes` has room for
    /// `old.count + 1`. Reads the page while it is unchanged: everything a caller moves is
    /// read before it edits the page.
    init(_ old: NodeView, inserting entry: UnsafeRawBufferPointer, at: Int, sizes: UnsafeMutablePointer<UInt16>) {
        count = old.count + 1
        self.old = old
        self.entry = entry
        self.at = at
        self.sizes = sizes
        sizes.initialize(repeating: 0, count: count)
    }

    /// The old page's index of entry `j` (not the inserted one).
    @inline(__always)
    private func oldIndex(_ j: Int) -> Int { j < at ? j : j - 1 }

    /// Bytes of entry `j`, with its slot.
    @inline(__always)
    func size(_ j: Int) throws -> Int {
        let known = Int(sizes[j])
        if known != 0 { return known }
        let size = (j == at ? entry.count : try old.entrySize(oldIndex(j))) + 2
        sizes[j] = UInt16(truncatingIfNeeded: size)
        return size
    }

    /// The encoded bytes of entry `j`, whose size was read.
    @inline(__always)
    func raw(_ j: Int) -> UnsafeRawBufferPointer {
        if j == at { return entry }
        assert(sizes[j] != 0, "entry \(j) not read")
        return UnsafeRawBufferPointer(start: old.p + old.slot(oldIndex(j)), count: Int(sizes[j]) - 2)
    }

    /// The key of leaf entry `j`.
    func key(_ j: Int) throws -> UnsafeRawBufferPointer {
        j == at ? NodeView.narrowKey(entry) : try old.key(oldIndex(j))
    }

    /// The old page's indices of `range`, the inserted entry left out.
    func oldRange(_ range: Range<Int>) -> Range<Int> {
        (range.lowerBound - (range.lowerBound > at ? 1 : 0))..<(range.upperBound - (range.upperBound > at ? 1 : 0))
    }

    /// Bytes of the old page's entry `i`, without its slot, which was read.
    func oldSize(_ i: Int) -> Int {
        let j = i < at ? i : i + 1
        assert(sizes[j] != 0, "entry \(j) not read")
        return Int(sizes[j]) - 2
    }

    /// Whether the inserted entry is among `range`.
    func holdsInserted(_ range: Range<Int>) -> Bool { range.contains(at) }

    /// Where the inserted entry goes once the old entries before `start` have left the page.
    func insertedIndex(after start: Int) -> Int { at - start }
}
