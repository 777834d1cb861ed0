import TroveStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The running state of `sum`, `avg`, `min` or `max` over values of one kind, shared by the
/// aggregate statements, the group aggregates and `Results.sum(of:)`.
///
/// Nulls and NaNs are skipped: a NaN takes no part in `min` and `max`, nor in a sum or an
/// average, its divisor included (PostgreSQL's aggregates filter it alike); `sum`
/// is 0 over no values, `avg`, `min` and `max` are null; `avg` is fractional (a double, or a
/// decimal for decimals). An infinity is a value: a sum or average that meets one is that
/// infinity, NaN when it meets both (`DoubleSum`). A sum beyond the range of `int` (or of
/// `double` or `decimal`, for fractional numbers) is an error, never a wrapped total or an
/// infinity. Decimals are summed exactly and rounded once, to the 38 digits `Decimal` holds.
struct AggregateAccumulator {
    let function: AggregateFunction
    /// The kind of the values aggregated.
    let kind: ValueKind
    /// The values' key path as written and where, for the message of a sum out of range.
    private let text: String
    private let location: QuerySourceLocation
    private var ints: Int64 = 0
    /// How often `ints` wrapped past the ends of `Int64`, upward counted +1 and downward -1:
    /// wrapping addition is exact whenever the true total is in range, that is when this is 0.
    private var wraps = 0
    private var doubles = DoubleSum()
    private var decimals = DecimalSum()
    private(set) var count = 0
    private var best = Value.null
    /// Whether a sum of floats is read as a `Float`: then it is `DoubleSum.floatValue`, so
    /// that an infinity among the values does not hide a sum beyond `Float`'s range.
    var readsAsFloat = false

    init(_ function: AggregateFunction, kind: ValueKind, of text: String = "", at location: QuerySourceLocation = .start) {
        self.function = function
        self.kind = kind
        self.text = text
        self.location = location
    }

    /// Adds `value` to `total`, counting a wrap past either end of `Int64` in `wraps`.
    @inline(__always)
    static func add(_ value: Int64, to total: inout Int64, wraps: inout Int) {
        let (sum, overflow) = total.addingReportingOverflow(value)
        if overflow { wraps += value < 0 ? -1 : 1 }
        total = sum
    }

    /// The error of a sum of `text` (at `location`) beyond the range of `int`, or of `double`
    /// when it adds fractional numbers.
    static func outOfRange(_ text: String, fractional: Bool = false, decimal: Bool = false,
                           at location: QuerySourceLocation) -> QueryError {
        QueryError.sumOutOfRange(text, fractional: fractional, decimal: decimal, at: location)
    }

    /// Why `function` (written `name`) does not apply to values of `kind`, or nil when it
    /// does; the message names the key path `text`.
    static func check(_ function: AggregateFunction, named name: String, kind: ValueKind, text: String) -> String? {
        function.refusal(named: name, of: text, type: kind.propertyType, being: "\(kind)")
    }

    mutating func add(_ value: Value) {
        if value.isNull || ValueComparison.isNaN(value) { return }
        count += 1
        switch function {
        case .sum, .avg:
            switch value {
            case .int(let i): Self.add(i, to: &ints, wraps: &wraps); doubles.add(finite: Double(i))
            case .float(let f): doubles.add(Double(f))
            case .double(let d): doubles.add(d)
            case .decimal(let d): decimals.add(d)
            default: break
            }
        case .min, .max:
            if Self.replaces(value, best, least: function == .min) { best = value }
        default:
            break
        }
    }

    /// Whether `value` replaces `best`, the least (or greatest) value so far, null before the
    /// first. Null and NaN never do: NaN orders with no value, so `min` and `max` skip it as
    /// decimal sums do, whatever the order values come in (PostgreSQL's aggregates filter it).
    static func replaces(_ value: Value, _ best: Value, least: Bool) -> Bool {
        if value.isNull || ValueComparison.isNaN(value) { return false }
        if best.isNull { return true }
        guard let order = ValueComparison.order(value, best) else { return false }
        return least ? order < 0 : order > 0
    }

