/// The entries of a full page with one more inserted at `at`, as a split or a shift into a
/// sibling lays them out again: where each one's bytes are, and how many bytes (slots
/// included) the first `j` take. Each entry's size is read from the page once; both callers
/// ask for every entry two or three times.
struct PendingEntries {
    /// Entries, the inserted one included.
    let count: Int
    private let page: UnsafeRawPointer
    private let entry: UnsafeRawBufferPointer
    private let at: Int
    /// `count` entry offsets in `page`, then `count + 1` prefix sums.
    private let table: UnsafeMutablePointer<Int>

    /// Reads the entries of `old` (a copy the caller keeps unchanged while this lives), with
    /// `entry` inserted at `at`. Call `deallocate()` when done.
    init(_ old: NodeView, inserting entry: UnsafeRawBufferPointer, at: Int) throws {
        let count = old.count + 1
        let table = UnsafeMutablePointer<Int>.allocate(capacity: 2 * count + 1)
        let prefix = table + count
        prefix[0] = 0
        do {
            for j in 0..<count {
                let size: Int
                if j == at {
                    size = entry.count
                } else {
                    let k = j < at ? j : j - 1
                    table[j] = old.slot(k)
                    size = try old.entrySize(k)
                }
                prefix[j + 1] = prefix[j] + size + 2
            }
        } catch {
            table.deallocate()
            throw error
        }
        self.count = count
        self.page = old.p
        self.entry = entry
        self.at = at
        self.table = table
    }

    func deallocate() { table.deallocate() }

    /// The encoded bytes of entry `j`.
    @inline(__always)
    func raw(_ j: Int) -> UnsafeRawBufferPointer {
        j == at ? entry : UnsafeRawBufferPointer(start: page + table[j], count: table[count + j + 1] - table[count + j] - 2)
    }

    /// Bytes of the first `j` entries, with their slots.
    @inline(__always)
    func bytes(before j: Int) -> Int { table[count + j] }

    /// Bytes of all the entries, with their slots.
    var total: Int { table[2 * count] }
}
