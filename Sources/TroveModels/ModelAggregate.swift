#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

/// An aggregate of a property over objects, read as `Output`: the item of a typed grouped
/// query (``ModelResults/grouped(by:aggregating:)``), and what ``ModelResults``' `sum`,
/// `average`, `min` and `max` compute over all of the results.
///
/// ```swift
/// let byOrigin = try cars.grouped(by: \.origin, aggregating: .count, .average(\.mpg))   // [(String, Int, Double?)]
/// ```
///
/// The aggregates take the types the query language aggregates: `sum` and `average` of
/// numbers (``QueryableSummand``), `min` and `max` of numbers and dates
/// (``QueryableExtremum``), optional or not; `.sum(\.name)` does not compile. A property may
/// be one of a linked model through to-one links, a null link's value skipped; among the
/// aggregates of `grouped(by:aggregating:)` such a key path names its model
/// (`.sum(\Person.team?.budget)`), as swiftc 6.3 does not infer the root of an optional-chained
/// key path there.
public struct ModelAggregate<T: PersistentModel, Output> {
    let function: ModelAggregateFunction
    let keyPath: AnyKeyPath?
    /// `Output` of the aggregate's value (null for no value), or nil when it does not fit.
    let read: (Value) -> Output?

    /// The sum of a numeric property, nulls skipped: `@sum.price`; 0 when there is no value.
    /// A sum the property's type cannot hold (`Int8` values adding up past 127, or `Float`
    /// values whose finite ones add up past `Float`'s range, whatever infinities are beside
    /// them) is an error naming the property and the type.
    public static func sum<V: QueryableSummand>(_ keyPath: KeyPath<T, V>) -> Self where Output == V.Number {
        Self(function: .sum, keyPath: keyPath) { $0.isNull ? .zero : V.Number(aggregate: $0) }
    }

    /// The mean of a numeric property, nulls skipped: `@avg.price`; nil when there is no value.
    public static func average<V: QueryableSummand>(_ keyPath: KeyPath<T, V>) -> Self where Output == Double? {
        Self(function: .avg, keyPath: keyPath) { value in
            switch value {
            case .null: .some(nil)
            case .double(let d): d
            case .decimal(let d): NSDecimalNumberFree.double(d)
            default: nil
            }
        }
    }

    /// The least value of a numeric or date property, nulls skipped: `@min.price`; nil when
    /// there is no value.
    public static func min<V: QueryableExtremum>(_ keyPath: KeyPath<T, V>) -> Self where Output == V.Extremum? {
        Self(function: .min, keyPath: keyPath) { $0.isNull ? .some(nil) : V.Extremum(aggregate: $0).map { Optional($0) } }
    }

    /// The greatest value of a numeric or date property, nulls skipped: `@max.price`; nil
    /// when there is no value.
    public static func max<V: QueryableExtremum>(_ keyPath: KeyPath<T, V>) -> Self where Output == V.Extremum? {
        Self(function: .max, keyPath: keyPath) { $0.isNull ? .some(nil) : V.Extremum(aggregate: $0).map { Optional($0) } }
    }

    /// The aggregate as a SELECT item of a grouped query: `@sum.price`.
    var item: ModelSelectItem<T> { ModelSelectItem(aggregate: function, keyPath) }

    /// Whether the aggregate is a sum read as `Float`: the store then gives the finite
    /// values' sum when it is beyond `Float`'s range, even beside an infinity, and `output`
    /// refuses it, as it refuses such a sum without one.
    var readsAsFloat: Bool { function == .sum && Output.self == Float.self }

    /// The aggregate's value `value`, computed over objects of `T` as `item`, as `Output`, or
    /// an error naming the aggregate, its property and the type when it does not fit.
    func output(_ value: Value) throws -> Output {
        guard let output = read(value) else {
            let property = try keyPath.map { " of \(T.modelName).\(try T.questionPath($0))" } ?? " of \(T.modelName)"
            // A least or greatest value is optional (nil for no value): the type that does not
            // hold it is the one wrapped.
            let type = (Output.self as? any OptionalAggregate.Type)?.wrappedType ?? Output.self
            throw ModelQueryError("the \(function.noun)\(property), \(value), is out of the range of \(type)")
        }
        return output
    }

    /// The aggregate over every object of `results`.
    func output(over results: Results) throws -> Output {
        // Only a count has no key path: it counts the objects.
        guard let keyPath else { return try output(.int(Int64(results.count))) }
        let path = try T.questionPath(keyPath)
        let value: Value = switch function {
        case .count: preconditionFailure("a count has no key path")
        case .sum: try results.sum(of: path, readAsFloat: readsAsFloat)
        case .avg: try results.average(of: path)
        case .min: try results.min(of: path)
        case .max: try results.max(of: path)
        }
        return try output(value)
    }
}

extension ModelAggregate where Output == Int {
    /// The number of objects of the group: `@count`.
    public static var count: Self { Self(function: .count, keyPath: nil) { Int(aggregate: $0) } }
}

/// The query language's aggregates.
enum ModelAggregateFunction: String {
    case count, sum, avg, min, max

    /// What the aggregate is called in an error.
    var noun: String {
        switch self {
        case .count: "count"
        case .sum: "sum"
        case .avg: "average"
        case .min: "least value"
        case .max: "greatest value"
        }
    }
}

/// An optional aggregate's type, whose wrapped type names what a value does not fit.
private protocol OptionalAggregate {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalAggregate {
    fileprivate static var wrappedType: Any.Type { Wrapped.self }
}
