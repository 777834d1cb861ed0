import Trove

/// A sum or average in a condition that PostgreSQL ran into "out of range" (SQLSTATE 22003),
/// named as a store names it (`QueryError.sumOutOfRange`). PostgreSQL says only that some
/// value did, and a statement's items and aggregate can leave a range too. A store reads
/// objects in the order they were saved (`"@key"`), evaluates an object's condition before
/// its items, and computes the condition's sums in the order `QueryCheck.overflowingSums`
/// gives, throwing at the first that overflows. So on that error the condition is re-checked
/// alone, as written (each operand of an `AND` or `OR` in order, as a store skips them), over
/// all objects; where it does not overflow, the items or the aggregate did. Where it does,
/// the first object where it does is found by halving the `"@key"` range, and that object's
/// sums are then computed one at a time, in the store's order. A statement that succeeds pays
/// nothing; the re-checks of a failed one cost up to about 2 + log2(objects) + (sums)
/// statements, each bound to its range (one prepared statement per condition). In a unit
/// (`atomically`) the failed statement has failed the transaction, so nothing is re-checked:
/// the condition's first sum in the store's order is named. In a transaction (`begin`) each
/// re-check runs under the statement's savepoint; a re-check that fails otherwise than "out of
/// range" (a serialization failure, a lost connection) throws that error.
extension PostgresStore {
    /// The store's error for the sum of `predicate` (on `model`, in the statement or predicate
    /// `text`) that left its range, or nil when none does. `only`: whether nothing else in the
    /// statement can leave a range, so that a single sum is the one without a re-check, and of
    /// several the first when the re-checks cannot tell.
    func overflowingSum(in predicate: QueryPredicate?, model: ModelSchema, _ text: String, arguments: [Value], only: Bool) throws -> QueryError? {
        guard let predicate else { return nil }
        let sums = try queryCheck.overflowingSums(in: predicate, model: model.name, text: text, arguments: arguments)
        guard !sums.isEmpty else { return nil }
        if only && sums.count == 1 { return sums[0] }
        // The unit's transaction is failed: it runs nothing more.
        if isInUnit { return sums[0] }
        let probes = sums.map { Self.probe(predicate, at: $0.location) }
        guard probes.allSatisfy({ $0 != nil }) else { return only ? sums[0] : nil }
        let found: Int?
        do {
            found = try firstOverflow(of: predicate, probes.compactMap { $0 }, model: model, arguments: arguments, known: only)
        } catch let error as PostgresError where error.isSerializationFailure || error.isConnectionLost {
            throw error
        } catch {
            // A re-check that cannot run says nothing: the first candidate stands.
            found = nil
        }
        return found.map { sums[$0] } ?? (only ? sums[0] : nil)
    }

    /// The index of the first of `probes` that overflows on the first object where `condition`
    /// does, or nil when it does on none; `known`: whether it is known to.
    private func firstOverflow(of condition: QueryPredicate, _ probes: [QueryPredicate], model: ModelSchema, arguments: [Value], known: Bool) throws -> Int? {
        let bounds = try read {
            try connection.execute("SELECT min(\(PostgresTables.orderColumn)), max(\(PostgresTables.orderColumn)) FROM \(tables.table(model.name))")
        }
        let row = bounds.rows.first ?? []
        guard row.count == 2, let least = (row[0]).flatMap({ Int64($0) }), var high = (row[1]).flatMap({ Int64($0) }) else { return nil }
        /// Whether testing `predicates` on the objects with keys in `low + 1 ... high` overflows.
        func overflows(_ predicates: [QueryPredicate], above low: Int64, through high: Int64) throws -> Bool {
            var translator = PostgresQueryTranslator(tables: tables, arguments: arguments)
            let sql = try translator.counts(model, each: predicates, above: low, through: high)
            do {
                _ = try read { try connection.execute(sql, translator.parameters.values) }
                return false
            } catch let error as PostgresError where error.sqlState == "22003" {
                return true
            }
        }
        // The objects up to `low` do not overflow, those up to `high` do.
        var low = least == .min ? least : least - 1
        guard try known || overflows([condition], above: low, through: high) else { return nil }
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if try overflows([condition], above: low, through: middle) { high = middle } else { low = middle }
        }
        return try probes.indices.first { try overflows([probes[$0]], above: high - 1, through: high) } ?? 0
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
