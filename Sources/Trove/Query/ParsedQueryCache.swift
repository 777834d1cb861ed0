import Foundation

/// Parsed statements and predicates by their text, so a query run many times with different
/// arguments is parsed once: the part of a short query's cost that does not depend on the data.
///
/// Bounded (least recently inserted entries go first) and shared by every store; errors are
/// never cached, so a bad statement reports its error each time.
final class ParsedQueryCache: @unchecked Sendable {
    static let shared = ParsedQueryCache(capacity: 256)

    private enum Entry {
        case query(Query)
        case predicate(QueryPredicate)
    }

    private struct Key: Hashable {
        var text: String
        var isPredicate: Bool
    }

    private let lock = NSLock()
    private let capacity: Int
    private var entries: [Key: Entry] = [:]
    private var order: [Key] = []
    private var next = 0

    init(capacity: Int) {
        self.capacity = capacity
        order.reserveCapacity(capacity)
    }

    /// The parsed form of the statement `text`, parsed now if it is not cached.
    func query(_ text: String) throws(QueryError) -> Query {
        let key = Key(text: text, isPredicate: false)
        if case .query(let q) = cached(key) { return q }
        let q = try QueryParser.parseQuery(text)
        insert(.query(q), for: key)
        return q
    }

    /// The parsed form of the predicate `text` (what follows `where`), parsed now if it is
    /// not cached.
    func predicate(_ text: String) throws(QueryError) -> QueryPredicate {
        let key = Key(text: text, isPredicate: true)
        if case .predicate(let p) = cached(key) { return p }
        let p = try QueryParser.parsePredicate(text)
        insert(.predicate(p), for: key)
        return p
    }

    private func cached(_ key: Key) -> Entry? {
        lock.lock()
        defer { lock.unlock() }
        return entries[key]
    }

    private func insert(_ entry: Entry, for key: Key) {
        lock.lock()
        defer { lock.unlock() }
        guard entries[key] == nil else { return }
        if order.count < capacity {
            order.append(key)
        } else {
            entries[order[next]] = nil
            order[next] = key
            next = (next + 1) % capacity
        }
        entries[key] = entry
    }
}
