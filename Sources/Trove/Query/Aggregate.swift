#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The running state of `sum`, `avg`, `min` or `max` over values of one kind, shared by the
/// aggregate statements, the group aggregates and `Results.sum(of:)`.
///
/// Nulls are skipped; `sum` is 0 over no values, `avg`, `min` and `max` are null; `avg` is
/// fractional (a double, or a decimal for decimals).
struct AggregateAccumulator {
    let function: AggregateFunction
    /// The kind of the values aggregated.
    let kind: ValueKind
    private var ints: Int64 = 0
    private var doubles = 0.0
    private var decimals = Decimal(0)
    private(set) var count = 0
    private var best = Value.null

    init(_ function: AggregateFunction, kind: ValueKind) {
        self.function = function
        self.kind = kind
    }

    /// Why `function` (written `name`) does not apply to values of `kind`, or nil when it
    /// does; the message names the key path `text`.
    static func check(_ function: AggregateFunction, named name: String, kind: ValueKind, text: String) -> String? {
        let allowsDates = function == .min || function == .max
        guard kind.isNumeric || (allowsDates && kind == .date) else {
            return "\(name) applies to numbers\(allowsDates ? " and dates" : ""); '\(text)' is \(kind)"
        }
        return nil
    }

    mutating func add(_ value: Value) {
        if value.isNull { return }
        count += 1
        switch function {
        case .sum, .avg:
            switch value {
            case .int(let i): ints &+= i; doubles += Double(i)
            case .float(let f): doubles += Double(f)
            case .double(let d): doubles += d
            case .decimal(let d): decimals += d
            default: break
            }
        case .min, .max:
            if best.isNull {
                best = value
            } else if let order = ValueComparison.order(value, best), function == .min ? order < 0 : order > 0 {
                best = value
            }
        default:
            break
        }
    }

    /// `add(.int(value))` without the enum: the loops over index keys of integers.
    @inline(__always)
    mutating func add(int value: Int64) {
        switch function {
        case .sum, .avg:
            count += 1
            ints &+= value
            doubles += Double(value)
        default:
            add(.int(value))
        }
    }

    /// The aggregate of the values added.
    var value: Value {
        switch function {
        case .sum:
            switch kind {
            case .int: .int(ints)
            case .decimal: .decimal(decimals)
            default: .double(doubles)
            }
        case .avg:
            count == 0 ? .null : kind == .decimal ? .decimal(decimals / Decimal(count)) : .double(doubles / Double(count))
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
        if values == nil, predicate == nil {
            let count = try executor.snapshot.objectsTree(model)?.count ?? 0
            let plan = QueryPlan(model: model.name, access: .scan, steps: ["COUNT \(model.name) (the count its objects tree keeps, reads no record)"],
                                 estimatedRows: count, examinedRows: 0, actualRows: 1)
            return (.int(Int64(count)), plan)
        }
        let (results, plan) = try executor.run(model: model, predicate: predicate, predicateText: predicateText,
                                               sort: [], distinct: [], limit: nil)
        guard let values else {
            // Results are keys: the objects an index decides are counted from its entries.
            let how = plan.isDecidedByIndex ? "from the index entries, reads no object" : "the objects that pass"
            return (.int(Int64(results.count)), plan.adding(["COUNT (\(how))"], returning: 1))
        }
        let reader = KeyPathReader(snapshot: executor.snapshot)
        let read = try reader.valueReader(values)
        let tree = try reader.tree(model)
        var accumulator = AggregateAccumulator(function, kind: values.kind)
        for key in results.keys {
            guard let value = try reader.withRecord(tree, key, { try read($0, key) }) else { continue }
            accumulator.add(value)
        }
        let step = "\(String(function.rawValue.dropFirst()).uppercased()) \(values.text) (reads only \(values.text) of each match)"
        return (accumulator.value, plan.adding([step], returning: 1))
    }
}
