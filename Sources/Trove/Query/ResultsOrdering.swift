/// Gathers the objects that match a query and applies `SORT`, `DISTINCT` and `LIMIT` as they
/// arrive, reading the sort and distinct values while the record is at hand.
///
/// - No sort: objects keep their arrival order and the collection stops once `limit` are
///   kept (after `DISTINCT`, which keeps the first object of each combination).
/// - Sort with a limit and no distinct: a bounded heap keeps the best `limit` (top-k).
/// - Otherwise every row is kept, sorted, then reduced.
/// - When every sort key is a fixed-width property of the object itself and there is no
///   distinct, rows are raw slot words instead of values (`RawSortRows`), in the same order.
///
/// Sorting puts null first ascending and last descending; ties fall back to object key order,
/// so that results are deterministic.
final class ResultsOrdering {
    typealias Reader = (RecordView, UInt64) throws -> Value

    struct Row {
        var values: [Value]
        var key: UInt64
    }

    private let sortReaders: [Reader]
    private let ascending: [Bool]
    private let distinctReaders: [Reader]
    private let limit: Int?

    private var keys: [UInt64] = []
    private var rows: [Row] = []
    private var seen = Set<GroupingKey>()
    private let usesHeap: Bool
    /// Set when every sort key reads a fixed-width slot and there is no distinct: then rows
    /// hold raw words, not values.
    private let raw: RawSortRows?

    init(sort: [(reader: Reader, ascending: Bool)], distinct: [Reader], limit: Int?, raw: [RawSortKey]? = nil) {
        sortReaders = sort.map(\.reader)
        ascending = sort.map(\.ascending)
        distinctReaders = distinct
        self.limit = limit
        usesHeap = !sort.isEmpty && distinct.isEmpty && limit != nil
        if let raw, !raw.isEmpty, raw.count == sort.count, distinct.isEmpty {
            self.raw = RawSortRows(keys: raw, limit: limit)
        } else {
            self.raw = nil
        }
    }

    /// The ordering of a query's `SORT`, `DISTINCT` and `LIMIT`, reading values with `reader`.
    static func make(_ reader: KeyPathReader, sort: [(BoundKeyPath, Bool)], distinct: [BoundKeyPath],
                     limit: Int?) throws -> ResultsOrdering {
        let raw = sort.compactMap { RawSortKey($0.0, ascending: $0.1) }
        return ResultsOrdering(
            sort: try sort.map { (try reader.valueReader($0.0), $0.1) },
            distinct: try distinct.map { try reader.valueReader($0) },
            limit: limit,
            raw: raw.count == sort.count ? raw : nil)
    }

    /// Whether rows hold raw slot words (every sort key fixed-width, no distinct).
    var usesRawRows: Bool { raw != nil }

    /// The raw rows, for a scan that feeds them itself (see `QueryExecutor`).
    var rawRows: RawSortRows? { raw }

    /// Whether nothing can be kept (`LIMIT(0)`): callers need not read anything.
    var isSaturated: Bool { limit == 0 }

    /// Takes a matching object; returns false once no further object can change the result.
    func accept(_ record: RecordView, _ key: UInt64) throws -> Bool {
        if let raw {
            try raw.accept(record, key)
            return true
        }
        if sortReaders.isEmpty {
            if !distinctReaders.isEmpty {
                guard seen.insert(GroupingKey(try distinctReaders.map { try $0(record, key) })).inserted else { return true }
            }
            keys.append(key)
            return limit.map { keys.count < $0 } ?? true
        }
        var values = try sortReaders.map { try $0(record, key) }
        if !distinctReaders.isEmpty { values += try distinctReaders.map { try $0(record, key) } }
        let row = Row(values: values, key: key)
        if usesHeap, let limit {
            pushBounded(row, limit: limit)
        } else {
            rows.append(row)
        }
        return true
    }

    /// The object keys of the result, in order.
    func finish() -> [UInt64] {
        if let raw { return raw.finish() }
        if sortReaders.isEmpty { return keys }
        rows.sort(by: precedes)
        if distinctReaders.isEmpty {
            return rows.prefix(limit ?? rows.count).map(\.key)
        }
        var out: [UInt64] = []
        let start = sortReaders.count
        for row in rows where seen.insert(GroupingKey(Array(row.values[start...]))).inserted {
            out.append(row.key)
            if let limit, out.count >= limit { break }
        }
        return out
    }

    private func precedes(_ a: Row, _ b: Row) -> Bool {
        for i in 0..<ascending.count {
            let order = ValueComparison.sortOrder(a.values[i], b.values[i])
            if order != 0 { return ascending[i] ? order < 0 : order > 0 }
        }
        return a.key < b.key
    }

    // MARK: Top k

    /// Keeps the best `limit` rows in a max-heap whose root is the worst of them.
    private func pushBounded(_ row: Row, limit: Int) {
        guard limit > 0 else { return }
        if rows.count < limit {
            rows.append(row)
            var child = rows.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard precedes(rows[parent], rows[child]) else { break }
                rows.swapAt(parent, child)
                child = parent
            }
            return
        }
        guard precedes(row, rows[0]) else { return }
        rows[0] = row
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var worst = parent
            if left < rows.count && precedes(rows[worst], rows[left]) { worst = left }
            if right < rows.count && precedes(rows[worst], rows[right]) { worst = right }
            if worst == parent { return }
            rows.swapAt(parent, worst)
            parent = worst
        }
    }
}
