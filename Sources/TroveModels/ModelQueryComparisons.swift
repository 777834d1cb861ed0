#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

// The comparisons of a `ModelQuery`, as Realm Swift's `Query<T>` spells them. Each is
// inlinable, so that a `where` closure builds its condition in code specialized for its own
// model and value types, with no generic metadata looked up per query.

/// A property type that `==`, `!=` and `in` of a ``ModelQuery`` compare as one value: the
/// scalar types, their optionals, and an enum of scalar raw values that declares it (in place
/// of `StorableProperty`, which it refines):
///
/// ```swift
/// enum Mood: String, Codable, QueryableValue { case happy, grumpy }
/// let grumpy = try snapshot.objects(Pet.self, where: { $0.mood == .grumpy })
/// ```
///
/// A list is not one: it is queried by its elements (`$0.tags.contains("a")`) or its count,
/// so `$0.tags == ["a"]` does not compile.
public protocol QueryableValue: StorableProperty, Equatable {}

extension Bool: QueryableValue {}
extension Int: QueryableValue {}
extension Int8: QueryableValue {}
extension Int16: QueryableValue {}
extension Int32: QueryableValue {}
extension Int64: QueryableValue {}
extension Float: QueryableValue {}
extension Double: QueryableValue {}
extension String: QueryableValue {}
extension Date: QueryableValue {}
extension Data: QueryableValue {}
extension Decimal: QueryableValue {}
extension UUID: QueryableValue {}
extension Optional: QueryableValue where Wrapped: QueryableValue {}

extension ModelQueryExpression where Value: QueryableValue {
    /// `property == value`; `== nil` for an optional is `property == nil`.
    @inlinable
    public static func == (lhs: consuming Self, rhs: Value) -> ModelCondition<Root> {
        .comparison(lhs.path, .equal, rhs)
    }

    /// `property != value`.
    @inlinable
    public static func != (lhs: consuming Self, rhs: Value) -> ModelCondition<Root> {
        .comparison(lhs.path, .notEqual, rhs)
    }

    /// Two properties of the object are equal: `$0.name == $0.nickname`. One side may read
    /// through a list (`$0.dogs.name == $0.name` is `ANY dogs.name == name`), on the right as
    /// on the left (`$0.name == $0.dogs.name` is the same condition); both may not.
    @inlinable
    public static func == <R>(lhs: Self, rhs: ModelQueryExpression<Root, Value, R>) -> ModelCondition<Root> {
        ModelCondition(.comparison(lhs.path, .equal, options: 0, .property(rhs.path)), arguments: lhs.path.arguments(then: rhs.path.arguments(then: [])))
    }

    /// Two properties of the object differ.
    @inlinable
    public static func != <R>(lhs: Self, rhs: ModelQueryExpression<Root, Value, R>) -> ModelCondition<Root> {
        ModelCondition(.comparison(lhs.path, .notEqual, options: 0, .property(rhs.path)), arguments: lhs.path.arguments(then: rhs.path.arguments(then: [])))
    }

    /// The property is one of `values`: `property IN $0`, the values one list parameter
    /// (however many there are, one statement).
    @inlinable
    public func `in`<S: Sequence>(_ values: S) -> ModelCondition<Root> where S.Element == Value {
        do {
            let list = try values.map { try $0.storedValue() }
            return ModelCondition(.comparison(path, .in, options: 0, .argument), arguments: path.arguments(then: [.list(list)]))
        } catch {
            return ModelCondition(.unsupported("\(error)"), arguments: [])
        }
    }
}

extension ModelQueryExpression {
    /// A link or optional property is null: `$0.team == nil`.
    @inlinable
    public static func == (lhs: Self, rhs: _OptionalNilComparisonType) -> ModelCondition<Root> where Value: ExpressibleByNilLiteral {
        ModelCondition(.comparison(lhs.path, .equal, options: 0, .null), arguments: [])
    }

