#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

// The aggregates of a list a `ModelQuery` reads, as Realm Swift's `Query<T>` spells them:
// `$0.dogs.age.avg > 3` over a property of a list's objects, `$0.scores.max < 10` over a list
// of values. Each is the query language's aggregate (`dogs.@avg.age`, `scores.@max`), which
// compares as one value: no `ANY`. They exist where the query language has them: `sum` and
// `avg` of numbers, `min` and `max` of numbers and dates, optional or not, of a path that
// crosses one list (the `Reach` of the path's type), and `count` of a list.

/// A number type the aggregates of a ``ModelQuery`` read: the integer and floating-point
/// types and `Decimal`. `Average` is the type of its `avg` (`Double`, or `Decimal` for one).
///
/// An aggregate of an empty list is a number in Swift but null in the query (`avg`, `min`,
/// `max`), and no comparison selects null: `!($0.dogs.age.avg > 3)` selects an object with
/// no dogs, `$0.dogs.age.avg <= 3` does not.
public protocol QueryableNumber: QueryableSummand, AggregateValue, Comparable, AdditiveArithmetic where Number == Self, Extremum == Self {
    /// The type of the average of values of this type.
    associatedtype Average: StorableProperty & Comparable
}

/// A property type whose `sum` and `avg` over a list a ``ModelQuery`` reads, and a
/// ``ModelResults`` computes: the numbers (``QueryableNumber``) and their optionals, whose
/// nulls are skipped. `Number` is the type without its optional, that of the sum.
///
/// A `Date` is not one (the query language adds no dates), so `$0.dogs.born.sum` does not compile.
public protocol QueryableSummand: QueryableExtremum {
    /// The number type, without the optional: the type of the sum.
    associatedtype Number: QueryableNumber
}

/// A property type whose `min` and `max` over a list a ``ModelQuery`` reads, and a
/// ``ModelResults`` computes: the numbers, `Date`, and their optionals, whose nulls are
/// skipped. `Extremum` is the type without its optional, that of the least and greatest value.
public protocol QueryableExtremum: StorableProperty {
    /// The type without the optional: that of the least or greatest value.
    associatedtype Extremum: AggregateValue & Comparable
}

extension Int: QueryableNumber { public typealias Average = Double }
extension Int8: QueryableNumber { public typealias Average = Double }
extension Int16: QueryableNumber { public typealias Average = Double }
extension Int32: QueryableNumber { public typealias Average = Double }
extension Int64: QueryableNumber { public typealias Average = Double }
extension Float: QueryableNumber { public typealias Average = Double }
extension Double: QueryableNumber { public typealias Average = Double }
extension Decimal: QueryableNumber { public typealias Average = Decimal }
extension Date: QueryableExtremum {
    /// The least or greatest of dates is a date.
    public typealias Extremum = Date
}

extension Optional: QueryableExtremum where Wrapped: QueryableExtremum, Wrapped.Extremum == Wrapped {
    /// The wrapped type: nulls are skipped, so the least or greatest value is one of it.
    public typealias Extremum = Wrapped
}

extension Optional: QueryableSummand where Wrapped: QueryableNumber {
    /// The wrapped number type: nulls are skipped, so the sum is one of it.
    public typealias Number = Wrapped
}

/// A list property a ``ModelQuery`` reads the count of: an array of values, of links, or of
/// linking objects; and of values, the aggregates of its elements' type.
public protocol QueryableList {
    /// The type of the list's elements.
    associatedtype Element
}

extension Array: QueryableList {}

extension ModelQueryExpression where Reach == QueryReach.Many, Value: QueryableSummand {
    /// The sum of the property over the objects of the list the path crosses:
    /// `$0.dogs.age.sum > 10` is `dogs.@sum.age > $0` (0 for an empty list; nulls skipped).
    @inlinable public var sum: ModelQuery<Root, Value.Number> { aggregated(.sum) }
    /// The average of the property over the list's objects: `dogs.@avg.age` (nulls skipped;
    /// null for no value, which no comparison selects).
    @inlinable public var avg: ModelQuery<Root, Value.Number.Average> { aggregated(.avg) }
}

extension ModelQueryExpression where Reach == QueryReach.Many, Value: QueryableExtremum {
    /// The least value of the property over the list's objects: `dogs.@min.age`,
    /// `dogs.@min.born` (nulls skipped; null for no value, which no comparison selects).
    @inlinable public var min: ModelQuery<Root, Value.Extremum> { aggregated(.min) }
    /// The greatest value of the property over the list's objects: `dogs.@max.age` (nulls
    /// skipped; null for no value, which no comparison selects).
    @inlinable public var max: ModelQuery<Root, Value.Extremum> { aggregated(.max) }
}

extension ModelQueryExpression where Reach == QueryReach.One, Value: QueryableList {
    /// The number of elements of the list: `$0.dogs.count > 2` is `dogs.@count > $0`.
    @inlinable public var count: ModelQuery<Root, Int> { aggregated(.count) }
}

extension ModelQueryExpression where Reach == QueryReach.One, Value: QueryableList, Value.Element: QueryableSummand {
    /// The sum of a list of numbers: `$0.scores.sum > 10` is `scores.@sum > $0` (0 for an
    /// empty list).
    @inlinable public var sum: ModelQuery<Root, Value.Element.Number> { aggregated(.sum) }
    /// The average of a list of numbers: `scores.@avg` (null for an empty list, which no
    /// comparison selects).
    @inlinable public var avg: ModelQuery<Root, Value.Element.Number.Average> { aggregated(.avg) }
}

extension ModelQueryExpression where Reach == QueryReach.One, Value: QueryableList, Value.Element: QueryableExtremum {
    /// The least of a list of numbers or dates: `scores.@min` (null for an empty list, which
    /// no comparison selects).
    @inlinable public var min: ModelQuery<Root, Value.Element.Extremum> { aggregated(.min) }
    /// The greatest of a list of numbers or dates: `scores.@max` (null for an empty list,
    /// which no comparison selects).
    @inlinable public var max: ModelQuery<Root, Value.Element.Extremum> { aggregated(.max) }
}

extension ModelQueryExpression {
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
