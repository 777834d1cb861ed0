/// A sort key read straight from a fixed-width slot (an integer, bool, float, double or date
/// of the object itself) as two words that order the way `ValueComparison.sortOrder` does.
///
/// Ascending, a value is `(1, rank)` and null `(0, 0)`: null first. Descending inverts both
/// words, so that every key compares ascending. The rank of a number is its order-preserving
/// bit pattern, with -0 as 0 and every NaN after every number.
struct RawSortKey {
    enum Kind { case int, double, float, bool }

    let slot: Int
    let kind: Kind
    let ascending: Bool
    /// The words of a record written before the property existed (it reads the default).
    private var missing: (UInt64, UInt64) = (0, 0)
    private let name: String

    init?(_ path: BoundKeyPath, ascending: Bool) {
        guard path.isDirect, !path.isToMany else { return nil }
        switch path.kind {
        case .int: kind = .int
        case .double, .date: kind = .double
        case .float: kind = .float
        case .bool: kind = .bool
        default: return nil
        }
        let p = path.property
        slot = p.id
        name = p.name
        self.ascending = ascending
        guard let missing = try? KeyPathReader.defaultPayload(p).withUnsafeBytes({ try words($0) }) else { return nil }
        self.missing = missing
    }

    @inline(__always)
    func words(_ record: RecordView) throws -> (UInt64, UInt64) {
        guard let bytes = record.slot(slot) else { return missing }
        return try words(bytes)
    }

    @inline(__always)
    func words(_ bytes: UnsafeRawBufferPointer) throws -> (UInt64, UInt64) {
        if bytes.count == 0 { return ascending ? (0, 0) : (1, 0) }
        let rank: UInt64
        switch kind {
        case .int:
            guard let v = RecordCodec.int(bytes) else { throw size(bytes, 8) }
            rank = UInt64(bitPattern: v) ^ (1 << 63)
        case .double:
            guard bytes.count == 8 else { throw size(bytes, 8) }
            rank = Self.rank(bytes.loadUnaligned(as: Double.self))
        case .float:
            guard bytes.count == 4 else { throw size(bytes, 4) }
            rank = Self.rank(Double(bytes.loadUnaligned(as: Float.self)))
        case .bool:
            guard bytes.count == 1 else { throw size(bytes, 1) }
            rank = bytes.load(as: UInt8.self) != 0 ? 1 : 0
        }
        return ascending ? (1, rank) : (0, ~rank)
    }

    @inline(__always)
    static func rank(_ d: Double) -> UInt64 {
        if d.isNaN { return .max }
        let bits = d == 0 ? 0 : d.bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }

    private func size(_ bytes: UnsafeRawBufferPointer, _ expected: Int) -> StoreError {
        .corruptRecord("property \(name): \(bytes.count) bytes, expected \(expected)")
    }
}

/// Rows of raw sort words for `ResultsOrdering` when every sort key is a `RawSortKey`: no
/// `Value` and no allocation per object. With a limit, a bounded max-heap whose root is the
/// worst row kept; an object is compared with that root key by key and written only if it
/// enters (about k·ln(n/k) of n objects).
///
/// A row is `2 × keys` words then the object key, compared word by word: descending keys are
/// already inverted, and the object key breaks ties ascending as the general path does.
final class RawSortRows {
    private let keys: ContiguousArray<RawSortKey>
    private let stride: Int
    private let limit: Int?
    @exclusivity(unchecked) private var words: ContiguousArray<UInt64> = []
    @exclusivity(unchecked) private var count = 0

    init(keys: [RawSortKey], limit: Int?) {
        self.keys = ContiguousArray(keys)
        stride = 2 * keys.count + 1
        self.limit = limit
        if let limit { words.reserveCapacity(min(limit, 1024) * stride) }
    }

    func accept(_ record: RecordView, _ key: UInt64) throws {
        guard let limit else {
            try append(record, key)
            return
        }
        if count < limit {
            try append(record, key)
            siftUp(count - 1)
            return
        }
        guard limit > 0, try precedesRoot(record, key) else { return }
        try words.withUnsafeMutableBufferPointer { w in
            var o = 0
            // By index: `for k in keys` copies each key, retaining its name.
            for i in keys.indices {
                let (a, b) = try keys[i].words(record)
                w[o] = a
                w[o + 1] = b
                o += 2
            }
            w[o] = key
        }
        siftDown(0)
    }

    /// The object keys, in order.
    func finish() -> [UInt64] {
        var order = Array(0..<count)
        order.sort { precedes($0, $1) }
        return order.map { words[$0 * stride + stride - 1] }
    }

    // MARK: Rows

    private func append(_ record: RecordView, _ key: UInt64) throws {
        for i in keys.indices {
            let (a, b) = try keys[i].words(record)
            words.append(a)
            words.append(b)
        }
        words.append(key)
        count += 1
    }

    /// Whether the object sorts before the heap's root (the worst row kept).
    @inline(__always)
    private func precedesRoot(_ record: RecordView, _ key: UInt64) throws -> Bool {
        var o = 0
        for i in keys.indices {
            let (a, b) = try keys[i].words(record)
            let ra = words[o], rb = words[o + 1]
            if a != ra { return a < ra }
            if b != rb { return b < rb }
            o += 2
        }
        return key < words[o]
    }

    private func precedes(_ i: Int, _ j: Int) -> Bool {
        words.withUnsafeBufferPointer { w in
            var a = i * stride, b = j * stride
            let end = a + stride
            while a < end {
                if w[a] != w[b] { return w[a] < w[b] }
                a += 1
                b += 1
            }
            return false
        }
    }

    private func swapRows(_ i: Int, _ j: Int) {
        words.withUnsafeMutableBufferPointer { w in
            for n in 0..<stride { w.swapAt(i * stride + n, j * stride + n) }
        }
    }

    private func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(parent, child) else { return }
            swapRows(parent, child)
            child = parent
        }
    }

    private func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var worst = parent
            if left < count && precedes(worst, left) { worst = left }
            if right < count && precedes(worst, right) { worst = right }
            if worst == parent { return }
            swapRows(parent, worst)
            parent = worst
        }
    }
}
