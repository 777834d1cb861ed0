/// Chooses how a query finds its candidate objects: a primary-key lookup, an index range, a
/// union of those for an `OR`, or a scan of every object.
///
/// Among the conjuncts of an `AND`, the most selective index wins, found by collecting its
/// entries over the range (never more than the best so far, so a bad candidate costs little);
/// the winner's entries are the candidates, read once. An index is used only when it is
/// expected to produce a fraction of the model's objects: reading a record by key costs
/// several times what a scan pays per record.
struct QueryPlanner {
    /// How the candidates are found.
    enum AccessPath {
        case none
        case scan
        /// The union of index scans (one for a plain index lookup), with what they found.
        case indexes([IndexScan], IndexCandidates)
        /// The objects linking to the matching objects of a linked model.
        case linked(LinkedScan)
    }

    let snapshot: Snapshot
    let model: ModelLayout
    /// Use any index that applies, however unselective (for tests of the index paths).
    var prefersIndexes = false
    /// Whether the caller reads the record of each match. A count does not: it counts the
    /// entries the index keys decide and reads only those they leave unsure, so an index
    /// whose keys decide every candidate is cheaper than a scan however many match.
    var readsMatches = true

    /// An index must be expected to yield fewer than one object in this many to beat a scan.
    static let scanCostRatio = 4

    /// The access path for `predicate`, with the rows it is expected to produce.
    func accessPath(for predicate: BoundPredicate?) throws -> (AccessPath, estimate: Int) {
        let total = try snapshot.objectsTree(model)?.count ?? 0
        guard let predicate else { return (.scan, total) }
        switch predicate {
        case .constant(false): return (.none, 0)
        case .constant(true): return (.scan, total)
        default: break
        }
        let cap = prefersIndexes ? Int.max : total / Self.scanCostRatio + 1
        // The cap weighs record reads, so it still applies to candidates the keys leave unsure:
        // a count reads those records alone.
        guard let best = try bestAccess(predicate, cap: cap, whole: true),
              best.estimate < cap || prefersIndexes || !readsMatches && Self.unsure(best.access) < cap else {
            return (.scan, total)
        }
        return (best.access, best.estimate)
    }

    /// How many of `access`'s candidates are left to check against their records.
    private static func unsure(_ access: AccessPath) -> Int {
        if case .indexes(_, let candidates) = access { return candidates.unsure.count }
        return .max
    }

    /// The one scan of the index of `property` (or the primary key) that serves the whole of
    /// `predicate`, a comparison or an `AND` of ordering comparisons on it, however many objects
    /// it holds; nil when the predicate needs anything else. Its `entryCheck` says whether the
    /// keys decide it.
    func scan(servingAll predicate: BoundPredicate, on property: PropertyLayout) -> IndexScan? {
        let scan: IndexScan?
        switch predicate {
        case .path(let c):
            scan = IndexScan(c, model: model)
        case .and(let operands):
            var comparisons: [PathComparison] = []
            for operand in operands {
                guard case .path(let c) = operand, c.op.isOrdering else { return nil }
                comparisons.append(c)
            }
            scan = IndexScan(ordering: comparisons, model: model)
        default:
            return nil
        }
        guard let scan, scan.property === property else { return nil }
        return scan
    }

