/// Candidates found from the far end of a to-one link: `team.name == "Core"` first finds the
/// teams named Core (by their own index, or by scanning a model much smaller than this one),
/// then, through the backlink index, the objects whose `team` points at them.
///
/// Only for comparisons that are false on null: an object whose link is null reads the path
/// as nil, has no backlink entry, and must not match. When the comparison is the whole
/// predicate the candidates are the answer; otherwise the caller checks each against the rest.
final class LinkedScan {
    /// The first hop: a to-one link of the queried model.
    let link: PropertyLayout
    /// The comparison re-rooted at the link's target model.
    let tail: PathComparison
    let summary: String
    /// The matching objects of the target model, found while planning.
    let targets: [UInt64]

    private init(link: PropertyLayout, tail: PathComparison, summary: String, targets: [UInt64]) {
        self.link = link
        self.tail = tail
        self.summary = summary
        self.targets = targets
    }

    /// The scan serving `c` on `model`, with its estimated candidate count, or nil when it
    /// does not apply or would not beat reading `cap` objects.
    static func plan(_ c: PathComparison, model: ModelLayout, snapshot: Snapshot, cap: Int,
                     prefersIndexes: Bool) throws -> (LinkedScan, estimate: Int)? {
        guard let link = c.path.hops.first, link.isLink, link.model === model, c.path.hopsAreToOne,
              let target = link.target, rejectsNull(c) else { return nil }
        var tail = c
        tail.path.hops.removeFirst()
        let sourceTotal = try snapshot.objectsTree(model)?.count ?? 0
        let targetTotal = try snapshot.objectsTree(target)?.count ?? 0
        // Finding the targets must cost well under the scan it replaces.
        var planner = QueryPlanner(snapshot: snapshot, model: target)
        planner.prefersIndexes = prefersIndexes
        let (access, _) = try planner.accessPath(for: .path(tail))
        if case .scan = access, !prefersIndexes, targetTotal * QueryPlanner.scanCostRatio > sourceTotal { return nil }
        let executor = QueryExecutor(snapshot: snapshot, prefersIndexes: prefersIndexes, describesPlan: false)
        let targets = try executor.run(model: target, predicate: .path(tail), predicateText: nil,
                                       sort: [], distinct: [], limit: nil).results.keys
        let perTarget = max(1, sourceTotal / max(1, targetTotal))
        let estimate = targets.count.multipliedReportingOverflow(by: perTarget).overflow ? Int.max : targets.count * perTarget
        guard estimate < cap || prefersIndexes else { return nil }
        let summary = "\(c.path.text) \(c.op.symbol) \(c.constant)"
        return (LinkedScan(link: link, tail: tail, summary: summary, targets: targets), estimate)
    }

    /// The keys of the objects whose link points at a matching target, ascending (insertion
    /// order, as a scan yields them). A to-one link names one target, so there are no repeats.
    func keys(in snapshot: Snapshot) throws -> [UInt64] {
        guard let target = link.target else { return [] }
        var keys: [UInt64] = []
        for t in targets { try snapshot.appendBacklinks(to: target, key: t, from: link, into: &keys) }
        if targets.count > 1 { keys.sort() }
        return keys
    }

    /// Whether the comparison is false whenever the path reads nil.
    private static func rejectsNull(_ c: PathComparison) -> Bool {
        guard c.quantifier == .any else { return false }
        switch c.op {
        case .notEqual: return false
        case .in:
            guard case .list(let items) = c.constant else { return false }
            return !items.contains(.null)
        default:
            if case .null = c.constant { return false }
            if case .list(let items) = c.constant, items.contains(.null) { return false }
            return true
        }
    }
}
