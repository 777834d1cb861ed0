/// What a live query asks for: the objects of a model that satisfy a predicate, in an order.
///
/// ```swift
/// let request = ResultsRequest("Task", where: "done == false AND priority > $0", [2],
///                              sortedBy: [QuerySortDescriptor(QueryKeyPath("dueDate"))])
/// ```
public struct ResultsRequest: Sendable, Hashable {
    public var model: String
    /// A predicate in the query language, or nil for every object.
    public var predicate: String?
    /// The values of `$0`, `$1`, ... in ``predicate``.
    public var arguments: [Value]
    /// Most significant first.
    public var sort: [QuerySortDescriptor]

    public init(_ model: String, where predicate: String? = nil, _ arguments: [Value] = [],
                sortedBy sort: [QuerySortDescriptor] = []) {
        self.model = model
        self.predicate = predicate
        self.arguments = arguments
        self.sort = sort
    }

    /// The sort keys, with `keyPath` first (ascending unless the first key already is it).
    func sort(sectionedBy keyPath: String?) -> [QuerySortDescriptor] {
        guard let keyPath else { return sort }
        if let first = sort.first, first.keyPath.dotted == keyPath { return sort }
        return [QuerySortDescriptor(QueryKeyPath(keyPath))] + sort
    }

    /// The matching objects in `snapshot`, sorted by `keyPath` first when given.
    func results(in snapshot: Snapshot, sectionedBy keyPath: String? = nil) throws -> Results {
        var results = if let predicate {
            try snapshot.objects(model, where: predicate, arguments: arguments)
        } else {
            try snapshot.objects(model)
        }
        let keys = sort(sectionedBy: keyPath)
        if !keys.isEmpty {
            results = try results.sorted(by: keys.map { (keyPath: $0.keyPath.dotted, ascending: $0.ascending) })
        }
        return results
    }
}

extension QueryKeyPath {
    /// `a.b.c`, without a variable.
    var dotted: String { names.joined(separator: ".") }
}
