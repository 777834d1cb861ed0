import Trove

// Conditions on the elements of a list, one element at a time: `ANY`, `ALL` and `NONE` of a
// closure over an element, and Realm Swift's subquery count.

// On a list reached through no other: `SUBQUERY` and a quantified comparison are of one list,
// so `$0.dogs.owners.contains(where:)` does not compile (compare `$0.dogs.owners.age > 3`, or
// nest: `$0.dogs.contains(where: { $0.owners.contains(where: ...) })`).
extension ModelQueryExpression where Reach == QueryReach.One {
    /// Some element of the list meets `condition`, which reads one element (its `$0`):
    /// `$0.dogs.contains(where: { $0.age > 3 && $0.name == "Rex" })` holds when one dog does
    /// both. A single comparison is `ANY dogs.age > $0`; more is
    /// `SUBQUERY(dogs, $x0, $x0.age > $0 AND $x0.name == $1).@count > 0`. Its negation,
    /// `!$0.dogs.contains(where: { $0.age > 3 })`, is `NONE dogs.age > $0`.
    @inlinable
    public func contains<Element, C: ModelConditionConvertible<Root>>(
        where condition: (ModelQuery<Root, Element>) -> C
    ) -> ModelCondition<Root> where Value == [Element] {
        let inner = condition(ModelQuery<Root, Element>(path: path)).modelCondition()
        return ModelCondition(.any(path, inner.node), arguments: inner.arguments)
    }

    /// Every element of the list meets `condition` (true for an empty list):
    /// `$0.dogs.allSatisfy { $0.age > 3 }` is `ALL dogs.age > $0`; more than one comparison
    /// is `SUBQUERY(dogs, $x0, NOT (...)).@count == 0`. A list of values is its own element:
    /// `$0.scores.allSatisfy { $0 >= 5 }`.
    @inlinable
    public func allSatisfy<Element, C: ModelConditionConvertible<Root>>(
        _ condition: (ModelQuery<Root, Element>) -> C
    ) -> ModelCondition<Root> where Value == [Element] {
        let inner = condition(ModelQuery<Root, Element>(path: path)).modelCondition()
        return ModelCondition(.all(path, inner.node), arguments: inner.arguments)
    }
}

extension ModelCondition {
    /// The number of elements of a list that meet the condition, which reads only that
    /// list's elements, as Realm Swift's subquery: `($0.dogs.age > 3 && $0.dogs.name == "Rex").count > 0`
    /// is `SUBQUERY(dogs, $x0, $x0.age > $0 AND $x0.name == $1).@count > $2`, where the
    /// condition alone would let two dogs meet its two parts.
    @inlinable
    public var count: ModelQuery<Root, Int> {
        var path = ModelQueryPath()
        path.subquery = ModelSubquery(node: node, arguments: arguments)
        return ModelQuery(path: path)
    }
}

/// The condition a subquery counts the elements of, with its parameters' values, which come
/// before those of the comparison of its count. Compared by the condition's shape alone.
@usableFromInline
final class ModelSubquery: Hashable, @unchecked Sendable {
    @usableFromInline let node: ModelConditionNode
    @usableFromInline let arguments: [Value]

    @inlinable init(node: ModelConditionNode, arguments: [Value]) {
        self.node = node
        self.arguments = arguments
    }

    @usableFromInline static func == (a: ModelSubquery, b: ModelSubquery) -> Bool { a.node == b.node }

    @usableFromInline func hash(into hasher: inout Hasher) { hasher.combine(node) }
}
