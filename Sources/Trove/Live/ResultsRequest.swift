/// What a live query asks for: the objects of a model that satisfy a predicate, in an order,
/// optionally a page of them.
///
/// ```swift
/// let request = ResultsRequest("Task", where: "done == false AND priority > $0", [2],
///                              sortedBy: ["dueDate", .descending("priority")], limit: 10)
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
    /// How many objects to skip, in order, as `OFFSET(N)`: the first page starts at 0.
    public var offset: Int
    /// At most this many objects after ``offset``, as `LIMIT(N)`; nil for every one. Each
    /// evaluation takes the page again, so an object inserted before it pushes the last out.
    public var limit: Int?

    /// A request for the objects of `model` that satisfy `predicate` (every object when nil),
    /// with `$0`, `$1`, ... bound to `arguments`, in the order of `sort`, the first `offset`
    /// skipped and at most `limit` kept. Arguments the predicate does not use (any, without a
    /// predicate) are a `QueryError` when the request is evaluated, as for any statement.
    public init(_ model: String, where predicate: String? = nil, _ arguments: [Value] = [],
                sortedBy sort: [SortKey] = [], offset: Int = 0, limit: Int? = nil) {
        self.model = model
        self.predicate = predicate
        self.arguments = arguments
        self.sort = sort
        self.offset = offset
        self.limit = limit
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

    /// The page of the matching objects in `snapshot`.
    func results(in snapshot: Snapshot) throws -> Results {
        var results = try sortedResults(in: snapshot)
        if offset > 0 { results = results.offset(offset) }
        if let limit { results = results.prefix(limit: limit) }
        return results
    }

    /// Every matching object in `snapshot` (no page taken), sorted by `keyPath` first when
    /// given.
    func sortedResults(in snapshot: Snapshot, sectionedBy keyPath: String? = nil) throws -> Results {
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
