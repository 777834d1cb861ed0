import Trove

/// What a `where:` closure returns: a ``ModelCondition``, or a `Bool` or `Bool?` property by
/// itself, which holds when the property is true (a null one is not), as in Realm Swift:
///
/// ```swift
/// let active = try snapshot.objects(Member.self, where: { $0.isActive })
/// let others = try snapshot.objects(Member.self, where: { !$0.isActive && $0.age > 30 })
/// ```
///
/// `$0.isActive` is `isActive == true` (`$0` a parameter bound to `true`): one statement with
/// `$0.isActive == true`, whose translation and plan are cached alike.
public protocol ModelConditionConvertible<Root> {
    /// The model the condition selects objects of.
    associatedtype Root: PersistentModel
    /// The condition this stands for. Consuming, so that a closure that returns a condition
    /// hands it over with no copy.
    consuming func modelCondition() -> ModelCondition<Root>
}

extension ModelCondition: ModelConditionConvertible {
    /// The condition itself.
    @inlinable public consuming func modelCondition() -> ModelCondition<Root> { self }
}

/// A property type that is a condition by itself in a `where:` closure: `Bool` and `Bool?`.
public protocol QueryableBool: QueryableValue {}

extension Bool: QueryableBool {}
extension Optional: QueryableBool where Wrapped == Bool {}

extension ModelQueryExpression: ModelConditionConvertible where Value: QueryableBool {
    /// The property is true: `property == true`.
    @inlinable public consuming func modelCondition() -> ModelCondition<Root> { .comparison(path, .equal, true) }

    /// The property is not true: `NOT property == true`, the opposite of `$0.property` (a
    /// null `Bool?`, a null link on the way, or a list with no true element is selected:
    /// `!$0.dogs.isGood` is `NONE dogs.isGood == true`). A `Bool` of the object itself is
    /// `property == false`, which an index answers; so is one of a list's element in
    /// `contains(where:)` or `allSatisfy(_:)` (`ALL dogs.isGood != true`).
    @inlinable
    public static prefix func ! (query: Self) -> ModelCondition<Root> {
        // `== false` only with no link or list on the way, where no null can stand for the value.
        Value.self == Bool.self && query.path.links.isEmpty ? .comparison(query.path, .equal, false) : !query.modelCondition()
    }
}

// One generic operator each, for conditions and `Bool` properties alike, and no concrete
// `ModelCondition && ModelCondition` beside it: the type checker tries every overload at each
// `&&` of a closure, and a second one made six comparisons take about 9 times as long.
extension ModelConditionConvertible {
    /// Both conditions: `AND`. Either side may be a `Bool` property alone (`$0.isActive && $0.age > 3`).
    @inlinable
    public static func && <Other: ModelConditionConvertible<Root>>(lhs: Self, rhs: Other) -> ModelCondition<Root> {
        let l = lhs.modelCondition(), r = rhs.modelCondition()
        return ModelCondition(.and(l.node, r.node), arguments: l.arguments + r.arguments)
    }

    /// Either condition: `OR`. Either side may be a `Bool` property alone.
    @inlinable
    public static func || <Other: ModelConditionConvertible<Root>>(lhs: Self, rhs: Other) -> ModelCondition<Root> {
        let l = lhs.modelCondition(), r = rhs.modelCondition()
        return ModelCondition(.or(l.node, r.node), arguments: l.arguments + r.arguments)
    }
}