    /// The cheapest index access that yields every object satisfying `predicate`, if it
    /// yields fewer than `cap` objects. Its candidates' matches satisfy `predicate` itself.
    /// `whole`: `predicate` is all the query asks, so when no match's record is read, an access
    /// that serves it alone is read past `cap` while its keys leave fewer than `cap` candidates
    /// unsure; a conjunct of an `AND` over several properties leaves the others to check on
    /// records, so it never is, nor is a scan whose keys decide nothing.
    private func bestAccess(_ predicate: BoundPredicate, cap: Int, whole: Bool) throws -> (access: AccessPath, estimate: Int)? {
        let counts = whole && !readsMatches
        switch predicate {
        case .path(let comparison):
            guard let scan = IndexScan(comparison, model: model) else {
                guard let (linked, estimate) = try LinkedScan.plan(comparison, model: model, snapshot: snapshot,
                                                                    cap: cap, prefersIndexes: prefersIndexes) else { return nil }
                return (.linked(linked), estimate)
            }
            return try collect(scan, cap: cap, whole: whole)
        case .and(let operands):
            var best: (access: AccessPath, estimate: Int)?
            var decidesAll = false
            func consider(_ candidate: (access: AccessPath, estimate: Int)?, covering covered: Int) {
                guard let candidate, best == nil || candidate.estimate < best!.estimate else { return }
                best = candidate
                decidesAll = covered == operands.count
            }
            // Ranges on one property (`name >= a AND name < b`) are one scan of the intersection.
            var merged: [Int] = []
            for group in orderingGroups(operands) {
                let limit = best.map { min(cap, $0.estimate) } ?? cap
                if let scan = IndexScan(ordering: group.map { $0.comparison }, model: model) {
                    let alone = group.count == operands.count
                    consider(try collect(scan, cap: alone ? cap : limit, whole: whole && alone), covering: group.count)
                    merged += group.map(\.index)
                }
            }
            // A range alone reads a superset of the merged range it belongs to.
            for (i, operand) in operands.enumerated() where !merged.contains(i) {
                let limit = best.map { min(cap, $0.estimate) } ?? cap
                consider(try bestAccess(operand, cap: limit, whole: false), covering: 1)
            }
            // The other conjuncts remain to be checked on every candidate.
            if !decidesAll, let chosen = best, case .indexes(let scans, var candidates) = chosen.access {
                candidates.demote()
                best = (.indexes(scans, candidates), chosen.estimate)
            }
            return best
        case .or(let operands):
            var scans: [IndexScan] = []
            var union = IndexCandidates()
            var total = 0
            // What the cap weighs: the entries read, or for a count the candidates left unsure.
            var spent = 0
            for operand in operands {
                guard let part = try bestAccess(operand, cap: prefersIndexes ? cap : cap - spent, whole: whole),
                      case .indexes(let partScans, let candidates) = part.access else { return nil }
                scans += partScans
                union.formUnion(candidates)
                total += part.estimate
                spent = counts ? union.unsure.count : total
                if spent >= cap && !prefersIndexes { return nil }
            }
            return (.indexes(scans, union), total)
        default:
            return nil
        }
    }

    /// The scan with its entries and the number it read, or nil once that reaches `cap`.
    /// `whole`: the scan serves all a count asks, so when its keys can decide, its entries are
    /// read to the end and `cap` bounds the candidates they leave unsure instead.
    private func collect(_ scan: IndexScan, cap: Int, whole: Bool = false) throws -> (access: AccessPath, estimate: Int)? {
        var candidates = IndexCandidates()
        var read = 0
        let lifted = whole && !readsMatches && !prefersIndexes && scan.keysCanDecide
        guard try scan.collect(in: snapshot, cap: prefersIndexes || lifted ? Int.max : cap, unsureCap: lifted ? cap : .max,
                               into: &candidates, read: &read) else { return nil }
        // A primary key holds each value once: its lookups are estimated before reading.
        return (.indexes([scan], candidates), scan.isPrimaryKey && scan.isPointLookup ? scan.ranges.count : read)
    }

    /// The ordering comparisons among `operands`, grouped by the indexed property they read,
    /// for properties compared more than once.
    private func orderingGroups(_ operands: [BoundPredicate]) -> [[(index: Int, comparison: PathComparison)]] {
        var groups: [[(index: Int, comparison: PathComparison)]] = []
        var properties: [PropertyLayout] = []
        for (index, operand) in operands.enumerated() {
            guard case .path(let c) = operand, c.op.isOrdering, let p = IndexScan.indexedProperty(c, model: model) else { continue }
            if let i = properties.firstIndex(where: { $0 === p }) {
                groups[i].append((index, c))
            } else {
                properties.append(p)
                groups.append([(index, c)])
            }
        }
        return groups.filter { $0.count > 1 }
    }

    /// The plan's description of an access path.
    static func describe(_ access: AccessPath, model: ModelLayout) -> (QueryPlan.Access, [String]) {
        switch access {
        case .none:
            return (.none, ["NOTHING TO READ (the predicate is always false)"])
        case .scan:
            return (.scan, ["SCAN \(model.name)"])
        case .indexes(let scans, _):
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