    /// One more object, for `count`.
    mutating func addOne() {
        count += 1
    }

    /// `add(.int(value))` without the enum: the loops over index keys of integers.
    @inline(__always)
    mutating func add(int value: Int64) {
        switch function {
        case .sum, .avg:
            count += 1
            Self.add(value, to: &ints, wraps: &wraps)
            doubles.add(finite: Double(value))
        default:
            add(.int(value))
        }
    }

    /// The aggregate of the values added.
    var value: Value {
        get throws(QueryError) {
            if function == .sum, kind == .int, wraps != 0 { throw Self.outOfRange(text, at: location) }
            if function == .sum || function == .avg, kind == .float || kind == .double, doubles.value == nil {
                throw Self.outOfRange(text, fractional: true, at: location)
            }
            if kind == .decimal, function == .sum { return try Self.decimal(decimals.value, of: text, at: location) }
            if kind == .decimal, function == .avg, count > 0 {
                return try Self.decimal(decimals.average(over: count), of: text, at: location)
            }
            return total
        }
    }

    /// `value` as a decimal value, or the error of a sum beyond `Decimal`'s range.
    static func decimal(_ value: Decimal?, of text: String, at location: QuerySourceLocation) throws(QueryError) -> Value {
        guard let value else { throw outOfRange(text, decimal: true, at: location) }
        return .decimal(value)
    }

    private var total: Value {
        switch function {
        case .sum:
            switch kind {
            case .int: .int(ints)
            case .float where readsAsFloat: .double(doubles.floatValue ?? .nan)
            default: .double(doubles.value ?? .nan)
            }
        case .avg:
            count == 0 ? .null : .double((doubles.value ?? .nan) / Double(count))
        case .count, .size:
            .int(Int64(count))
        case .min, .max:
            best
        }
    }
}

/// An aggregate statement bound to the schema.
struct BoundAggregateStatement {
    let function: AggregateFunction
    let model: ModelLayout
    /// The values aggregated; nil for `count`.
    let values: BoundKeyPath?
    let predicate: BoundPredicate?
    let predicateText: String?

    /// Binds `statement`; the errors point into `text`.
    init(_ statement: QueryAggregateStatement, binder: QueryBinder) throws {
        function = statement.function
        let model = try binder.model(statement.model)
        self.model = model
        values = try statement.keyPath.map {
            try binder.aggregatedKeyPath($0, model: model, function: statement.function,
                                         name: String(statement.function.rawValue.dropFirst()))
        }
        predicate = try statement.predicate.map { try binder.bind($0, to: model) }
        predicateText = statement.predicate?.description
    }

    /// The value over the objects that match, and the plan that found them.
    func run(_ executor: QueryExecutor) throws -> (value: Value, plan: QueryPlan) {
        if let answered = try runOnIndex(executor) { return answered }
        let snapshot = executor.snapshot
        if values == nil, predicate == nil {
            let count = try snapshot.objectsTree(model)?.count ?? 0
            let plan = QueryPlan(model: model.name, access: .scan, steps: ["COUNT \(model.name) (the count its objects tree keeps, reads no record)"],
                                 estimatedRows: count, examinedRows: 0, actualRows: 1)
            return (.int(Int64(count)), plan)
        }
        var planner = QueryPlanner(snapshot: snapshot, model: model)
        planner.prefersIndexes = executor.prefersIndexes
        planner.readsMatches = values != nil
        let (access, estimate) = try planner.accessPath(for: predicate)
        if case .scan = access { return try runScanning(executor, estimate: estimate) }
        let (results, plan) = try executor.run(model: model, predicate: predicate, predicateText: predicateText,
                                               sort: [], distinct: [], limit: nil, access: (access, estimate))
        guard let values else {
            // Results are keys: the objects an index decides are counted from its entries.
            let how = plan.isDecidedByIndex ? "from the index entries, reads no object" : "the objects that pass"
            return (.int(Int64(results.count)), plan.adding(["COUNT (\(how))"], returning: 1))
        }
        // The keys come in key order: one walk reads their records, moving forward.
        let reader = KeyPathReader(snapshot: snapshot)
        let tree = try reader.tree(model)
        var accumulator = AggregateAccumulator(function, kind: values.kind, of: values.text, at: values.range.start)
        if let slot = try AggregatedSlot(values) {
            try Self.add(results.keys, tree, snapshot, slot, &accumulator)
        } else {
            try Self.add(results.keys, tree, snapshot, AggregatedPath(read: try reader.valueReader(values)), &accumulator)
        }
        let step = "\(String(function.rawValue.dropFirst()).uppercased()) \(values.text) (reads only \(values.text) of each match)"
        return (try accumulator.value, plan.adding([step], returning: 1))
    }

