/// Chooses how a query finds its candidate objects: a primary-key lookup, an index range, a
/// union of those for an `OR`, or a scan of every object.
///
/// Among the conjuncts of an `AND`, the most selective index wins, estimated by counting its
/// entries over the range (never counting past the best estimate so far, so a bad candidate
/// costs little). An index is used only when it is expected to produce a fraction of the
/// model's objects: reading a record by key costs several times what a scan pays per record.
struct QueryPlanner {
    /// How the candidates are found.
    enum AccessPath {
        case none
        case scan
        /// The union of index scans (one for a plain index lookup).
        case indexes([IndexScan])
        /// The objects linking to the matching objects of a linked model.
        case linked(LinkedScan)
    }

    let snapshot: Snapshot
    let model: ModelLayout
    /// Use any index that applies, however unselective (for tests of the index paths).
    var prefersIndexes = false

    /// An index must be expected to yield fewer than one object in this many to beat a scan.
    static let scanCostRatio = 4

    /// The access path for `predicate`, with the rows it is expected to produce.
    func accessPath(for predicate: BoundPredicate?) throws -> (AccessPath, estimate: Int) {
        let total = try snapshot.tree(model.objectsTree)?.count ?? 0
        guard let predicate else { return (.scan, total) }
        switch predicate {
        case .constant(false): return (.none, 0)
        case .constant(true): return (.scan, total)
        default: break
        }
        let cap = prefersIndexes ? Int.max : total / Self.scanCostRatio + 1
        guard let best = try bestAccess(predicate, cap: cap), best.estimate < cap || prefersIndexes else {
            return (.scan, total)
        }
        return (best.access, best.estimate)
    }

    /// The cheapest index access that yields every object satisfying `predicate`, if it is
    /// expected to produce fewer than `cap` objects.
    private func bestAccess(_ predicate: BoundPredicate, cap: Int) throws -> (access: AccessPath, estimate: Int)? {
        switch predicate {
        case .path(let comparison):
            guard let scan = IndexScan(comparison, model: model) else {
                guard let (linked, estimate) = try LinkedScan.plan(comparison, model: model, snapshot: snapshot,
                                                                    cap: cap, prefersIndexes: prefersIndexes) else { return nil }
                return (.linked(linked), estimate)
            }
            let estimate = scan.isPrimaryKey && scan.isExact ? scan.ranges.count : try scan.count(in: snapshot, cap: cap)
            return estimate < cap || prefersIndexes ? (.indexes([scan]), estimate) : nil
        case .and(let operands):
            var best: (access: AccessPath, estimate: Int)?
            for operand in operands {
                let limit = best.map { min(cap, $0.estimate) } ?? cap
                if let candidate = try bestAccess(operand, cap: limit), best == nil || candidate.estimate < best!.estimate {
                    best = candidate
                }
            }
            return best
        case .or(let operands):
            var scans: [IndexScan] = []
            var total = 0
            for operand in operands {
                guard let part = try bestAccess(operand, cap: prefersIndexes ? cap : cap - total),
                      case .indexes(let partScans) = part.access else { return nil }
                scans += partScans
                total += part.estimate
                if total >= cap && !prefersIndexes { return nil }
            }
            return (.indexes(scans), total)
        default:
            return nil
        }
    }

    /// The plan's description of an access path.
    static func describe(_ access: AccessPath, model: ModelLayout) -> (QueryPlan.Access, [String]) {
        switch access {
        case .none:
            return (.none, ["NOTHING TO READ (the predicate is always false)"])
        case .scan:
            return (.scan, ["SCAN \(model.name)"])
        case .indexes(let scans):
            let parts = scans.map { scan -> (QueryPlan.Access, String) in
                scan.isPrimaryKey
                    ? (.primaryKey(property: scan.property.name), "SEARCH \(model.name) USING PRIMARY KEY \(scan.property.name) (\(scan.summary))")
                    : (.index(property: scan.property.name), "SEARCH \(model.name) USING INDEX \(scan.property.name) (\(scan.summary))")
            }
            if parts.count == 1 { return (parts[0].0, [parts[0].1]) }
            return (.union(parts.map(\.0)), ["UNION OF \(parts.count) LOOKUPS"] + parts.map { "  " + $0.1 })
        case .linked(let scan):
            let target = scan.link.target?.name ?? "?"
            return (.backlinks(link: scan.link.name),
                    ["SEARCH \(target) FOR \(scan.summary) (\(scan.targets.count) found)",
                     "SEARCH \(model.name) USING BACKLINKS OF \(scan.link.name)"])
        }
    }
}