    /// A link or optional property is not null: `$0.team != nil`.
    @inlinable
    public static func != (lhs: Self, rhs: _OptionalNilComparisonType) -> ModelCondition<Root> where Value: ExpressibleByNilLiteral {
        ModelCondition(.comparison(lhs.path, .notEqual, options: 0, .null), arguments: [])
    }
}

extension ModelQueryExpression where Value: Comparable & StorableProperty {
    /// `property < value`.
    @inlinable
    public static func < (lhs: consuming Self, rhs: Value) -> ModelCondition<Root> { .comparison(lhs.path, .lessThan, rhs) }
    /// `property <= value`.
    @inlinable
    public static func <= (lhs: consuming Self, rhs: Value) -> ModelCondition<Root> { .comparison(lhs.path, .lessThanOrEqual, rhs) }
    /// `property > value`.
    @inlinable
    public static func > (lhs: consuming Self, rhs: Value) -> ModelCondition<Root> { .comparison(lhs.path, .greaterThan, rhs) }
    /// `property >= value`.
    @inlinable
    public static func >= (lhs: consuming Self, rhs: Value) -> ModelCondition<Root> { .comparison(lhs.path, .greaterThanOrEqual, rhs) }

    /// One property is less than another of the object: `$0.age < $0.limit`. One side may
    /// read through a list (`$0.dogs.age < $0.age` is `ANY dogs.age < age`), on the right as
    /// on the left (`$0.bestFriend.age < $0.dogs.age` is `bestFriend.age < dogs.age`, which
    /// holds when it holds for any dog); both may not.
    @inlinable
    public static func < <R>(lhs: Self, rhs: ModelQueryExpression<Root, Value, R>) -> ModelCondition<Root> {
        ModelCondition(.comparison(lhs.path, .lessThan, options: 0, .property(rhs.path)), arguments: lhs.path.arguments(then: rhs.path.arguments(then: [])))
    }

    /// One property is greater than another of the object.
    @inlinable
    public static func > <R>(lhs: Self, rhs: ModelQueryExpression<Root, Value, R>) -> ModelCondition<Root> {
        ModelCondition(.comparison(lhs.path, .greaterThan, options: 0, .property(rhs.path)), arguments: lhs.path.arguments(then: rhs.path.arguments(then: [])))
    }

    /// One property is at most another of the object: `$0.age <= $0.limit`.
    @inlinable
    public static func <= <R>(lhs: Self, rhs: ModelQueryExpression<Root, Value, R>) -> ModelCondition<Root> {
        ModelCondition(.comparison(lhs.path, .lessThanOrEqual, options: 0, .property(rhs.path)), arguments: lhs.path.arguments(then: rhs.path.arguments(then: [])))
    }

    /// One property is at least another of the object.
    @inlinable
    public static func >= <R>(lhs: Self, rhs: ModelQueryExpression<Root, Value, R>) -> ModelCondition<Root> {
        ModelCondition(.comparison(lhs.path, .greaterThanOrEqual, options: 0, .property(rhs.path)), arguments: lhs.path.arguments(then: rhs.path.arguments(then: [])))
    }

    /// The property is within `range`, both bounds included: `$0.age.contains(18...30)` is
    /// `age BETWEEN {$0, $1}`.
    @inlinable
    public func contains(_ range: ClosedRange<Value>) -> ModelCondition<Root> {
        do {
            let bounds = [try range.lowerBound.storedValue(), try range.upperBound.storedValue()]
            return ModelCondition(.between(path), arguments: path.arguments(then: bounds))
        } catch {
            return ModelCondition(.unsupported("\(error)"), arguments: [])
        }
    }

    /// The property is within `range`, its upper bound excluded: `$0.age.contains(18..<30)`
    /// is `age >= $0 AND age < $1`.
    @inlinable
    public func contains(_ range: Range<Value>) -> ModelCondition<Root> {
        self >= range.lowerBound && self < range.upperBound
    }
}

