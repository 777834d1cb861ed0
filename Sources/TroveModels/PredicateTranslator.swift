#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

/// Translates a Foundation `Predicate` into Trove's query AST by walking its expression tree,
/// so that a typed query is planned, explained and run exactly as the query text it prints.
///
/// Constants become parameters (`$0`, `$1`, ...), so one predicate shape is one query text and
/// one cached template whatever the captured values. A construct with no translation is a
/// ``ModelQueryError`` naming it: nothing is evaluated per object in Swift.
struct PredicateTranslator {
    /// The values of `$0`, `$1`, ... in order.
    private(set) var arguments: [Value] = []
    /// Where each argument comes from among `constants`; nil when one has no such source.
    private(set) var argumentSources: [ArgumentSource]? = []
    /// The value of each captured constant (`PredicateExpressions.Value`), in the order read.
    private(set) var constants: [Value] = []
    /// The outcome of each comparison of two constants folded away (`??`), in the order folded:
    /// a translation is cached only where its shape holds the same outcomes.
    private(set) var folds: [Bool] = []
    private var bindings: [PredicateExpressions.VariableID: Term] = [:]
    private var subqueries = 0
    /// Node translations by node type, as a shape's first walk found them.
    private var translatables: [ObjectIdentifier: any TranslatableExpression.Type] = [:]

    /// The predicate's condition over objects of `T`.
    static func translate<T: PersistentModel>(_ predicate: Predicate<T>) throws -> (QueryPredicate, [Value]) {
        let translated = try PredicateTranslationCache.translate(predicate)
        return (translated.condition, translated.arguments)
    }

    /// The translation of `predicate` by a walk of its tree, with where its parameters come from.
    /// `translatables` gives node types' translations known without a conformance lookup; a
    /// node of another type is cast, and one with no translation is named in the error.
    static func translation<T: PersistentModel>(of predicate: Predicate<T>,
                                                translatables: [ObjectIdentifier: any TranslatableExpression.Type] = [:]) throws
        -> (condition: QueryPredicate, arguments: [Value], sources: [ArgumentSource]?, constants: [Value], folds: [Bool])
    {
        var translator = PredicateTranslator()
        translator.translatables = translatables
        translator.bindings[predicate.variable.key] = .object(ObjectTerm(model: T.self, path: QueryKeyPath(components: [])))
        let condition = try translator.predicate(predicate.expression)
        return (condition, translator.arguments, translator.argumentSources, translator.constants, translator.folds)
    }

    // MARK: Terms

    /// What an expression stands for in a query.
    enum Term {
        case predicate(QueryPredicate)
        /// A predicate through a to-one link, nil in Swift when the link is null (`if let` and
        /// `?.` in a predicate): `guardPath` is that link.
        case optionalPredicate(QueryPredicate, guardPath: QueryKeyPath)
        /// A scalar key path, or an aggregate over a list; `type` is its Swift type.
        case value(QueryExpression, type: Any.Type)
        /// A model object: the queried one, one through links, or a subquery's element.
        case object(ObjectTerm)
        /// A list property; `element` is its model for a list of links.
        case list(QueryKeyPath, element: (any PersistentModel.Type)?, type: Any.Type)
        /// A value known without reading an object; `source` is its index in `constants`, nil
        /// for a literal `nil`.
        case constant(Value, type: Any.Type, source: Int?)
        /// `x ?? c`: the scalar key path `x` (of Swift type `type`), and the constant `c`
        /// where it is null. Only a comparison takes it.
        case coalesced(QueryExpression, type: Any.Type, default: Value, defaultType: Any.Type, source: Int?)
    }

    struct ObjectTerm {
        var model: any PersistentModel.Type
        var path: QueryKeyPath
    }

    mutating func term(_ expression: Any) throws -> Term {
        if !translatables.isEmpty, let node = translatables[ObjectIdentifier(type(of: expression))] {
            return try node.translate(expression, &self)
        }
        guard let translatable = expression as? any TranslatableExpression else {
            throw Self.unsupported(expression)
        }
        return try translatable.translate(&self)
    }

    /// `expression` as a condition: a Bool key path is `path == true`.
    mutating func predicate(_ expression: Any) throws -> QueryPredicate {
        switch try term(expression) {
        case .predicate(let p):
            return p
        case .optionalPredicate(let p, _):
            return p
        case .value(let e, let type) where Self.isBool(type):
            return .comparison(.init(e, .equal, .bool(true)))
        case .constant(.bool(let b), _, _):
            return QueryPredicate(.constant(b))
        default:
            throw ModelQueryError("#Predicate: \(Self.name(of: expression)) is not a condition")
        }
    }

    /// `value` as a query operand: a constant becomes the next parameter (null stays `nil`).
    /// `source` says which captured constant it is, for ``PredicateTranslationCache``.
    mutating func operand(_ value: Value, source: ArgumentSource?) -> QueryExpression {
        if value.isNull { return .null }
        arguments.append(value)
        if let source { argumentSources?.append(source) } else { argumentSources = nil }
        return .parameter(arguments.count - 1)
    }

    /// A captured constant read by the translation: its value and its index in `constants`.
    mutating func constant(_ value: Value) -> Int {
        constants.append(value)
        return constants.count - 1
    }

    mutating func bind(_ variable: PredicateExpressions.VariableID, to term: Term) {
        bindings[variable] = term
    }

    func binding(_ variable: PredicateExpressions.VariableID) throws -> Term {
        guard let term = bindings[variable] else { throw ModelQueryError("#Predicate: a variable used outside its closure") }
        return term
    }

    /// A fresh subquery variable name.
    mutating func subqueryVariable() -> QueryIdentifier {
        defer { subqueries += 1 }
        return QueryIdentifier("x\(subqueries)")
    }

