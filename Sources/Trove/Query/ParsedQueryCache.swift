import Foundation

/// Parsed statements and predicates by their text, so a query run many times with different
/// arguments is parsed once: the part of a short query's cost that does not depend on the data.
/// A predicate also keeps the template of its last binding (`BoundQueryTemplate`), so that new
/// arguments against the same model are bound without binding the predicate again.
///
/// Bounded (least recently inserted entries go first) and shared by every store; errors are
/// never cached, so a bad statement reports its error each time.
final class ParsedQueryCache: @unchecked Sendable {
    static let shared = ParsedQueryCache(capacity: 256)

    private enum Entry {
        case query(Query)
        case predicate(QueryPredicate, BoundQueryTemplate?)
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

    /// The predicate `text` parsed and bound to `model` with `arguments`.
    func bind(_ text: String, to model: ModelLayout, layout: StoreLayout,
              arguments: [Value]) throws -> (parsed: QueryPredicate, bound: BoundPredicate) {
        let key = Key(text: text, isPredicate: true)
        var binder = QueryBinder(layout: layout, arguments: arguments, statement: text)
        let parsed: QueryPredicate
        if case .predicate(let p, let template) = cached(key) {
            if let template, template.layout === layout, template.model === model {
                return (p, try template.bind(binder))
            }
            parsed = p
        } else {
            parsed = try QueryParser.parsePredicate(text)
        }
        let recorder = BindingRecorder()
        binder.recorder = recorder
        let bound = try binder.bind(parsed, to: model)
        let template = BoundQueryTemplate(bound, recorder: recorder, layout: layout, model: model)
        lock.lock()
        defer { lock.unlock() }
        if entries[key] == nil {
            append(key)
        }
        entries[key] = .predicate(parsed, template)
        return (parsed, bound)
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
        append(key)
        entries[key] = entry
    }

    /// Makes room for `key` in the order of insertion (the caller holds the lock).
    private func append(_ key: Key) {
        if order.count < capacity {
            order.append(key)
        } else {
            entries[order[next]] = nil
            order[next] = key
            next = (next + 1) % capacity
        }
    }
}
