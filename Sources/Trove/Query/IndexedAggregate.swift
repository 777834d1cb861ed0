/// `sum`, `avg`, `min` and `max` of an indexed property answered from its index: the values
/// are the index's keys, so no record is read unless a key leaves the predicate unsure.
///
/// The index answers when the statement has no predicate, or one the same index serves
/// (`min Car.hp where hp > 100`): `min` and `max` read the first entry from one end of its
/// ranges, `sum` and `avg` add the values of its entries. Other predicates are left to the
/// general path, which reads only the aggregated property of each match.
extension BoundAggregateStatement {
    /// The value and plan from the index, or nil when the index cannot answer alone.
    func runOnIndex(_ executor: QueryExecutor) throws -> (value: Value, plan: QueryPlan)? {
        let snapshot = executor.snapshot
        guard function != .count, function != .size, let values,
              let walk = try IndexWalk(values, model: model, snapshot: snapshot) else { return nil }
        // Decimal keys hold a rounded double.
        guard function.takes(walk.property.type), walk.property.type != .decimal else { return nil }
        // A NaN compares with no value: where the general path meets it decides.
        if function == .min || function == .max, try walk.holdsNaN() { return nil }
        // The ranges to read, and what their keys decide of the predicate.
        let ranges: [IndexScan.KeyRange]
        var test: ((RecordView, UInt64) throws -> Bool)?
        var served: IndexScan?
        if let predicate {
            guard let scan = Self.scan(predicate, model: model), scan.property === walk.property else { return nil }
            ranges = scan.ranges
            if case .decides = scan.entryCheck {} else { test = try PredicateEvaluator(snapshot: snapshot).compile(predicate) }
            served = scan
        } else {
            ranges = [IndexWalk.values]
        }
        // Records are read only for keys that leave the predicate unsure.
        let records = try test.map { _ in try KeyOrderRecords(try snapshot.objectsTree(model), snapshot: snapshot) }
        func passes(_ key: UInt64) throws -> Bool {
            guard let test, let records else { return true }
            return try records.withRecord(key) { try test($0, key) } ?? false
        }
        var accumulator = AggregateAccumulator(function, kind: values.kind, of: values.text, at: values.range.start)
        var examined = 0
        var undecodable = false
        switch function {
        case .min, .max:
            // The first entry from one end that passes, its value whole; a zero's sign is in
            // its record, and the general path keeps the first it meets.
            let descending = function == .max
            search: for range in descending ? ranges.reversed() : ranges {
                let stopped = try !walk.walk(range, descending: descending) { key, objectKey in
                    examined += 1
                    guard let value = walk.value(key) else { undecodable = true; return false }
                    if value.isNull { return true }
                    guard try passes(objectKey) else { return true }
                    if case .double(0) = value { undecodable = true } else if case .float(0) = value { undecodable = true }
                    accumulator.add(value)
                    return false
                }
                if stopped { break search }
            }
        default:
            let integers = walk.property.type.isInteger
            for range in ranges {
                try walk.walk(range) { key, objectKey in
                    examined += 1
                    // An integer's key is its tag and 8 bytes; a null's the tag alone.
                    if integers, test == nil {
                        if key.count == 9 {
                            accumulator.add(int: Int64(bitPattern: UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 1, as: UInt64.self)) ^ (1 << 63)))
                        }
                        return true
                    }
                    guard let value = walk.value(key) else { undecodable = true; return false }
                    if !value.isNull, try passes(objectKey) { accumulator.add(value) }
                    return true
                }
                if undecodable { break }
            }
        }
        if undecodable { return nil }
        guard executor.describesPlan else {
            return (try accumulator.value, QueryPlan(model: model.name, access: walk.access, steps: [], estimatedRows: examined,
                                                 examinedRows: examined, actualRows: 1))
        }
        var steps = [served.map { "SEARCH \(model.name) \(walk.usingText) (\($0.summary))" } ?? "SCAN \(model.name) \(walk.usingText)"]
        if let predicateText, predicate != nil {
            steps.append("FILTER \(predicateText)" + (test == nil ? " (decided by the index)" : ""))
        }
        steps.append(function == .min || function == .max
            ? "\(function == .min ? "MIN" : "MAX") \(values.text) (reads one end of the index: its \(function == .min ? "first" : "last") non-null entry)"
            : "\(function == .sum ? "SUM" : "AVG") \(values.text) (adds the index keys, reads \(test == nil ? "no object" : "only the objects the keys leave unsure"))")
        let plan = QueryPlan(model: model.name, access: walk.access, steps: steps, estimatedRows: examined,
                             examinedRows: examined, actualRows: 1)
        return (try accumulator.value, plan)
    }

    /// The scan of one index that serves all of `predicate`: one comparison, or ordering
    /// comparisons of one property joined by AND.
    private static func scan(_ predicate: BoundPredicate, model: ModelLayout) -> IndexScan? {
        switch predicate {
        case .path(let c):
            return IndexScan(c, model: model)
        case .and(let operands):
            let comparisons = operands.compactMap { operand -> PathComparison? in
                if case .path(let c) = operand { c } else { nil }
            }
            guard comparisons.count == operands.count else { return nil }
            return IndexScan(ordering: comparisons, model: model)
        default:
            return nil
        }
    }
}
