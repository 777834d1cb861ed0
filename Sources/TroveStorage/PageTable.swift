/// Dirty pages by page number: an open-addressing hash table with linear probing.
///
/// A write transaction looks a page up on every step down a tree; `Dictionary`'s seeded
/// SipHash costs a seventh of the write path. Page numbers are already well spread, so a
/// multiplicative hash is enough.
struct PageTable {
    private var keys: UnsafeMutablePointer<UInt64>
    private var values: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private var capacity: Int
    private(set) var count = 0
    private static let empty: UInt64 = 0   // page 0 is a meta page: never dirty

    init(capacity requested: Int = 64) {
        var c = 1
        while c < requested { c <<= 1 }
        capacity = c
        keys = .allocate(capacity: capacity)
        keys.initialize(repeating: PageTable.empty, count: capacity)
        values = .allocate(capacity: capacity)
        values.initialize(repeating: nil, count: capacity)
    }

    /// Frees the table itself (not the pages).
    func deallocate() {
        keys.deallocate()
        values.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private func slot(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & (capacity - 1)
    }

    @inline(__always)
    subscript(key: UInt64) -> UnsafeMutableRawPointer? {
        var i = slot(key)
        while true {
            let k = keys[i]
            if k == key { return values[i] }
            if k == PageTable.empty { return nil }
            i = (i + 1) & (capacity - 1)
        }
    }

    mutating func insert(_ key: UInt64, _ value: UnsafeMutableRawPointer) {
        if (count + 1) * 4 > capacity * 3 { grow() }
        var i = slot(key)
        while true {
            let k = keys[i]
            if k == key { values[i] = value; return }
            if k == PageTable.empty {
                keys[i] = key
                values[i] = value
                count += 1
                return
            }
            i = (i + 1) & (capacity - 1)
        }
    }

    /// Removes `key` and returns its value (backward-shift deletion keeps probe chains intact).
    @discardableResult
    mutating func remove(_ key: UInt64) -> UnsafeMutableRawPointer? {
        var i = slot(key)
        while true {
            let k = keys[i]
            if k == PageTable.empty { return nil }
            if k == key { break }
            i = (i + 1) & (capacity - 1)
        }
        let removed = values[i]
        var hole = i
        var j = i
        while true {
            j = (j + 1) & (capacity - 1)
            let k = keys[j]
            if k == PageTable.empty { break }
            let home = slot(k)
            // Move k back into the hole unless its home lies cyclically in (hole, j].
            let inRange = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j)
            if !inRange {
                keys[hole] = k
                values[hole] = values[j]
                hole = j
            }
        }
        keys[hole] = PageTable.empty
        values[hole] = nil
        count -= 1
        return removed
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values, oldCapacity = capacity
        capacity *= 2
        keys = .allocate(capacity: capacity)
        keys.initialize(repeating: PageTable.empty, count: capacity)
        values = .allocate(capacity: capacity)
        values.initialize(repeating: nil, count: capacity)
        count = 0
        for i in 0..<oldCapacity where oldKeys[i] != PageTable.empty { insert(oldKeys[i], oldValues[i]!) }
        oldKeys.deallocate()
        oldValues.deallocate()
    }

    /// Every (page, buffer) pair, in no particular order.
    func forEach(_ body: (UInt64, UnsafeMutableRawPointer) throws -> Void) rethrows {
        for i in 0..<capacity where keys[i] != PageTable.empty { try body(keys[i], values[i]!) }
    }

    var pageNumbers: [UInt64] {
        var out: [UInt64] = []
        out.reserveCapacity(count)
        forEach { k, _ in out.append(k) }
        return out
    }

    mutating func removeAll() {
        keys.update(repeating: PageTable.empty, count: capacity)
        values.update(repeating: nil, count: capacity)
        count = 0
    }
}
