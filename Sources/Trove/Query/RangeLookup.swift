/// A predicate whose comparisons are all ordering comparisons on one indexed property
/// (`name >= $0 AND name < $1`, `age BETWEEN {$0, $1}`), prepared once per bound template:
/// each run types the constants and reads the one index range they bound, without binding a
/// predicate or planning again.
///
/// Like ``PointLookup`` it answers only when the planner would choose that range and every
/// entry's key decides the comparisons; otherwise it returns nil and the general path answers.
struct RangeLookup {
    let model: ModelLayout
    /// The comparisons as bound in the template, with their constants' expressions (nil for
    /// a constant that reads no argument).
    private let comparisons: [PathComparison]
    private let constants: [QueryExpression?]

    /// The lookup for `predicate` (whose comparisons' constants are `constants`, in order), or
    /// nil when it is not a conjunction of ordering comparisons on one indexed property.
    init?(_ predicate: BoundPredicate, model: ModelLayout, constants: [QueryExpression?]) {
        let operands: [BoundPredicate] = if case .and(let operands) = predicate { operands } else { [predicate] }
        var comparisons: [PathComparison] = []
        for operand in operands {
            guard case .path(let c) = operand, c.op.isOrdering else { return nil }
            comparisons.append(c)
        }
        guard comparisons.count == constants.count, let p = IndexScan.indexedProperty(comparisons[0], model: model),
              comparisons.allSatisfy({ IndexScan.indexedProperty($0, model: model) === p }) else { return nil }
        self.model = model
        self.comparisons = comparisons
        self.constants = constants
    }

    /// The keys of the matching objects in key order, or nil when the general path must answer.
    func keys(_ binder: QueryBinder, in snapshot: Snapshot) throws -> [UInt64]? {
        var bound = comparisons
        for i in bound.indices {
            if let e = constants[i] { bound[i].constant = try binder.typedConstant(e, kind: bound[i].path.kind, op: bound[i].op) }
        }
        guard let scan = IndexScan(ordering: bound, model: model) else { return nil }
        // The planner's threshold: past it, a scan is the plan (see `QueryPlanner`).
        let cap = (try snapshot.objectsTree(model)?.count ?? 0) / QueryPlanner.scanCostRatio + 1
        var candidates = IndexCandidates()
        var read = 0
        guard try scan.collect(in: snapshot, cap: cap, into: &candidates, read: &read), candidates.unsure.isEmpty else { return nil }
        candidates.normalize()
        return candidates.matches
    }
}
