/// What a live query asks for: the objects of a model that satisfy a predicate, in an order.
///
/// ```swift
/// let request = ResultsRequest("Task", where: "done == false AND priority > $0", [2],
///                              sortedBy: ["dueDate", .descending("priority")])
/// ```
public struct ResultsRequest: Sendable, Hashable {
    /// The model whose objects are asked for.
    public var model: String
    /// A predicate in the query language, or nil for every object.
    public var predicate: String?
    /// The values of `$0`, `$1`, ... in ``predicate``.
    public var arguments: [Value]
    /// The order, most significant key first; empty for insertion order.
    public var sort: [SortKey]

    /// A request for the objects of `model` that satisfy `predicate` (every object when nil),
    /// with `$0`, `$1`, ... bound to `arguments`, in the order of `sort`. Arguments the
    /// predicate does not use (any, without a predicate) are a `QueryError` when the request is
    /// evaluated, as for any statement.
    public init(_ model: String, where predicate: String? = nil, _ arguments: [Value] = [],
                sortedBy sort: [SortKey] = []) {
        self.model = model
        self.predicate = predicate
        self.arguments = arguments
        self.sort = sort
    }

    /// The sort keys, with `keyPath` first (ascending unless the first key already is it).
    /// `keyPath` is property names, as sections read them; a sort key is query text, where a
    /// reserved word is written `#like`.
    func sort(sectionedBy keyPath: String?) -> [SortKey] {
        guard let keyPath else { return sort }
        let text = QueryKeyPath(keyPath).description
        if let first = sort.first, first.keyPath == text { return sort }
        return [SortKey(text)] + sort
    }

    /// The matching objects in `snapshot`, sorted by `keyPath` first when given.
    func results(in snapshot: Snapshot, sectionedBy keyPath: String? = nil) throws -> Results {
        var results: Results
        if let predicate {
            results = try snapshot.objects(model, where: predicate, arguments: arguments)
        } else {
            // Arguments with no predicate to read them are a forgotten `where:`.
            try QueryParameters.check(arguments, of: nil, statement: nil)
            results = try snapshot.objects(model)
        }
        let keys = sort(sectionedBy: keyPath)
        if !keys.isEmpty {
            results = try results.sorted(by: keys)
        }
        return results
    }
}
