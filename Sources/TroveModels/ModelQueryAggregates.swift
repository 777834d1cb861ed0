#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

// The aggregates of a list a `ModelQuery` reads, as Realm Swift's `Query<T>` spells them:
// `$0.dogs.age.avg > 3` over a property of a list's objects, `$0.scores.max < 10` over a list
// of numbers. Each is the query language's aggregate (`dogs.@avg.age`, `scores.@max`), which
// compares as one value: no `ANY`.

/// A number type the aggregates of a ``ModelQuery`` read: the integer and floating-point
/// types and `Decimal`. `Average` is the type of its `avg` (`Double`, or `Decimal` for one).
///
/// What the types do not check:
/// - `sum`, `avg`, `min` and `max` exist on every numeric property, as a path through a
///   list has the type of one through none: `$0.age.sum` compiles, and is an error naming it
///   when the condition runs. Only a path that crosses a list (`$0.dogs.age.sum`) or a list
///   of numbers (`$0.scores.sum`) has them.
/// - An optional number (`Double?`) and a `Date` are not `QueryableNumber`s, so their
///   aggregates have no typed form, though the query language has them (`avg`, `min` and
///   `max` skip nulls; `min` and `max` read dates): write the query text
///   (`"dogs.@max.born > $0"`).
/// - An aggregate of an empty list is a number in Swift but null in the query (`avg`, `min`,
///   `max`), and no comparison selects null: `!($0.dogs.age.avg > 3)` selects an object with
///   no dogs, `$0.dogs.age.avg <= 3` does not.
public protocol QueryableNumber: StorableProperty, Comparable {
    /// The type of the average of values of this type.
    associatedtype Average: StorableProperty & Comparable
}

extension Int: QueryableNumber { public typealias Average = Double }
extension Int8: QueryableNumber { public typealias Average = Double }
extension Int16: QueryableNumber { public typealias Average = Double }
extension Int32: QueryableNumber { public typealias Average = Double }
extension Int64: QueryableNumber { public typealias Average = Double }
extension Float: QueryableNumber { public typealias Average = Double }
extension Double: QueryableNumber { public typealias Average = Double }
extension Decimal: QueryableNumber { public typealias Average = Decimal }

/// A list of numbers, whose aggregates a ``ModelQuery`` reads: `[Int]`, `[Double]`, ...
public protocol QueryableNumberList: QueryableList {
    /// The type of the list's elements.
    associatedtype Number: QueryableNumber
}

extension Array: QueryableNumberList where Element: QueryableNumber {
    public typealias Number = Element
}

extension ModelQuery where Value: QueryableNumber {
    /// The sum of the property over the objects of the list the path crosses:
    /// `$0.dogs.age.sum > 10` is `dogs.@sum.age > $0` (0 for an empty list).
    @inlinable public var sum: ModelQuery<Root, Value> { aggregated(.sum) }
    /// The average of the property over the list's objects: `dogs.@avg.age` (null for an
    /// empty list, which no comparison selects).
    @inlinable public var avg: ModelQuery<Root, Value.Average> { aggregated(.avg) }
    /// The least value of the property over the list's objects: `dogs.@min.age`.
    @inlinable public var min: ModelQuery<Root, Value> { aggregated(.min) }
    /// The greatest value of the property over the list's objects: `dogs.@max.age`.
    @inlinable public var max: ModelQuery<Root, Value> { aggregated(.max) }
}

extension ModelQuery where Value: QueryableNumberList {
    /// The sum of a list of numbers: `$0.scores.sum > 10` is `scores.@sum > $0`.
    @inlinable public var sum: ModelQuery<Root, Value.Number> { aggregated(.sum) }
    /// The average of a list of numbers: `scores.@avg`.
    @inlinable public var avg: ModelQuery<Root, Value.Number.Average> { aggregated(.avg) }
    /// The least of a list of numbers: `scores.@min`.
    @inlinable public var min: ModelQuery<Root, Value.Number> { aggregated(.min) }
    /// The greatest of a list of numbers: `scores.@max`.
    @inlinable public var max: ModelQuery<Root, Value.Number> { aggregated(.max) }
}

extension ModelQuery {
    @inlinable
    func aggregated<V>(_ aggregate: ModelQueryAggregate) -> ModelQuery<Root, V> {
        var aggregated = path
        aggregated.aggregate = aggregate
        return ModelQuery<Root, V>(path: aggregated)
    }
}

/// The aggregate a ``ModelQueryPath`` ends with.
@usableFromInline
enum ModelQueryAggregate: UInt8, Hashable, Sendable {
    case count, sum, avg, min, max

    var function: AggregateFunction {
        switch self {
        case .count: .count
        case .sum: .sum
        case .avg: .avg
        case .min: .min
        case .max: .max
        }
    }

    /// How a `where:` closure spells it.
    var name: String {
        switch self {
        case .count: "count"
        case .sum: "sum"
        case .avg: "avg"
        case .min: "min"
        case .max: "max"
        }
    }
}
