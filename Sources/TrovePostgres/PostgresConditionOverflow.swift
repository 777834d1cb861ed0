import Trove

/// A sum or average in a condition that PostgreSQL ran into "out of range" (SQLSTATE 22003),
/// named as a store names it (`QueryError.sumOutOfRange`). PostgreSQL says only that some
/// value did. A store reads objects in the order they were saved (`"@key"`) and computes an
/// object's sums in the order `QueryCheck.overflowingSums` gives, throwing at the first that
/// overflows: so on that error the first object where one does is found by halving the
/// `"@key"` range (each probe computes every sum of the objects in a range, and nothing
/// else), and its sums are then computed one at a time, in that order. A statement that
/// succeeds pays nothing. Where a store's `AND` or `OR` skips a sum (`is.@sum > 0 OR
/// ds.@sum > 0` reads `ds` only where `is`'s sum is not above 0), the sum named can differ.
extension PostgresStore {
    /// The store's error for the sum of `predicate` (on `model`, in the statement or predicate
    /// `text`) that left its range, or nil when none does. `only`: whether nothing else in the
    /// statement can leave a range, so that a single sum is the one without a probe, and of
    /// several the first when the probes cannot tell (a failed transaction runs none).
    func overflowingSum(in predicate: QueryPredicate?, model: ModelSchema, _ text: String, arguments: [Value], only: Bool) throws -> QueryError? {
        guard let predicate else { return nil }
        let sums = try queryCheck.overflowingSums(in: predicate, model: model.name, text: text, arguments: arguments)
        guard !sums.isEmpty else { return nil }
        if only && sums.count == 1 { return sums[0] }
        let probes = sums.map { Self.probe(predicate, at: $0.location) }
        guard probes.allSatisfy({ $0 != nil }) else { return only ? sums[0] : nil }
        let found = try? firstOverflow(of: probes.compactMap { $0 }, model: model, arguments: arguments)
        return found.map { sums[$0] } ?? (only ? sums[0] : nil)
    }

    /// The index of the first of `probes` that overflows on the first object where one does,
    /// or nil when none does.
    private func firstOverflow(of probes: [QueryPredicate], model: ModelSchema, arguments: [Value]) throws -> Int? {
        let order = "t0.\(PostgresTables.orderColumn)"
        let last = try read { try connection.execute("SELECT max(\(PostgresTables.orderColumn)) FROM \(PostgresTables.table(model.name))") }
        guard var high = (last.rows.first?.first ?? nil).flatMap({ Int64($0) }) else { return nil }
        /// Whether computing `probes` over the objects `keys` selects overflows.
        func overflows(_ probes: [QueryPredicate], _ keys: String) throws -> Bool {
            var translator = PostgresQueryTranslator(schema: schema, arguments: arguments)
            let sql = try translator.counts(model, each: probes, objects: keys)
            do {
                _ = try read { try connection.execute(sql, translator.parameters.values) }
                return false
            } catch let error as PostgresError where error.sqlState == "22003" {
                return true
            }
        }
        // The objects up to `low` do not overflow, those up to `high` do.
        var low: Int64 = 0
        guard try overflows(probes, "\(order) <= \(high)") else { return nil }
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if try overflows(probes, "\(order) > \(low) AND \(order) <= \(middle)") { high = middle } else { low = middle }
        }
        return try probes.indices.first { try overflows([probes[$0]], "\(order) = \(high)") }
    }

    /// A condition that computes the aggregate whose list stands at `location` in `predicate`
    /// and nothing else of it (`aggregate == nil`, inside the SUBQUERYs that hold it).
    static func probe(_ predicate: QueryPredicate, at location: QuerySourceLocation) -> QueryPredicate? {
        switch predicate.kind {
        case .constant: return nil
        case .not(let operand): return probe(operand, at: location)
        case .and(let operands), .or(let operands): return operands.lazy.compactMap { probe($0, at: location) }.first
        case .comparison(let c): return probe(c.left, at: location) ?? probe(c.right, at: location)
        case .between(let b): return probe(b.value, at: location)
        }
    }

    private static func probe(_ expression: QueryExpression, at location: QuerySourceLocation) -> QueryPredicate? {
        func computed(_ expression: QueryExpression) -> QueryPredicate {
            .comparison(QueryPredicate.Comparison(expression, .equal, .null))
        }
        switch expression.kind {
        case .aggregate(let aggregate) where aggregate.collection.range.start == location:
            return computed(expression)
        case .subqueryCount(var subquery):
            guard let inner = probe(subquery.predicate, at: location) else { return nil }
            subquery.predicate = inner
            return computed(QueryExpression(.subqueryCount(subquery), range: expression.range))
        default:
            return nil
        }
    }

    /// `overflowingSum(in:model:_:arguments:only:)` for the predicate text of `count`,
    /// `update` and `delete`, whose SQL leaves no other range.
    func overflowingSum(in predicate: String?, of model: ModelSchema, arguments: [Value]) throws -> QueryError? {
        guard let predicate else { return nil }
        return try overflowingSum(in: checkedPredicate(predicate, model: model, arguments: arguments), model: model, predicate, arguments: arguments, only: true)
    }
}
