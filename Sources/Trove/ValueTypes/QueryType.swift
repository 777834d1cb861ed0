/// A query on a ``Persistable`` type: a predicate and an order, usually an enum with a case
/// per question the app asks.
///
/// ```swift
/// extension Character {
///     enum Query: QueryType {
///         case publisherName(String)
///         var predicate: String? { "publisher.name == $0" }
///         var arguments: [Value] { switch self { case .publisherName(let n): [.string(n)] } }
///         var sort: [SortKey] { ["name"] }
///     }
/// }
/// ```
public protocol QueryType {
    /// A predicate in the query language, or nil for every value.
    var predicate: String? { get }
    /// The values of `$0`, `$1`, ... in the predicate.
    var arguments: [Value] { get }
    /// The order, most significant key first; empty for insertion order.
    var sort: [SortKey] { get }
}

extension QueryType {
    /// No arguments, for a query whose predicate has no `$0`.
    public var arguments: [Value] { [] }
    /// Insertion order.
    public var sort: [SortKey] { [] }

    /// The request for `model`.
    func request(for model: String) -> ResultsRequest {
        ResultsRequest(model, where: predicate, arguments, sortedBy: sort)
    }
}

/// The queries of a type that declares none.
public enum NoQuery: QueryType {
    public var predicate: String? {
        switch self {}
    }
}
