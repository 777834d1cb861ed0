#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Results {
    /// The sum of a numeric property (which may go through to-one links) over the objects:
    /// `.int` for integers, `.double` for floats and doubles, `.decimal` for decimals; zero
    /// when empty. Nulls are skipped.
    public func sum(of property: String) throws -> Value {
        try aggregate(.sum, property)
    }

    /// The mean of a numeric property: `.double` (`.decimal` for decimals), or `.null` when
    /// there is no non-null value.
    public func average(of property: String) throws -> Value {
        try aggregate(.avg, property)
    }

    /// The least value of a numeric or date property, or `.null` when there is none.
    public func min(of property: String) throws -> Value {
        try aggregate(.min, property)
    }

    /// The greatest value of a numeric or date property, or `.null` when there is none.
    public func max(of property: String) throws -> Value {
        try aggregate(.max, property)
    }

    private func aggregate(_ function: AggregateFunction, _ property: String) throws -> Value {
        try snapshot.checkLive()
        let binder = QueryBinder(layout: snapshot.layout, arguments: [], statement: property)
        let path = try binder.orderingKeyPath(try Self.keyPath(property), model: model, clause: "\(function)", allowsLinks: false)
        let kind = path.kind
        guard kind.isNumeric || (kind == .date && (function == .min || function == .max)) else {
            throw QueryError(.invalidAggregate, "\(function) applies to numbers\(function == .min || function == .max ? " and dates" : ""); '\(path.text)' is \(kind)",
                             at: .start, in: property)
        }
        let reader = KeyPathReader(snapshot: snapshot)
        let read = try reader.valueReader(path)
        let tree = try reader.tree(model)
        var ints: Int64 = 0, doubles = 0.0, decimals = Decimal(0), count = 0
        var best = Value.null
        for key in keys {
            guard let value = try reader.withRecord(tree, key, { try read($0, key) }), !value.isNull else { continue }
            count += 1
            switch value {
            case .int(let i): ints &+= i; doubles += Double(i)
            case .float(let f): doubles += Double(f)
            case .double(let d): doubles += d
            case .decimal(let d): decimals += d
            default: break
            }
            if best.isNull {
                best = value
            } else if let order = ValueComparison.order(value, best), function == .min ? order < 0 : order > 0 {
                best = value
            }
        }
        switch function {
        case .sum:
            switch kind {
            case .int: return .int(ints)
            case .decimal: return .decimal(decimals)
            default: return .double(doubles)
            }
        case .avg:
            guard count > 0 else { return .null }
            return kind == .decimal ? .decimal(decimals / Decimal(count)) : .double(doubles / Double(count))
        default:
            return best
        }
    }
}
