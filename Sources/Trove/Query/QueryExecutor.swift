import TroveStorage

/// Runs query statements on a snapshot: binds them, plans the access, checks candidates
/// against the compiled predicate and orders what matches.
///
/// The access paths, when each applies, and the test that holds it to the reference evaluator
/// (`QueryReference.swift`, which decodes every object) or to a path so held:
///
/// | path | applies when | held by |
/// | --- | --- | --- |
/// | point lookup (`PointLookup`) | a cached template of one `==` on an indexed property the keys decide | `PreparedLookupTests.aTemplateOfOneIndexedEqualityAnswersEveryArgumentAsAScanDoes` |
/// | range lookup (`RangeLookup`) | a cached template of ordering comparisons on one indexed property | `PreparedLookupTests.aTemplateOfOneIndexedRangeAnswersEveryArgumentAsAScanDoes` |
/// | nothing read | `LIMIT(0)`, or a predicate the planner proves false | `QueryPlannerTests.anAlwaysFalsePredicateReadsNothing` |
/// | index candidates | the planner picks a primary-key or index range (or a union); no SORT or DISTINCT; records read only for entries the keys leave unsure | `QueryDifferentialTests.randomPredicatesAgreeWithTheReferenceEvaluator` (indexes, every index) |
/// | backlinks | one to-one path comparison false on null (`team.name == 'x'`); no SORT or DISTINCT | `QueryPlannerTests.aComparisonThroughAToOneLinkStartsFromTheLinkedObjects`, and the random predicates |
/// | filtered scan | no index applies; no SORT, DISTINCT or LIMIT: slot ranges, ASCII string tests or the compiled predicate per record | `QueryDifferentialTests.randomPredicatesAgreeWithTheReferenceEvaluator` (no indexes), `ScanFastPathTests.rangesOfFixedWidthSlotsMatchTheDecodedValues` |
/// | ordered scan, top-k | SORT, DISTINCT or LIMIT over a scan (OFFSET gathers `offset + limit`, then drops the first `offset` keys); raw slot rows when every sort key is a fixed-width slot | `QueryDifferentialTests.randomStatementsSortDistinctOffsetAndLimitLikeTheReference`, `ScanFastPathTests.rawSortKeysOrderLikeTheGeneralPath` |
/// | ordered candidates | SORT, DISTINCT or LIMIT over index candidates or backlinks, in key order | `QueryDifferentialTests.randomStatementsSortDistinctOffsetAndLimitLikeTheReference` (indexes, every index) |
/// | refine | `Results.filter`, `sorted(by:)`, `distinct(by:)`, `offset(_:)` over keys already found | `QueryDifferentialTests.refinedResultsAgreeWithTheReference` |
/// | index order (`IndexOrderedKeys`) | SORT on one indexed property or the primary key, no DISTINCT, no predicate or one that property's index decides (`QueryPlanner.scan(servingAll:on:)`, its ranges walked): OFFSET skips entries, LIMIT stops the walk, no record read | `QuestionPlanDifferentialTests.pagesAndProjectionsAgreeWithTheScan`, `.filteredPagesInIndexOrderAgreeWithTheScan` (indexes, every index) |
/// | projection (`BoundProjection`) | SELECT over the keys any path found: only the selected properties of each object are decoded, the records read with one forward cursor (`KeyOrderRecords`); a repeated statement without arguments reuses its binding (`BoundProjectedQuery`, `ProjectedQueryCacheTests`); a SORT naming an item that is no key path (a list aggregate) orders the matches by the items' values | `QuestionPlanDifferentialTests.pagesAndProjectionsAgreeWithTheScan`, `QuestionTests`, `QuestionOrderAndNullTests` |
/// | count from the index | `count MODEL where P` on index candidates the keys decide, however many: entries counted, no record read (`count MODEL`: the objects tree's count) | `QuestionPlanDifferentialTests.aggregatesAndCountsAgreeWithTheScan`, `QuestionOrderAndNullTests` |
/// | aggregate from the index (`IndexedAggregate`) | `sum`/`avg` (index keys added) or `min`/`max` (one end of the index) of an indexed number or date, with no predicate or one the same index serves | `QuestionPlanDifferentialTests.aggregatesAndCountsAgreeWithTheScan` (indexes, every index) |
/// | aggregate over matches (`BoundAggregateStatement.run`) | an aggregate statement the index cannot answer alone: over a scan, each record that passes adds its value as the scan reads it; over index candidates, one walk reads the matches' records in key order (`ReadTransaction.forEachValue(_:forKeys:_:)`) | `QuestionPlanDifferentialTests.aggregatesAndCountsAgreeWithTheScan` |
/// | index end (`IndexEnd`) | a repeated `min`/`max` of an indexed integer or date, no predicate, its binding cached: one descent to the first non-null or the last key | `AggregateStatementCacheTests` |
/// | streamed groups (`IndexedGrouping`) | GROUP on one indexed key path whose rows hold only the key and `@count` (or that LIMIT without SORT stops), no predicate or index candidates (at least one object in 8): runs of equal keys are the groups, in order | `QuestionPlanDifferentialTests.groupsAgreeWithTheScan` (indexes, every index) |
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

    /// Runs `text` (`Model [where P] [SORT(...)] [DISTINCT(...)] [OFFSET(n)] [LIMIT(n)]`), a query
    /// whose results are objects.
    func run(_ text: String, arguments: [Value]) throws -> (results: Results, plan: QueryPlan) {
        try snapshot.checkLive()
        let query = try ParsedQueryCache.shared.query(text)
        try QueryParameters.check(arguments, of: query.predicate, statement: text)
        let binder = QueryBinder(layout: snapshot.layout, arguments: arguments, statement: text)
        if let item = query.select.first {
            throw binder.error(.unexpectedToken, "SELECT makes rows, not objects: run this query with rows(_:)", at: item.range.start)
        }
        if let key = query.group.first {
            throw binder.error(.unexpectedToken, "GROUP makes rows, not objects: run this query with rows(_:)", at: key.range.start)
        }
        let model = try binder.model(query.model)
        return try run(query, model: model, binder: binder)
    }

    /// Runs the objects part of `query`: its predicate, SORT, DISTINCT and LIMIT.
    func run(_ query: Query, model: ModelLayout, binder: QueryBinder) throws -> (results: Results, plan: QueryPlan) {
        let (predicate, sort, distinct) = try Self.bind(query, model: model, binder: binder)
        return try run(model: model, predicate: predicate, predicateText: query.predicate?.description as String?,
                       sort: sort, distinct: distinct, offset: query.offset, limit: query.limit)
    }

    /// The predicate, SORT and DISTINCT of `query` bound to `model`.
    static func bind(_ query: Query, model: ModelLayout, binder: QueryBinder) throws
        -> (predicate: BoundPredicate?, sort: [(BoundKeyPath, Bool)], distinct: [BoundKeyPath]) {
        try bind(query, model: model, binder: binder) {
            try binder.orderingKeyPath($0, model: model, clause: "SORT", allowsLinks: false)
        }
    }

    /// The predicate, SORT and DISTINCT of `query` bound to `model`, each SORT key by `sortKey`
    /// (a projection's SORT may name its items), in the order they are written.
    static func bind<Key>(_ query: Query, model: ModelLayout, binder: QueryBinder, sortKey: (QueryKeyPath) throws -> Key) throws
        -> (predicate: BoundPredicate?, sort: [(Key, Bool)], distinct: [BoundKeyPath]) {
        let predicate = try query.predicate.map { try binder.bind($0, to: model) }
        let sort = try query.sort.map { (try sortKey($0.keyPath), $0.ascending) }
        let distinct = try query.distinct.map { path in
            do {
                return try binder.orderingKeyPath(path, model: model, clause: "DISTINCT", allowsLinks: true)
            } catch let error as QueryError where error.kind == .unknownProperty {
                guard let message = query.distinctNamingItem(path) else { throw error }
                throw binder.error(.invalidKeyPath, message, at: path.range.start)
            }
        }
        return (predicate, sort, distinct)
    }

    /// Runs a bound query over every object of `model`.
    ///
    /// `OFFSET` rides on `LIMIT`: every path gathers the first `offset + limit` results and
    /// drops the first `offset` of them. Results are keys, so a skipped object is never
    /// decoded; on index candidates the keys decide, it is never read either. `planned` is
    /// the planner's access for `predicate`, when the caller has chosen it already.
    func run(model: ModelLayout, predicate: BoundPredicate?, predicateText: @autoclosure () -> String?,
             sort: [(BoundKeyPath, Bool)], distinct: [BoundKeyPath], offset: Int = 0,
             limit requestedLimit: Int?, access planned: (QueryPlanner.AccessPath, Int)? = nil) throws -> (results: Results, plan: QueryPlan) {
        // How many results the paths gather: the skipped ones and the returned ones.
        let limit = requestedLimit.map { offset > Int.max - $0 ? Int.max : offset + $0 }
        if distinct.isEmpty, !sort.isEmpty, requestedLimit != 0,
           let (keys, walk, scan, examined) = try keysInIndexOrder(model: model, predicate: predicate, sort: sort,
                                                                   offset: offset, limit: requestedLimit) {
            let total = try snapshot.objectsTree(model)?.count ?? 0
            var steps: [String] = []
            if describesPlan {
                if let scan {
                    steps = ["SEARCH \(model.name) \(walk.usingText) (\(scan.summary), in SORT order)"]
                    if let predicateText = predicateText() { steps.append("FILTER \(predicateText) (decided by the index)") }
                } else {
                    steps = ["SCAN \(model.name) \(walk.usingText) (in SORT order)"]
                }
                steps.append("SORT \(sort[0].0.text) \(sort[0].1 ? "ASC" : "DESC") (the index's order: nothing sorted)")
                if offset > 0 { steps.append("OFFSET \(offset) (skips index entries, reads no object)") }
                if let requestedLimit { steps.append("LIMIT \(requestedLimit) (stops early)") }
            }
            let plan = QueryPlan(model: model.name, access: walk.access, steps: steps, estimatedRows: total,
                                 examinedRows: examined, actualRows: keys.count, isDecidedByIndex: true)
            return (Results(snapshot: snapshot, model: model, keys: keys), plan)
        }
        var planner = QueryPlanner(snapshot: snapshot, model: model)
        planner.prefersIndexes = prefersIndexes
        let (access, estimate) = try planned ?? planner.accessPath(for: predicate)

        var examined = 0
        var decidedByIndex = false
        var keys: [UInt64]
        switch access {
        case _ where requestedLimit == 0:
            keys = []
        case .none:
            keys = []
        case .indexes(_, var candidates) where sort.isEmpty && distinct.isEmpty:
            // The index gives the keys; records are read only for entries it could not decide.
            candidates.normalize()
            examined = candidates.count
            decidedByIndex = candidates.unsure.isEmpty
            var found = candidates.matches
            if !candidates.unsure.isEmpty, let predicate {
                let evaluator = PredicateEvaluator(snapshot: snapshot)
                let test = try evaluator.compile(predicate)
                let tree = try evaluator.reader.tree(model)
                var passed: [UInt64] = []
                for key in candidates.unsure where try evaluator.reader.withRecord(tree, key, { try test($0, key) }) == true {
                    passed.append(key)
                }
                found = IndexCandidates.merged(found, passed)
            }
            if let limit, found.count > limit { found.removeLast(found.count - limit) }
            keys = found
        case .linked(let scan) where sort.isEmpty && distinct.isEmpty && Self.isOneComparison(predicate):
            // A lone to-one path comparison is decided by the backlinks: an object matches
            // exactly when its link points at a matching target, so no record is read.
            var found = try scan.keys(in: snapshot)
            examined = found.count
            decidedByIndex = true
            if let limit, found.count > limit { found.removeLast(found.count - limit) }
            keys = found
        case .scan where sort.isEmpty && distinct.isEmpty && limit == nil:
            // Every object, filtered, in key order: nothing to order, one test per record, and
            // comparisons of fixed-width slots, or one string comparison, tested in the loop itself.
            // One loop per kind of test, each holding its test unwrapped: a test unwrapped in
            // the loop would be retained and released per record.
            let tree = try snapshot.objectsTree(model)
            if let ranges = predicate.flatMap(SlotRanges.init(only:)) {
                (keys, examined) = try Self.filter(tree, snapshot, ranges)
            } else if let strings = predicate.flatMap(StringSlotTest.init(only:)) {
                (keys, examined) = try Self.filter(tree, snapshot, strings)
            } else if let test = try predicate.map(PredicateEvaluator(snapshot: snapshot).compile) {
                (keys, examined) = try Self.filter(tree, snapshot, CompiledRecordFilter(test: test))
            } else {
                (keys, examined) = try Self.filter(tree, snapshot, EveryRecord())
            }
        default:
            let evaluator = PredicateEvaluator(snapshot: snapshot)
            let test = try predicate.map(evaluator.compile)
            let ordering = try Self.ordering(evaluator.reader, sort: sort, distinct: distinct, limit: limit)
            switch access {
            case .none:
                break
            case .scan:
                // Sorted on fixed-width slots and filtered by fixed-width ranges, if at all: the
                // rows take raw words straight from the walk (`SORT(score DESC) LIMIT(100)`).
                if let rows = ordering.rawRows {
                    if predicate == nil {
                        examined = try Self.feed(rows, try snapshot.objectsTree(model), snapshot, EveryRecord())
                        break
                    }
                    if let ranges = predicate.flatMap(SlotRanges.init(only:)) {
                        examined = try Self.feed(rows, try snapshot.objectsTree(model), snapshot, ranges)
                        break
                    }
                }
                try snapshot.scan(model) { key, record in
                    examined += 1
                    if let test, try !test(record, key) { return true }
                    return try ordering.accept(record, key)
                }
            case .indexes(_, var candidates):
                candidates.normalize()
                let tree = try evaluator.reader.tree(model)
                // Key order, as a scan would produce: results without SORT keep insertion order.
                var i = 0, j = 0
                let matches = candidates.matches, unsure = candidates.unsure
                while i < matches.count || j < unsure.count {
                    let isMatch = j == unsure.count || (i < matches.count && matches[i] < unsure[j])
                    let key = isMatch ? matches[i] : unsure[j]
                    if isMatch { i += 1 } else { j += 1 }
                    examined += 1
                    let more = try evaluator.reader.withRecord(tree, key) { record in
                        if !isMatch, let test, try !test(record, key) { return true }
                        return try ordering.accept(record, key)
                    }
                    if more == false { break }
                }
            case .linked(let scan):
                let tree = try evaluator.reader.tree(model)
                for key in try scan.keys(in: snapshot) {
                    examined += 1
                    let more = try evaluator.reader.withRecord(tree, key) { record in
                        if let test, try !test(record, key) { return true }
                        return try ordering.accept(record, key)
                    }
                    if more == false { break }
                }
            }
            keys = ordering.finish()
        }
        if offset > 0 { keys.removeFirst(Swift.min(offset, keys.count)) }

        guard describesPlan else {
            let plan = QueryPlan(model: model.name, access: .scan, steps: [], estimatedRows: estimate,
                                 examinedRows: examined, actualRows: keys.count, isDecidedByIndex: decidedByIndex)
            return (Results(snapshot: snapshot, model: model, keys: keys), plan)
        }
        var (planAccess, steps) = QueryPlanner.describe(access, model: model)
        if let predicateText = predicateText(), predicate != nil {
            steps.append("FILTER \(predicateText)" + (decidedByIndex ? " (decided by the index)" : ""))
        }
        if !sort.isEmpty {
            let keys = sort.map { "\($0.0.text) \($0.1 ? "ASC" : "DESC")" }.joined(separator: ", ")
            steps.append("SORT \(keys)" + (distinct.isEmpty ? limit.map { " (top \($0))" } ?? "" : ""))
        }
        if !distinct.isEmpty { steps.append("DISTINCT \(distinct.map(\.text).joined(separator: ", "))") }
        if offset > 0 { steps.append("OFFSET \(offset)" + (decidedByIndex ? " (skips index entries, reads no object)" : "")) }
        if let requestedLimit { steps.append("LIMIT \(requestedLimit)" + (sort.isEmpty ? " (stops early)" : "")) }
        if case .none = access { planAccess = .none }
        let plan = QueryPlan(model: model.name, access: planAccess, steps: steps,
                             estimatedRows: estimate, examinedRows: examined, actualRows: keys.count,
                             isDecidedByIndex: decidedByIndex)
        return (Results(snapshot: snapshot, model: model, keys: keys), plan)
    }

    /// The keys of the objects in `tree` that pass, in key order, and how many were read.
    /// `Snapshot.scan`'s loop, written out here (and in `feed`): going through it costs the
    /// `CONTAINS[c]` and top-k scans 9% more instructions, one more closure call per record.
    private static func filter<F: RecordFilter>(_ tree: Tree?, _ snapshot: Snapshot, _ filter: F) throws -> ([UInt64], Int) {
        guard let tree else { return ([], 0) }
        var found: [UInt64] = []
        var examined = 0
        try snapshot.storageTx.forEach(tree) { k, v in
            let key = try Snapshot.objectKey(k)
            examined &+= 1
            if try filter.passes(try RecordView(v), key) { found.append(key) }
            return true
        }
        return (found, examined)
    }

    /// Hands raw sort rows the objects in `tree` that pass; returns how many were read.
    private static func feed<F: RecordFilter>(_ rows: RawSortRows, _ tree: Tree?, _ snapshot: Snapshot, _ filter: F) throws -> Int {
        guard let tree else { return 0 }
        var examined = 0
        try snapshot.storageTx.forEach(tree) { k, v in
            let key = try Snapshot.objectKey(k)
            let record = try RecordView(v)
            examined &+= 1
            if try filter.passes(record, key) { try rows.accept(record, key) }
            return true
        }
        return examined
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

    private static func isOneComparison(_ predicate: BoundPredicate?) -> Bool {
        if case .path? = predicate { return true }
        return false
    }
}
