import TroveStorage

/// A predicate that is one equality on an indexed property (`name == $0`), prepared once per
/// bound template: each run types the constant, encodes it on the stack and reads the
/// matching entries of the index, without binding a predicate or planning again.
///
/// It answers only when the index keys decide the comparison (an ASCII string held whole in
/// its key, an integer, a date...) and the planner would also choose the index (fewer
/// matches than a scan's threshold); otherwise it returns nil and the query takes the
/// general path, so `explain` and the results never disagree with it.
///
/// A class: a template holds it, and a query copies it out on every run.
final class PointLookup {
    let model: ModelLayout
    let property: PropertyLayout
    let isPrimaryKey: Bool
    /// The comparison's constant as written (a `$n` parameter or a literal).
    private let constant: QueryExpression?
    /// The typed constant, when it reads no argument.
    private let literal: Value
    private let kind: ValueKind

    /// The lookup for `predicate` bound against `model`, or nil when it is not one equality
    /// an index serves. `constant` is the expression of its constant when it reads arguments.
    init?(_ predicate: BoundPredicate, model: ModelLayout, constant: QueryExpression?) {
        guard case .path(let c) = predicate, c.op == .equal,
              let p = IndexScan.indexedProperty(c, model: model) else { return nil }
        self.model = model
        property = p
        isPrimaryKey = model.primaryKey === p
        self.constant = constant
        literal = c.constant
        kind = c.path.kind
    }

    /// The keys of the matching objects in key order, or nil when the general path must answer.
    func keys(_ binder: QueryBinder, in snapshot: Snapshot) throws -> [UInt64]? {
        var value = try constant.map { try binder.typedConstant($0, kind: kind, op: .equal) } ?? literal
        let type = property.type
        switch value {
        case .string(let s) where type == .string:
            // An ASCII string is its own NFC form, and a key holds it whole up to the limit.
            guard s.utf8.count <= IndexKey.maxValueBytes, IndexScan.isASCII(s) else { return nil }
        case .double(let d) where type.isInteger:
            guard let i = Int64(exactly: d) else { return [] }
            value = .int(i)
        default:
            guard IndexScan.keysDecideEquality(value, type) else { return nil }
        }
        guard let objects = try snapshot.objectsTree(model),
              let tree = try isPrimaryKey ? snapshot.primaryKeyTree(model) : snapshot.indexTree(property) else { return [] }
        // The planner's threshold: past it, a scan is the plan (see `QueryPlanner`).
        let cap = objects.count / QueryPlanner.scanCostRatio + 1
        let isPrimaryKey = self.isPrimaryKey
        var keys: [UInt64] = []
        var complete = true
        try IndexKey.withEncoded(value, as: type) { prefix in
            try snapshot.storageTx.forEach(tree, from: prefix) { key, stored in
                guard IndexScan.hasPrefix(key, prefix) else { return false }
                if let objectKey = IndexScan.objectKey(entry: key, value: stored, isPrimaryKey: isPrimaryKey) { keys.append(objectKey) }
                if keys.count >= cap { complete = false; return false }
                return true
            }
        }
        return complete ? keys : nil
    }
}
