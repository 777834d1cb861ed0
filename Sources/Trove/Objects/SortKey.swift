/// One key of an order: a key path, which may go through to-one links, and a direction.
///
/// ```swift
/// let byAge = try people.sorted(by: .descending("age"))
/// let byTeam = try people.sorted(by: ["team.name", .descending("score")])
/// ```
/// A string literal is an ascending key. Null sorts before every value when ascending, after
/// every value when descending; ties fall back to insertion (object key) order.
public struct SortKey: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// A dotted key path such as `"owner.name"`.
    public var keyPath: String
    /// Whether smaller values come first.
    public var ascending: Bool

    public init(_ keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    public init(stringLiteral keyPath: String) {
        self.init(keyPath)
    }

    /// Smaller values of `keyPath` first.
    public static func ascending(_ keyPath: String) -> SortKey { SortKey(keyPath) }

    /// Larger values of `keyPath` first.
    public static func descending(_ keyPath: String) -> SortKey { SortKey(keyPath, ascending: false) }

    /// As in a query's `SORT(...)`: `age DESC`, `name ASC`.
    public var description: String { "\(keyPath) \(ascending ? "ASC" : "DESC")" }
}
