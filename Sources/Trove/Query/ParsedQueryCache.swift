import Foundation

/// Parsed statements by their text, so a query run many times with different arguments is
/// parsed once: the part of a short query's cost that does not depend on the data.
///
/// Bounded (least recently inserted entries go first) and shared by every store; errors are
/// never cached, so a bad statement reports its error each time.
final class ParsedQueryCache: @unchecked Sendable {
    static let shared = ParsedQueryCache(capacity: 256)

    private let lock = NSLock()
    private let capacity: Int
    private var entries: [String: Query] = [:]
    private var order: [String] = []
    private var next = 0

    init(capacity: Int) {
        self.capacity = capacity
        order.reserveCapacity(capacity)
    }

    /// The parsed form of `text`, parsed now if it is not cached.
    func query(_ text: String) throws(QueryError) -> Query {
        lock.lock()
        if let q = entries[text] { lock.unlock(); return q }
        lock.unlock()
        let q = try QueryParser.parseQuery(text)
        lock.lock()
        defer { lock.unlock() }
        if entries[text] == nil {
            if order.count < capacity {
                order.append(text)
            } else {
                entries[order[next]] = nil
                order[next] = text
                next = (next + 1) % capacity
            }
            entries[text] = q
        }
        return q
    }
}