extension ModelQueryExpression {
    /// An optional property is less than a value (null is not): `$0.rating < 3`.
    @inlinable
    public static func < <W: Comparable & StorableProperty>(lhs: Self, rhs: W) -> ModelCondition<Root> where Value == W? {
        .comparison(lhs.path, .lessThan, rhs)
    }
    /// An optional property is at most a value.
    @inlinable
    public static func <= <W: Comparable & StorableProperty>(lhs: Self, rhs: W) -> ModelCondition<Root> where Value == W? {
        .comparison(lhs.path, .lessThanOrEqual, rhs)
    }
    /// An optional property is greater than a value.
    @inlinable
    public static func > <W: Comparable & StorableProperty>(lhs: Self, rhs: W) -> ModelCondition<Root> where Value == W? {
        .comparison(lhs.path, .greaterThan, rhs)
    }
    /// An optional property is at least a value.
    @inlinable
    public static func >= <W: Comparable & StorableProperty>(lhs: Self, rhs: W) -> ModelCondition<Root> where Value == W? {
        .comparison(lhs.path, .greaterThanOrEqual, rhs)
    }
}

/// The `[c]` and `[d]` options of a string comparison of a ``ModelQuery``, as Realm Swift's
/// `StringOptions`: `$0.name.contains("an", options: [.caseInsensitive, .diacriticInsensitive])`.
public struct QueryStringOptions: OptionSet, Sendable {
    /// The options' bits, those of the query text's `[c]` (1) and `[d]` (2).
    public let rawValue: UInt8

    /// The options of these bits; other bits name no option and are dropped, so that every
    /// set of options is one statement.
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0b11 }

    /// `[c]`: letters compare with full Unicode case folding.
    public static let caseInsensitive = QueryStringOptions(rawValue: 1 << 0)
    /// `[d]`: letters compare without their diacritics (`é` is `e`).
    public static let diacriticInsensitive = QueryStringOptions(rawValue: 1 << 1)
}

/// A property type the string comparisons of a ``ModelQuery`` apply to: `String` and
/// `String?`.
public protocol QueryableString: StorableProperty {}

extension String: QueryableString {}
extension Optional: QueryableString where Wrapped == String {}

extension ModelQueryExpression where Value: QueryableString {
    /// The string holds `substring`: `CONTAINS`.
    @inlinable
    public func contains(_ substring: String, options: QueryStringOptions = []) -> ModelCondition<Root> {
        .comparison(path, .contains, options: options.rawValue, substring)
    }

    /// The string starts with `prefix`: `BEGINSWITH`.
    @inlinable
    public func starts(with prefix: String, options: QueryStringOptions = []) -> ModelCondition<Root> {
        .comparison(path, .beginsWith, options: options.rawValue, prefix)
    }

    /// The string ends with `suffix`: `ENDSWITH`.
    @inlinable
    public func ends(with suffix: String, options: QueryStringOptions = []) -> ModelCondition<Root> {
        .comparison(path, .endsWith, options: options.rawValue, suffix)
    }

    /// The string equals `value` with `options`: `==[c]`.
    @inlinable
    public func equals(_ value: String, options: QueryStringOptions = []) -> ModelCondition<Root> {
        .comparison(path, .equal, options: options.rawValue, value)
    }

    /// The string matches the wildcard `pattern` (`*` any run of characters, `?` one): `LIKE`.
    @inlinable
    public func like(_ pattern: String, caseInsensitive: Bool = false) -> ModelCondition<Root> {
        .comparison(path, .like, options: caseInsensitive ? QueryStringOptions.caseInsensitive.rawValue : 0, pattern)
    }
}

extension ModelQueryExpression {
    /// The list holds `element`: `$0.tags.contains("a")` is `$0 IN tags`. A list of links is
    /// queried by a property of its objects instead (`$0.dogs.id == rex.id`).
    @inlinable
    public func contains<Element: StorableProperty>(_ element: Element) -> ModelCondition<Root> where Value == [Element] {
        if let model = element as? any PersistentModel {
            return ModelCondition(.modelElement(of: path, modelName: type(of: model).modelName), arguments: [])
        }
        do {
            let stored = try element.storedValue()
            return ModelCondition(.element(of: path), arguments: [stored])
        } catch {
            return ModelCondition(.unsupported("\(error)"), arguments: [])
        }
    }
}
