/// Runs query statements on a snapshot: binds them, plans the access, checks candidates
/// against the compiled predicate and orders what matches.
struct QueryExecutor {
    let snapshot: Snapshot
    /// Use any index that applies (for tests of the index paths).
    var prefersIndexes = false
    /// Build the plan's text (for `explain`); plain queries skip it.
    var describesPlan: Bool

    init(snapshot: Snapshot, prefersIndexes: Bool = false, describesPlan: Bool = true) {
        self.snapshot = snapshot
        self.prefersIndexes = prefersIndexes
        self.describesPlan = describesPlan
    }

    /// Runs `text` (`Model [where P] [SORT(...)] [DISTINCT(...)] [LIMIT(n)]`).
    func run(_ text: String, arguments: [Value]) throws -> (results: Results, plan: QueryPlan) {
        try snapshot.checkLive()
        let query = try ParsedQueryCache.shared.query(text)
        let binder = QueryBinder(layout: snapshot.layout, arguments: arguments, statement: text)
        let model = try binder.model(query.model)
        let predicate = try query.predicate.map { try binder.bind($0, to: model) }
        let sort = try query.sort.map { descriptor in
            (try binder.orderingKeyPath(descriptor.keyPath, model: model, clause: "SORT", allowsLinks: false), descriptor.ascending)
        }
        let distinct = try query.distinct.map {
            try binder.orderingKeyPath($0, model: model, clause: "DISTINCT", allowsLinks: true)
        }
        return try run(model: model, predicate: predicate, predicateText: query.predicate?.description as String?,
                       sort: sort, distinct: distinct, limit: query.limit)
    }

    /// Runs a bound query over every object of `model`.
    func run(model: ModelLayout, predicate: BoundPredicate?, predicateText: @autoclosure () -> String?,
             sort: [(BoundKeyPath, Bool)], distinct: [BoundKeyPath], limit: Int?) throws -> (results: Results, plan: QueryPlan) {
        let evaluator = PredicateEvaluator(snapshot: snapshot)
        let test = try predicate.map(evaluator.compile)
        let ordering = try Self.ordering(evaluator.reader, sort: sort, distinct: distinct, limit: limit)
        var planner = QueryPlanner(snapshot: snapshot, model: model)
        planner.prefersIndexes = prefersIndexes
        let (access, estimate) = try planner.accessPath(for: predicate)

        var examined = 0
        if !ordering.isSaturated {
            switch access {
            case .none:
                break
            case .scan:
                try snapshot.scan(model) { key, record in
                    examined += 1
                    if let test, try !test(record, key) { return true }
                    return try ordering.accept(record, key)
                }
            case .indexes, .linked:
                var candidates = Set<UInt64>()
                if case .indexes(let scans) = access {
                    for scan in scans { try scan.collect(in: snapshot, into: &candidates) }
                } else if case .linked(let scan) = access {
                    try scan.collect(in: snapshot, into: &candidates)
                }
                let tree = try evaluator.reader.tree(model)
                // Key order, as a scan would produce: results without SORT keep insertion order.
                for key in candidates.sorted() {
                    examined += 1
                    let more = try evaluator.reader.withRecord(tree, key) { record in
                        if let test, try !test(record, key) { return true }
                        return try ordering.accept(record, key)
                    }
                    if more == false { break }
                }
            }
        }
        let keys = ordering.finish()

        guard describesPlan else {
            let plan = QueryPlan(model: model.name, access: .scan, steps: [], estimatedRows: estimate,
                                 examinedRows: examined, actualRows: keys.count)
            return (Results(snapshot: snapshot, model: model, keys: keys), plan)
        }
        var (planAccess, steps) = QueryPlanner.describe(access, model: model)
        if let predicateText = predicateText(), predicate != nil { steps.append("FILTER \(predicateText)") }
        if !sort.isEmpty {
            let keys = sort.map { "\($0.0.text) \($0.1 ? "ASC" : "DESC")" }.joined(separator: ", ")
            steps.append("SORT \(keys)" + (distinct.isEmpty ? limit.map { " (top \($0))" } ?? "" : ""))
        }
        if !distinct.isEmpty { steps.append("DISTINCT \(distinct.map(\.text).joined(separator: ", "))") }
        if let limit { steps.append("LIMIT \(limit)" + (sort.isEmpty ? " (stops early)" : "")) }
        if case .none = access { planAccess = .none }
        let plan = QueryPlan(model: model.name, access: planAccess, steps: steps,
                             estimatedRows: estimate, examinedRows: examined, actualRows: keys.count)
        return (Results(snapshot: snapshot, model: model, keys: keys), plan)
    }

    /// Filters, orders and limits the objects `keys` of `model`, in their current order.
    func refine(model: ModelLayout, keys: [UInt64], predicate: BoundPredicate?,
                sort: [(BoundKeyPath, Bool)], distinct: [BoundKeyPath], limit: Int?) throws -> [UInt64] {
        let evaluator = PredicateEvaluator(snapshot: snapshot)
        let test = try predicate.map(evaluator.compile)
        let ordering = try Self.ordering(evaluator.reader, sort: sort, distinct: distinct, limit: limit)
        guard !ordering.isSaturated else { return [] }
        let tree = try evaluator.reader.tree(model)
        for key in keys {
            let more = try evaluator.reader.withRecord(tree, key) { record in
                if let test, try !test(record, key) { return true }
                return try ordering.accept(record, key)
            }
            if more == false { break }
        }
        return ordering.finish()
    }

    private static func ordering(_ reader: KeyPathReader, sort: [(BoundKeyPath, Bool)], distinct: [BoundKeyPath],
                                 limit: Int?) throws -> ResultsOrdering {
        try ResultsOrdering.make(reader, sort: sort, distinct: distinct, limit: limit)
    }
}