    // MARK: Comparisons

    /// `lhs op rhs` over scalar operands; either side may be the constant.
    mutating func comparison(_ lhs: Any, _ op: ComparisonOperator, _ rhs: Any, construct: String,
                             options: StringComparisonOptions = []) throws -> QueryPredicate {
        let left = try term(lhs)
        let right = try term(rhs)
        return try comparison(left, op, right, construct: construct, options: options)
    }

    mutating func comparison(_ left: Term, _ op: ComparisonOperator, _ right: Term, construct: String,
                             options: StringComparisonOptions = []) throws -> QueryPredicate {
        if case .coalesced(let x, let type, let c, let cType, let source) = left {
            return try coalesced(x, type, .constant(c, type: cType, source: source), op, right, onLeft: true, construct, options)
        }
        if case .coalesced(let x, let type, let c, let cType, let source) = right {
            return try coalesced(x, type, .constant(c, type: cType, source: source), op, left, onLeft: false, construct, options)
        }
        // A condition through a link compared with true or false (`$0.dog?.isGood == true`).
        if case .optionalPredicate(let p, let guardPath) = left, case .constant(.bool(let b), _, _) = right, op == .equal || op == .notEqual {
            let wantsTrue = (op == .equal) == b
            let present = QueryPredicate.comparison(.init(QueryExpression(.keyPath(guardPath)), .notEqual, .null))
            return wantsTrue ? .and([present, p]) : .not(.and([present, p]))
        }
        if case .constant = left, case .optionalPredicate = right { return try comparison(right, op, left, construct: construct) }
        let l = try expression(left, construct: construct)
        let r = try expression(right, construct: construct)
        if l.isConstant && r.isConstant {
            throw ModelQueryError("#Predicate: \(construct) compares two constants; compare a property of the model")
        }
        return .comparison(.init(l, op, options: options, r))
    }

    /// `(x ?? c) op other` (`other op (x ?? c)` when `onLeft` is false): where `x` is null,
    /// `c op other` decides, so it is `(x != nil AND x op other) OR (x == nil AND c op other)`.
    /// When `other` is a constant, `c op other` is known here and folds away: the condition is
    /// `x op other` or `x == nil OR x op other`, and an index on `x` serves it as it serves
    /// `x op other`. The `x != nil` guard stays only where a null `x` could pass `x op other`
    /// (`!=` a value, `==` nil).
    private mutating func coalesced(_ x: QueryExpression, _ type: Any.Type, _ c: Term, _ op: ComparisonOperator, _ other: Term,
                                    onLeft: Bool, _ construct: String, _ options: StringComparisonOptions) throws -> QueryPredicate {
        func ordered(_ a: Term) -> (Term, Term) { onLeft ? (a, other) : (other, a) }
        let (l, r) = ordered(.value(x, type: type))
        let present = try comparison(l, op, r, construct: construct, options: options)
        let isNull = QueryPredicate.comparison(.init(x, .equal, .null))
        let notNull = QueryPredicate.comparison(.init(x, .notEqual, .null))
        guard case .constant(let y, _, _) = other, case .constant(let cValue, _, _) = c else {
            let (cl, cr) = ordered(c)
            let absent = try comparison(cl, op, cr, construct: construct, options: options)
            return .or([.and([notNull, present]), .and([isNull, absent])])
        }
        func holds(_ value: Value) -> Bool {
            onLeft ? ValueComparison.holds(value, op, y, options: options) : ValueComparison.holds(y, op, value, options: options)
        }
        let defaultHolds = holds(cValue)
        folds.append(defaultHolds)
        if defaultHolds { return .or(flattening: isNull, present) }
        return holds(.null) ? .and([notNull, present]) : present
    }

    /// The query operand of a term: a key path, an aggregate or a constant.
    mutating func expression(_ term: Term, construct: String) throws -> QueryExpression {
        switch term {
        case .value(let e, _):
            return e
        case .constant(let v, _, let source):
            return operand(v, source: source.map { ArgumentSource(constant: $0) })
        case .object(let object) where !object.path.components.isEmpty && object.path.variable == nil:
            // A link compared with nil.
            return QueryExpression(.keyPath(object.path))
        case .object:
            throw ModelQueryError("#Predicate: \(construct) compares a model object; compare one of its properties")
        case .list:
            throw ModelQueryError("#Predicate: \(construct) compares a list; use contains, contains(where:), allSatisfy, count or isEmpty")
        case .predicate, .optionalPredicate:
            throw ModelQueryError("#Predicate: \(construct) compares conditions; combine them with &&, || and !")
        case .coalesced:
            throw ModelQueryError("#Predicate: \(construct) takes a ?? expression, which only ==, !=, <, <=, >, >=, contains, starts(with:) "
                                  + "and localizedStandardContains compare; write the null case out: x == nil || \(construct) on x")
        }
    }

    // MARK: Names

    static func isBool(_ type: Any.Type) -> Bool { type == Bool.self || type == Bool?.self }

    /// The expression's type without its generic arguments (`Arithmetic`), for errors.
    static func name(of expression: Any) -> String {
        let full = String(describing: type(of: expression))
        return String(full.prefix { $0 != "<" })
    }

    static func unsupported(_ expression: Any) -> ModelQueryError {
        ModelQueryError("#Predicate: \(name(of: expression)) is not supported by Trove queries")
    }
}

/// A `PredicateExpressions` node Trove has a translation for.
protocol TranslatableExpression {
    func translate(_ translator: inout PredicateTranslator) throws -> PredicateTranslator.Term
}

extension TranslatableExpression {
    /// ``translate(_:)`` of `expression`, a value of this type: a cast to the type itself,
    /// with no conformance looked up.
    static func translate(_ expression: Any, _ translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        try (expression as! Self).translate(&translator)
    }
}
