#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

// The `PredicateExpressions` nodes with a translation into Trove's query AST. A node not
// listed here (arithmetic, conditionals, casts, subscripts, ...) makes the translator throw
// an error naming it.

extension PredicateExpressions.Variable: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        try t.binding(key)
    }
}

extension PredicateExpressions.Value: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        guard let storable = value as? any StorableProperty else {
            throw ModelQueryError("#Predicate: a constant of type \(Output.self) has no stored form")
        }
        let value = try storable.storedValue()
        return .constant(value, type: Output.self, source: t.constant(value))
    }
}

extension PredicateExpressions.NilLiteral: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        .constant(.null, type: Output.self, source: nil)
    }
}

extension PredicateExpressions.KeyPath: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        switch try t.term(root) {
        case .object(let object):
            return try Self.property(keyPath, of: object, output: Output.self)
        case .list(let path, _, _):
            if let array = Root.Output.self as? any CountedCollection.Type {
                if keyPath == array.countKeyPath {
                    return .value(QueryExpression(.aggregate(.init(collection: path, function: .count))), type: Int.self)
                }
                if keyPath == array.isEmptyKeyPath {
                    let count = QueryExpression(.aggregate(.init(collection: path, function: .count)))
                    return .predicate(.comparison(.init(count, .equal, .int(0))))
                }
            }
            throw ModelQueryError("#Predicate: of a list, only count and isEmpty can be read (\(keyPathName(keyPath)))")
        case .value(let e, _) where e.keyPath != nil && Root.Output.self == String.self:
            let size = QueryExpression(.aggregate(.init(collection: e.keyPath!, function: .size)))
            if keyPath == \String.count { return .value(size, type: Int.self) }
            if keyPath == \String.isEmpty { return .predicate(.comparison(.init(size, .equal, .int(0)))) }
            throw ModelQueryError("#Predicate: of a string, only count and isEmpty can be read (\(keyPathName(keyPath)))")
        default:
            throw ModelQueryError("#Predicate: the key path \(keyPathName(keyPath)) does not start from a model object")
        }
    }

    /// The term of the property `keyPath` of `object`: a link, a list or a value.
    static func property(_ keyPath: AnyKeyPath, of object: PredicateTranslator.ObjectTerm, output: Any.Type) throws -> PredicateTranslator.Term {
        let (schema, linked) = try object.model._storedProperty(keyPath)
        let path = QueryKeyPath(variable: object.path.variable, components: object.path.components + [QueryIdentifier(schema.name)])
        switch schema.type {
        case .link:
            return .object(.init(model: linked!, path: path))
        case .list, .linkingObjects:
            return .list(path, element: linked, type: output)
        default:
            return .value(QueryExpression(.keyPath(path)), type: output)
        }
    }
}

/// The collections whose `count` and `isEmpty` a predicate may read, by key path identity.
protocol CountedCollection {
    static var countKeyPath: AnyKeyPath { get }
    static var isEmptyKeyPath: AnyKeyPath { get }
}

extension Array: CountedCollection {
    static var countKeyPath: AnyKeyPath { \Array.count }
    static var isEmptyKeyPath: AnyKeyPath { \Array.isEmpty }
}

extension PredicateExpressions.Equal: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        .predicate(try t.comparison(lhs, .equal, rhs, construct: "=="))
    }
}

extension PredicateExpressions.NotEqual: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        .predicate(try t.comparison(lhs, .notEqual, rhs, construct: "!="))
    }
}

extension PredicateExpressions.Comparison: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let operation: ComparisonOperator = switch op {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqual
        case .greaterThan: .greaterThan
        case .greaterThanOrEqual: .greaterThanOrEqual
        @unknown default: throw ModelQueryError("#Predicate: the comparison \(op) is not supported by Trove queries")
        }
        return .predicate(try t.comparison(lhs, operation, rhs, construct: operation.rawValue))
    }
}

extension PredicateExpressions.Conjunction: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let left = try t.predicate(lhs)
        return .predicate(.and(flattening: left, try t.predicate(rhs)))
    }
}

extension PredicateExpressions.Disjunction: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let left = try t.predicate(lhs)
        return .predicate(.or(flattening: left, try t.predicate(rhs)))
    }
}

extension PredicateExpressions.Negation: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        .predicate(.not(try t.predicate(wrapped)))
    }
}

extension PredicateExpressions.CollectionContainsCollection: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        guard Base.Output.self == String.self else { throw PredicateTranslator.unsupported(self) }
        return .predicate(try t.comparison(base, .contains, other, construct: "contains"))
    }
}

extension PredicateExpressions.SequenceStartsWith: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        guard Base.Output.self == String.self else { throw PredicateTranslator.unsupported(self) }
        return .predicate(try t.comparison(base, .beginsWith, prefix, construct: "starts(with:)"))
    }
}

extension PredicateExpressions.SequenceContains: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        switch try t.term(sequence) {
        case .list(let path, nil, _):
            // A list of values holds the element.
            let value = try t.expression(try t.term(element), construct: "contains")
            return .predicate(.comparison(.init(value, .in, QueryExpression(.keyPath(path)))))
        case .constant(.list(let values), _, let source):
            // A captured array: the property is one of its values.
            let value = try t.expression(try t.term(element), construct: "contains")
            if value.isConstant { throw ModelQueryError("#Predicate: contains on a constant array needs a property of the model as its element") }
            if values.isEmpty { return .predicate(.falsePredicate) }
            let elements = values.indices.map { i in t.operand(values[i], source: source.map { ArgumentSource(constant: $0, element: i) }) }
            return .predicate(.comparison(.init(value, .in, .list(elements))))
        case .list:
            throw ModelQueryError("#Predicate: contains(_:) on a list of links compares objects; use contains(where:) on one of their properties")
        default:
            throw PredicateTranslator.unsupported(self)
        }
    }
}