    /// The aggregate over a scan: each record read is tested and, if it passes, its value
    /// added there and then, so no match is looked up again by its key.
    private func runScanning(_ executor: QueryExecutor, estimate: Int) throws -> (value: Value, plan: QueryPlan) {
        let snapshot = executor.snapshot
        let tree = try snapshot.objectsTree(model)
        var accumulator = AggregateAccumulator(function, kind: values?.kind ?? .int, of: values?.text ?? "",
                                              at: values?.range.start ?? .start)
        let slot = try values.flatMap(AggregatedSlot.init)
        let path = try values.map { AggregatedPath(read: try KeyPathReader(snapshot: snapshot).valueReader($0)) }
        func scan<F: RecordFilter>(_ filter: F) throws -> Int {
            if let slot { return try Self.scan(tree, snapshot, filter, slot, &accumulator) }
            if let path { return try Self.scan(tree, snapshot, filter, path, &accumulator) }
            return try Self.scan(tree, snapshot, filter, CountedRecords(), &accumulator)
        }
        let examined: Int
        if let ranges = predicate.flatMap(SlotRanges.init(only:)) {
            examined = try scan(ranges)
        } else if let strings = predicate.flatMap(StringSlotTest.init(only:)) {
            examined = try scan(strings)
        } else if let test = try predicate.map(PredicateEvaluator(snapshot: snapshot).compile) {
            examined = try scan(CompiledRecordFilter(test: test))
        } else {
            examined = try scan(EveryRecord())
        }
        var steps: [String] = []
        if executor.describesPlan {
            steps = ["SCAN \(model.name)"]
            if let predicateText, predicate != nil { steps.append("FILTER \(predicateText)") }
            if let values {
                steps.append("\(String(function.rawValue.dropFirst()).uppercased()) \(values.text) (reads only \(values.text) of each match, as the scan reads it)")
            } else {
                steps.append("COUNT (the objects that pass)")
            }
        }
        let plan = QueryPlan(model: model.name, access: .scan, steps: steps, estimatedRows: estimate,
                             examinedRows: examined, actualRows: 1)
        return (try accumulator.value, plan)
    }

    /// Adds the values of the objects `keys` of `tree` (ascending, for the lookups to move
    /// forward from one to the next).
    private static func add<V: AggregatedValues>(_ keys: [UInt64], _ tree: Tree?, _ snapshot: Snapshot, _ values: V,
                                                 _ accumulator: inout AggregateAccumulator) throws {
        guard let tree else { return }
        try keys.withUnsafeBufferPointer { keys in
            try snapshot.storageTx.forEachValue(tree, forKeys: keys) { i, record in
                try values.add(try RecordView(record), keys[i], to: &accumulator)
                return true
            }
        }
    }

    /// Adds the values of the objects in `tree` that pass `filter`; returns how many were read.
    /// `QueryExecutor.filter`'s loop, with the value added where the key would be kept.
    private static func scan<F: RecordFilter, V: AggregatedValues>(_ tree: Tree?, _ snapshot: Snapshot, _ filter: F, _ values: V,
                                                                   _ accumulator: inout AggregateAccumulator) throws -> Int {
        guard let tree else { return 0 }
        var examined = 0
        try snapshot.storageTx.forEach(tree) { k, v in
            let key = try Snapshot.objectKey(k)
            examined &+= 1
            let record = try RecordView(v)
            if try filter.passes(record, key) { try values.add(record, key, to: &accumulator) }
            return true
        }
        return examined
    }
}
