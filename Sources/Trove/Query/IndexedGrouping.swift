/// `GROUP` on one indexed key path, streamed from its index: the index holds the objects in
/// the order of the groups' values, so each run of equal keys is one group, met in the order
/// groups print in. Nothing is hashed or sorted (unless SORT asks) and no record is read.
///
/// Used when the rows hold only the key and `@count`, or when LIMIT without SORT stops the
/// walk early: other aggregates read each object's record, and reading records in the
/// index's order (one tree descent each) costs more than the general path's scan in key order
/// and its hash of the groups.
///
/// The keys must hold the values whole and in SORT's order (see `IndexKey.value(of:as:)`):
/// a cut or non-ASCII string, or a NaN, leaves the query to the general path. Objects are
/// those of a predicate the planner answers from indexes; a scan's predicate is left to the
/// general path too, which reads each record once in key order rather than in the index's.
extension BoundGrouping {
    /// The rows and plan from the index of the GROUP key path; nil when it cannot give them.
    func streamedRows(model: ModelLayout, predicate: BoundPredicate?, predicateText: String?,
                      executor: QueryExecutor) throws -> (rows: QueryRows, plan: QueryPlan)? {
        let snapshot = executor.snapshot
        guard keys.count == 1, !readsObjects || (sort.isEmpty && limit != nil),
              let walk = try IndexWalk(keys[0], model: model, snapshot: snapshot) else { return nil }
        if try walk.holdsNaN() { return nil }
        let total = try snapshot.objectsTree(model)?.count ?? 0
        var steps: [String] = []
        // The objects grouped: all, or the planner's index candidates, the unsure ones tested.
        var matches: Set<UInt64>?
        var unsure: Set<UInt64> = []
        var test: ((RecordView, UInt64) throws -> Bool)?
        if let predicate {
            var planner = QueryPlanner(snapshot: snapshot, model: model)
            planner.prefersIndexes = executor.prefersIndexes
            let (access, _) = try planner.accessPath(for: predicate)
            switch access {
            case .none:
                matches = []
            case .indexes(_, let candidates):
                // Walking the whole index pays off for many candidates only.
                guard executor.prefersIndexes || candidates.count * Self.streamedShare >= total else { return nil }
                matches = Set(candidates.matches)
                unsure = Set(candidates.unsure)
                if !unsure.isEmpty { test = try PredicateEvaluator(snapshot: snapshot).compile(predicate) }
                steps += QueryPlanner.describe(access, model: model).1
            default:
                return nil
            }
            if let predicateText { steps.append("FILTER \(predicateText)" + (unsure.isEmpty ? " (decided by the index)" : "")) }
        }
        steps.append("SCAN \(model.name) \(walk.usingText) (in GROUP order)")
        let reader = KeyPathReader(snapshot: snapshot)
        let readers = try aggregateReaders(reader)
        let tree = try reader.tree(model)
        let readsObjects = self.readsObjects
        let zeroes = walk.property.type == .double || walk.property.type == .float
        // Groups past OFFSET + LIMIT are not needed when the groups are not sorted.
        let needed = sort.isEmpty ? limit.map { offset > Int.max - $0 ? Int.max : offset + $0 } : nil
        let readKey = try reader.valueReader(keys[0])
        var groups: [Group] = []
        // The run of equal keys walked, its value, and its group once an object of it passes.
        var runKey: [UInt8]?
        var runValue = Value.null
        var current: Group?
        var examined = 0
        var unordered = false
        try walk.walk(IndexWalk.everything) { valueKey, objectKey in
            examined += 1
            if runKey == nil || !runKey!.elementsEqual(valueKey) {
                if let group = current {
                    groups.append(group)
                    current = nil
                    if let needed, groups.count >= needed { return false }
                }
                guard let value = walk.value(valueKey) else { unordered = true; return false }
                runKey = Array(valueKey)
                runValue = value
            }
            let sure = matches?.contains(objectKey) ?? true
            if !sure && !unsure.contains(objectKey) { return true }
            // A zero's sign is in its records: the group shows its first object's, as the
            // general path does.
            let isZero = zeroes && (runValue == .double(0) || runValue == .float(0))
            if sure && !readsObjects && !(isZero && current == nil) {
                if current == nil { current = group([runValue]) }
                current!.count += 1
                return true
            }
            _ = try reader.withRecord(tree, objectKey) { record in
                if !sure, let test, try !test(record, objectKey) { return }
                if current == nil { current = group([isZero ? try readKey(record, objectKey) : runValue]) }
                try add(record, objectKey, to: &current!, readers)
            }
            return true
        }
        if let group = current { groups.append(group) }
        if unordered { return nil }
        let rows = try finish(groups, snapshot: snapshot)
        steps.append("GROUP \(keys[0].text) (the index's runs of equal keys: nothing hashed or sorted\(readsObjects || !unsure.isEmpty ? "" : ", reads no object"))")
        if !sort.isEmpty {
            steps.append("SORT groups by " + sort.map { "\(columns[$0.column].name) \($0.ascending ? "ASC" : "DESC")" }.joined(separator: ", "))
        }
        if offset > 0 { steps.append("OFFSET \(offset) groups") }
        if let limit { steps.append("LIMIT \(limit) groups" + (sort.isEmpty ? " (stops early)" : "")) }
        let plan = QueryPlan(model: model.name, access: walk.access, steps: executor.describesPlan ? steps : [],
                             estimatedRows: total, examinedRows: examined, actualRows: rows.count,
                             isDecidedByIndex: unsure.isEmpty)
        return (rows, plan)
    }

    /// The index is walked whole when the predicate's candidates are at least one object in
    /// this many.
    static let streamedShare = 8
}