extension PredicateExpressions.SequenceContainsWhere: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let (path, condition, variable) = try t.subquery(sequence, test, self.variable.key, construct: "contains(where:)")
        let count = QueryExpression(.subqueryCount(.init(collection: path, variable: variable, predicate: condition)))
        return .predicate(.comparison(.init(count, .greaterThan, .int(0))))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let (path, condition, variable) = try t.subquery(sequence, test, self.variable.key, construct: "allSatisfy")
        let count = QueryExpression(.subqueryCount(.init(collection: path, variable: variable, predicate: .not(condition))))
        return .predicate(.comparison(.init(count, .equal, .int(0))))
    }
}

extension PredicateTranslator {
    /// The list, condition and variable of `SUBQUERY(list, $x, condition)` for a closure over
    /// the elements of a list.
    mutating func subquery(_ sequence: Any, _ test: Any, _ variable: PredicateExpressions.VariableID, construct: String)
        throws -> (QueryKeyPath, QueryPredicate, QueryIdentifier)
    {
        guard case .list(let path, let element, let type) = try term(sequence) else {
            throw ModelQueryError("#Predicate: \(construct) applies to a list property of the model")
        }
        let name = subqueryVariable()
        let elementPath = QueryKeyPath(variable: name, components: [])
        if let element {
            bind(variable, to: .object(.init(model: element, path: elementPath)))
        } else {
            let elementType = (type as? any StorableList.Type)?.elementType ?? Any.self
            bind(variable, to: .value(QueryExpression(.keyPath(elementPath)), type: elementType))
        }
        return (path, try predicate(test), name)
    }
}

/// The element type of a list property, for the closures of contains(where:) and allSatisfy.
protocol StorableList {
    static var elementType: Any.Type { get }
}

extension Array: StorableList {
    static var elementType: Any.Type { Element.self }
}

extension PredicateExpressions.OptionalFlatMap: TranslatableExpression {
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let wrappedTerm = try t.term(wrapped)
        let guardPath: QueryKeyPath?
        switch wrappedTerm {
        case .object(let object): guardPath = object.path
        case .value(let e, _): guardPath = e.keyPath
        default: throw PredicateTranslator.unsupported(self)
        }
        t.bind(variable.key, to: wrappedTerm)
        switch try t.term(transform) {
        case .predicate(let p):
            guard let guardPath else { throw PredicateTranslator.unsupported(self) }
            return .optionalPredicate(p, guardPath: guardPath)
        case .coalesced:
            // Where the link is nil the result is nil, not the default: a `??` term carries no
            // guard for that, so the form is refused rather than given the default.
            throw ModelQueryError("#Predicate: flatMap { $0.property ?? default } is nil where the optional it maps is nil, not the default; "
                                  + "put the ?? outside, as in ($0.link?.property ?? default), or test the link: $0.link != nil && ...")
        case let other:
            return other
        }
    }
}

extension PredicateExpressions.NilCoalesce: TranslatableExpression {
    /// A Bool condition with a true or false default is a condition; an optional property with
    /// a constant default is a term a comparison takes (see `PredicateTranslator.coalesced`).
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let left = try t.term(lhs)
        let right = try t.term(rhs)
        switch (left, right) {
        case (.optionalPredicate(let p, let guardPath), .constant(.bool(let fallback), _, _)):
            let path = QueryExpression(.keyPath(guardPath))
            return .predicate(fallback
                ? .or([.comparison(.init(path, .equal, .null)), p])
                : .and([.comparison(.init(path, .notEqual, .null)), p]))
        case (.value(let e, let type), .constant(.bool(let fallback), _, _)) where PredicateTranslator.isBool(type):
            return .predicate(.comparison(.init(e, fallback ? .notEqual : .equal, .bool(!fallback))))
        case (.value(let e, let type), .constant(let c, let cType, let source)) where e.keyPath != nil:
            switch Self.folding(left: nil, right: c) {
            case .coalesced: return .coalesced(e, type: type, default: c, defaultType: cType, source: source)
            case .left: return left
            case .right: return right
            }
        case (.constant(let v, _, _), .constant(let c, _, _)):
            return Self.folding(left: v, right: c) == .right ? right : left
        default:
            throw ModelQueryError("#Predicate: ?? takes an optional property on its left and a constant (a literal or a captured value) "
                                  + "on its right, as in ($0.score ?? 0) > 1 compared with ==, !=, <, <=, >, >=, contains or starts(with:), "
                                  + "or a Bool condition with true or false; write other cases out: $0.score == nil || $0.score! > $0.age")
        }
    }
}

/// What a `lhs ?? rhs` with a constant `rhs` translates to: one of its sides, or a property
/// with a default that a comparison folds.
enum NilCoalesceFolding { case left, right, coalesced }

extension PredicateExpressions.NilCoalesce {
    /// How `lhs ?? rhs` folds, given the constant each side is (`left` nil for a property):
    /// two constants give the left unless it is null; a property with a nil default is the
    /// property; a property with another default is coalesced. The translator and the shape
    /// reader's fold marks both follow this, so a cached query's folds are the translator's.
    static func folding(left: Value?, right: Value) -> NilCoalesceFolding {
        guard let left else { return right.isNull ? .left : .coalesced }
        return left.isNull ? .right : .left
    }
}

extension PredicateExpressions.ForcedUnwrap: TranslatableExpression {
    /// A null link or value compares as null does in a query, where Swift would trap.
    func translate(_ t: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        try t.term(inner)
    }
}
