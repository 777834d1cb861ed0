/// A store seen through ``Persistable`` value types: write values, read them back by
/// primary key or by typed query, as live ``FetchedResults``.
///
/// ```swift
/// let container = Container(store: store)
/// try container.write { tx in
///     try tx.add(Character(identifier: 1455, name: "Iron Man", realName: "Tony Stark",
///                          publisher: Publisher(identifier: 1, name: "Marvel")))
///     try tx.update(Character.self, [.identifier(1455), .realName("Anthony Edward Stark")])
/// }
/// let marvel = try container.values(Character.self, matching: .publisherName("Marvel"))
/// ```
public final class Container: Sendable {
    public let store: Store

    public init(store: Store) {
        self.store = store
    }

    /// Runs `body` in one write transaction (see ``Store/write(_:)``).
    @discardableResult
    public func write<R>(_ body: (ValueTransaction) throws -> R) throws -> R {
        try store.write { try body(ValueTransaction($0)) }
    }

    /// The stored value of `type` with this primary key, or nil.
    public func value<T: Persistable>(_ type: T.Type, primaryKey: Value) throws -> T? {
        try store.read { s in
            try s.object(T.modelName, primaryKey: primaryKey).map { try ObjectDecoder.decode(T.self, from: $0) }
        }
    }

    /// Every stored value of `type`, in insertion order, kept current.
    public func values<T: Persistable>(_ type: T.Type) throws -> FetchedResults<T> {
        try FetchedResults(LiveResults(store: store, request: ResultsRequest(T.modelName)))
    }

    /// The stored values of `type` that `query` selects, in its order, kept current.
    public func values<T: Persistable>(_ type: T.Type, matching query: T.Query) throws -> FetchedResults<T> {
        try FetchedResults(LiveResults(store: store, request: query.request(for: T.modelName)))
    }
}
