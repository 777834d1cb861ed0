#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

/// The results of a typed fetch: model values decoded from the objects as they are read.
///
/// Valid while the snapshot it came from is; the ``results`` underneath are the dynamic ones.
/// Reading a value throws a ``ModelDecodingError`` when its object does not decode as `T`
/// (a store whose schema disagrees with the type), which is why this is not a `Collection`:
/// read ``values``, or ``map(_:)``.
public struct ModelResults<T: PersistentModel> {
    /// The objects, for the dynamic API.
    public let results: Results

    /// The dynamic `results` read as values of `T` (a query string's results, typed).
    public init(_ results: Results) { self.results = results }

    /// The number of values.
    public var count: Int { results.count }
    /// Whether there is no value.
    public var isEmpty: Bool { results.isEmpty }
    /// The positions of the values, `0..<count`.
    public var indices: Range<Int> { 0..<results.count }

    /// The value at `index`, decoded from its object (links and lists included).
    public subscript(index: Int) -> T {
        get throws { try T.decoded(from: results[index]) }
    }

    /// Every value, decoded.
    public var values: [T] {
        get throws { try indices.map { try self[$0] } }
    }

    /// The first value, or nil when there is none.
    public var first: T? {
        get throws { try isEmpty ? nil : self[0] }
    }

    /// The last value, or nil when there is none.
    public var last: T? {
        get throws { try isEmpty ? nil : self[count - 1] }
    }

    /// `transform` of every value, in order.
    public func map<U>(_ transform: (T) throws -> U) throws -> [U] {
        try indices.map { try transform(self[$0]) }
    }

    /// The value of the property `keyPath` of every value, in order.
    ///
    /// For a stored property of a `@Model` type, each is read from its object alone, as the
    /// whole value's read reads it, and no other property or link is read (so another
    /// property that does not decode is no error here). Any other key path (computed,
    /// `@Transient`, through a link) is read from the decoded value, as is a property whose
    /// stored value does not fit the type, which then throws the decoding's error.
    public func map<V: StorableProperty>(_ keyPath: KeyPath<T, V>) throws -> [V] {
        // `@Model`'s `init(_storedObject:)` reads each property with its type's `_stored`, so
        // the one property read alone is the same; a table listed by hand reads through
        // `Codable`, whose `init(from:)` may read it otherwise.
        guard T._writesEveryProperty, let index = T.modelProperties.firstIndex(where: { $0.keyPath == keyPath }) else {
            return try indices.map { try self[$0][keyPath: keyPath] }
        }
        return try indices.map { i in
            let object = results[i]
            let value = try T.readInPlace(object) {
                try V._stored($0.value(at: index), in: _ModelReader(object: $0), at: index)
            }
            return try value ?? T.decoded(from: object)[keyPath: keyPath]
        }
    }

    /// The sum of a numeric property over the results, nulls and NaNs skipped; zero when there
    /// is no value. An infinity is a value, as in `Results.sum(of:)`: `+inf` and `-inf` together
    /// sum to NaN. A sum the property's type cannot hold (`Int8` values adding up past 127, or
    /// `Float` values whose finite ones add up past `Float`'s range, whatever infinities are
    /// beside them) is an error naming the property and the type. A `Date` has no sum, so `sum(\.born)` does not
    /// compile. Each aggregate's property may be one of a linked model through to-one links
    /// (`sum(\.team?.budget)`, a null link's value skipped), as a sort key may.
    public func sum<V: QueryableSummand>(_ keyPath: KeyPath<T, V>) throws -> V.Number {
        try ModelAggregate<T, V.Number>.sum(keyPath).output(over: results)
    }

    /// The mean of a numeric property, nulls and NaNs skipped; nil when there is no value (no
    /// object, or only nulls). An infinity is a value, as in ``sum(_:)``.
    public func average<V: QueryableSummand>(_ keyPath: KeyPath<T, V>) throws -> Double? {
        try ModelAggregate<T, Double?>.average(keyPath).output(over: results)
    }

    /// The least value of a numeric or date property, nulls skipped; nil when there is no
    /// value (no object, or only nulls). A value the type cannot hold (an `Int8` property
    /// holding 200 in the store) is an error naming the property and the type, as for ``sum(_:)``.
    public func min<V: QueryableExtremum>(_ keyPath: KeyPath<T, V>) throws -> V.Extremum? {
        try ModelAggregate<T, V.Extremum?>.min(keyPath).output(over: results)
    }

    /// The greatest value of a numeric or date property, nulls skipped; nil when there is no
    /// value (no object, or only nulls). A value the type cannot hold (an `Int8` property
    /// holding 200 in the store) is an error naming the property and the type, as for ``sum(_:)``.
    public func max<V: QueryableExtremum>(_ keyPath: KeyPath<T, V>) throws -> V.Extremum? {
        try ModelAggregate<T, V.Extremum?>.max(keyPath).output(over: results)
    }
}

/// Decimal to Double without Foundation's NSDecimalNumber.
enum NSDecimalNumberFree {
    static func double(_ d: Decimal) -> Double { Double(d.description) ?? .nan }
}

/// A type an aggregate's value reads as: the numbers and `Date` (the ``QueryableExtremum``s'
/// `Extremum`).
public protocol AggregateValue: StorableScalar {
    /// The value of an aggregate, or nil for null.
    init?(aggregate: Value)
}

extension BinaryInteger where Self: AggregateValue {
    public init?(aggregate: Value) {
        guard case .int(let i) = aggregate, let v = Self(exactly: i) else { return nil }
        self = v
    }
}

extension Int: AggregateValue {}
extension Int8: AggregateValue {}
extension Int16: AggregateValue {}
extension Int32: AggregateValue {}
extension Int64: AggregateValue {}

extension Double: AggregateValue {
    public init?(aggregate: Value) {
        switch aggregate {
        case .double(let d): self = d
        case .float(let f): self = Double(f)
        case .int(let i): self = Double(i)
        default: return nil
        }
    }
}

extension Float: AggregateValue {
    /// Nil for null, and for a `Double` beyond `Float`'s range (a sum of floats), which
    /// `Float` would read as infinity.
    public init?(aggregate: Value) {
        switch aggregate {
        case .double(let d):
            guard d.isInfinite || d.isNaN || Float(d).isFinite else { return nil }
            self = Float(d)
        case .float(let f): self = f
        case .int(let i): self = Float(i)
        default: return nil
        }
    }
}

extension Decimal: AggregateValue {
    public init?(aggregate: Value) {
        switch aggregate {
        case .decimal(let d): self = d
        case .int(let i): self = Decimal(i)
        default: return nil
        }
    }
}

extension Date: AggregateValue {
    public init?(aggregate: Value) {
        guard case .date(let d) = aggregate else { return nil }
        self = d
    }
}
