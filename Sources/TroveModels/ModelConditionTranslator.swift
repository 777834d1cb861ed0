import Trove

/// Translates a ``ModelCondition``'s node into Trove's query AST: each key path becomes the
/// property name the model's table gives it, each `.argument` operand the next parameter.
/// `&&` and `||` chains become one n-ary `AND`/`OR`, as the parser reads `a AND b AND c`, so
/// the condition prints as the query text a person would write.
struct ModelConditionTranslator {
    private let root: any PersistentModel.Type
    private var parameters: Int
    private var subqueries = 0
    /// The subqueries being translated, innermost last: a key path that starts with one's
    /// list reads that list's element, its variable.
    private var scopes: [Scope] = []

    private struct Scope {
        /// The key paths to the list, from the queried model.
        let list: [AnyKeyPath]
        let variable: QueryIdentifier
        /// The model of the list's elements; nil for a list of values.
        let element: (any PersistentModel.Type)?
    }

    /// A key path resolved against the models: where it starts and the names it reads.
    private struct Resolved {
        /// The subquery variable it starts from, or nil for the queried object.
        var variable: QueryIdentifier?
        /// How many of the key paths the variable stands for.
        var scoped = 0
        var names: [QueryIdentifier] = []
        /// The positions in ``names`` of lists of links, linking objects and lists of values.
        var lists: [Int] = []
        /// The model the last name leads to, nil for a value.
        var model: (any PersistentModel.Type)?

        func keyPath(_ range: Range<Int>? = nil) -> QueryKeyPath {
            QueryKeyPath(variable: variable, components: Array(names[range ?? names.indices]))
        }
    }

    private init(root: any PersistentModel.Type, parameters: Int) {
        self.root = root
        self.parameters = parameters
    }

    /// The predicate of `node` over `root`, whose parameters start at `$firstParameter` (after
    /// those of a predicate it is joined to).
    static func predicate(of node: ModelConditionNode, root: any PersistentModel.Type, firstParameter: Int = 0) throws -> QueryPredicate {
        var translator = ModelConditionTranslator(root: root, parameters: firstParameter)
        return try translator.predicate(node)
    }

    private mutating func nextParameter() -> QueryExpression {
        defer { parameters += 1 }
        return .parameter(parameters)
    }

    private mutating func predicate(_ node: ModelConditionNode) throws -> QueryPredicate {
        switch node {
        case .comparison(let path, let op, let options, let operand):
            return .comparison(try comparison(path, op, options, operand))
        case .element(let path):
            let (list, _) = try expression(path)
            return .comparison(.init(nextParameter(), .in, list))
        case .between(let path):
            return QueryPredicate(.between(try between(path)))
        case .modelElement(let path, let modelName):
            let (list, _) = try expression(path)
            throw ModelQueryError("where: a \(modelName) value is not a query constant: compare a property of the list's objects, such as its primary key ($0.\(list).id == value.id)")
        case .and(let lhs, let rhs):
            let left = try predicate(lhs)
            return .and(flattening: left, try predicate(rhs))
        case .or(let lhs, let rhs):
            let left = try predicate(lhs)
            return .or(flattening: left, try predicate(rhs))
        case .not(.any(let list, let inner)):
            if let quantified = try quantified(.noneOf, list, inner) { return quantified }
            return .not(try predicate(.any(list, inner)))
        case .not(let inner):
            // `NOT ANY list.x == v` is `NONE list.x == v`, as `!list.contains(where:)` gives it.
            let negated = try predicate(inner)
            switch negated.kind {
            case .comparison(var comparison) where comparison.quantifier == .any:
                comparison.quantifier = .noneOf
                return .comparison(comparison)
            default:
                return .not(negated)
            }
        case .any(let list, let inner):
            if let quantified = try quantified(.any, list, inner) { return quantified }
            let count = QueryExpression(.subqueryCount(try subquery(inner, list: list.keyPaths)))
            return .comparison(.init(count, .greaterThan, .int(0)))
        case .all(let list, let inner):
            if let quantified = try quantified(.all, list, inner) { return quantified }
            let count = QueryExpression(.subqueryCount(try subquery(.not(inner), list: list.keyPaths)))
            return .comparison(.init(count, .equal, .int(0)))
        case .unsupported(let reason):
            throw ModelQueryError("where: \(reason)")
        }
    }

    /// `inner` over the elements of `list` as one quantified comparison (`ALL dogs.age > $0`),
    /// when it is one comparison with a value of a path through that list and no other: what a
    /// person would write. Nil when it needs a subquery.
    private mutating func quantified(_ quantifier: Quantifier, _ list: ModelQueryPath, _ inner: ModelConditionNode) throws -> QueryPredicate? {
        // The one comparison, as `(path, op, options, operand)`, or a `BETWEEN`'s path.
        let path: ModelQueryPath
        var compared: (ModelQueryOperator, UInt8, ModelQueryOperand)?
        switch inner {
        case .comparison(let p, let op, let options, let operand) where operand == .argument || operand == .null:
            path = p
            compared = (op, options, operand)
        case .between(let p): path = p
        // Of one element, a value not equal is `!=` (a null one too): `!$0.isGood` of a dog.
        case .not(.comparison(let p, .equal, let options, let operand)) where operand == .argument || operand == .null:
            path = p
            compared = (.notEqual, options, operand)
        default: return nil
        }
        let listPaths = list.keyPaths
        guard path.aggregate == nil, path.subquery == nil, path.keyPaths.starts(with: listPaths) else { return nil }
        // Through that list alone: `ALL dogs.owners.age` would quantify over every owner of every dog.
        guard try resolve(path.keyPaths).lists.count == resolve(listPaths).lists.count else { return nil }
        if let (op, options, operand) = compared {
            var comparison = try comparison(path, op, options, operand)
            comparison.quantifier = quantifier
            return .comparison(comparison)
        }
        var between = try between(path)
        between.quantifier = quantifier
        return QueryPredicate(.between(between))
    }

    /// `path op operand`, `ANY` when the path crosses a list of links before its end.
    private mutating func comparison(_ path: ModelQueryPath, _ op: ModelQueryOperator, _ options: UInt8,
                                     _ operand: ModelQueryOperand) throws -> QueryPredicate.Comparison {
        let (left, throughList) = try expression(path)
        let right: QueryExpression
        switch operand {
        case .argument: right = nextParameter()
        case .null: right = .null
        case .property(let other):
            right = try expression(other).expression
            // Each side would be any of its list's values, and the query language quantifies
            // one side only: refused here, named as written, rather than by the binder.
            if try readsList(path), try readsList(other) {
                throw ModelQueryError("where: \(op.written(left, right)) compares two paths through lists; only one side of a comparison may cross a list (compare the other with a value, or with a property of the object)")
            }
        }
        return .init(quantifier: throughList ? .any : nil, left, op.queryOperator, options: StringComparisonOptions(rawValue: options), right)
    }

    /// `path BETWEEN {$n, $n+1}`, `ANY` when the path crosses a list of links before its end.
    private mutating func between(_ path: ModelQueryPath) throws -> QueryPredicate.Between {
        let (value, throughList) = try expression(path)
        return .init(quantifier: throughList ? .any : nil, value, lower: nextParameter(), upper: nextParameter())
    }

    /// `SUBQUERY(list, $xN, condition)`: `list` the key paths to the list, or nil for the
    /// list the condition's first key path crosses first (Realm Swift's subquery count).
    private mutating func subquery(_ node: ModelConditionNode, list: [AnyKeyPath]?) throws -> QueryExpression.Subquery {
        let listPaths: [AnyKeyPath]
        if let list {
            listPaths = list
        } else {
            guard let first = node.firstPath else { throw ModelQueryError("where: a subquery's condition reads no property of a list") }
            let resolved = try resolve(first.keyPaths)
            guard let position = resolved.lists.first else {
                throw ModelQueryError("where: the condition of .count reads \(resolved.keyPath()), which crosses no list: a subquery counts the elements of a list that meet it")
            }
            listPaths = Array(first.keyPaths[..<(resolved.scoped + position + 1)])
        }
        let resolved = try resolve(listPaths)
        guard let last = resolved.lists.last, last == resolved.names.count - 1 else {
            throw ModelQueryError("where: \(resolved.keyPath()) is not a list")
        }
        let variable = QueryIdentifier("x\(subqueries)")
        subqueries += 1
        scopes.append(Scope(list: listPaths, variable: variable, element: resolved.model))
        defer { scopes.removeLast() }
        return .init(collection: resolved.keyPath(), variable: variable, predicate: try predicate(node))
    }

    /// The names `keyPaths` read, from the innermost subquery's element whose list they start
    /// with, or from the queried object.
    private func resolve(_ keyPaths: [AnyKeyPath]) throws -> Resolved {
        var resolved = Resolved()
        var model: (any PersistentModel.Type)? = root
        if let scope = scopes.last(where: { keyPaths.starts(with: $0.list) }) {
            resolved.variable = scope.variable
            resolved.scoped = scope.list.count
            model = scope.element
        } else if let scope = scopes.last {
            throw ModelQueryError("where: a subquery's condition reads \(keyPaths.last.map { "\($0)" } ?? "the object"), which is not of the list's elements (\(scope.list.last.map { "\($0)" } ?? ""))")
        }
        for keyPath in keyPaths.dropFirst(resolved.scoped) {
            guard let current = model else { throw ModelQueryError("where: \(keyPathName(keyPath)) does not start from a model object") }
            let property = try current._storedProperty(keyPath)
            resolved.names.append(QueryIdentifier(property.schema.name))
            switch property.schema.type {
            case .link:
                model = property.linkedModel
            case .list, .linkingObjects:
                resolved.lists.append(resolved.names.count - 1)
                model = property.linkedModel
            default:
                model = nil
            }
        }
        resolved.model = model
        return resolved
    }

    /// Whether `path` reads the values of a list: a key path that crosses a list or ends at a
    /// list of values, not an aggregate or a subquery count, which are one value.
    private func readsList(_ path: ModelQueryPath) throws -> Bool {
        guard path.aggregate == nil, path.subquery == nil, !path.keyPaths.isEmpty else { return false }
        return try !resolve(path.keyPaths).lists.isEmpty
    }

    /// The key path, aggregate or subquery count `path` reads, and whether it crosses a list of
    /// links before its end, which makes a comparison of it an `ANY` one.
    private mutating func expression(_ path: ModelQueryPath) throws -> (expression: QueryExpression, throughList: Bool) {
        if let subquery = path.subquery {
            return (QueryExpression(.subqueryCount(try self.subquery(subquery.node, list: nil))), false)
        }
        let keyPaths = path.keyPaths
        guard !keyPaths.isEmpty else { throw ModelQueryError("where: the queried object itself is compared; compare one of its properties") }
        let resolved = try resolve(keyPaths)
        let keyPath = resolved.keyPath()
        guard let aggregate = path.aggregate else {
            return (QueryExpression(.keyPath(keyPath)), resolved.lists.contains { $0 < resolved.names.count - 1 })
        }
        // The two errors below are unreachable from a `where:` closure, whose types give the
        // aggregates only to a path through one list or a list of values (`QueryReach`); they
        // guard paths built otherwise (TranslatorGuardTests builds them).
        guard let list = resolved.lists.first else {
            throw ModelQueryError("where: $0.\(keyPath).\(aggregate.name) aggregates a list, and \(keyPath) crosses none")
        }
        // `ANY dogs.owners.@count` is no query: an aggregate is of one list, not of each of a list's.
        if resolved.lists.count > 1 || (aggregate == .count && list < resolved.names.count - 1) {
            let outer = resolved.keyPath(0..<(list + 1))
            let inner = QueryKeyPath(components: Array(resolved.names[(list + 1)...]))
            throw ModelQueryError("where: $0.\(keyPath).\(aggregate.name) aggregates a list of each object of \(outer), which the query language has no form for: aggregate it in the closure of an element ($0.\(outer).contains(where: { $0.\(inner).\(aggregate.name) ... }))")
        }
        let property = list < resolved.names.count - 1 ? QueryKeyPath(components: Array(resolved.names[(list + 1)...])) : nil
        return (QueryExpression(.aggregate(.init(collection: resolved.keyPath(0..<(list + 1)), function: aggregate.function, property: property))), false)
    }
}

extension ModelConditionNode {
    /// The first key path the condition reads, left to right.
    var firstPath: ModelQueryPath? {
        switch self {
        case .comparison(let path, _, _, _), .element(let path), .between(let path), .modelElement(let path, _): path
        case .and(let lhs, _), .or(let lhs, _): lhs.firstPath
        case .not(let inner): inner.firstPath
        case .any(let list, _), .all(let list, _): list
        case .unsupported: nil
        }
    }
}

extension ModelQueryOperator {
    /// `$0.lhs op $0.rhs` as a `where:` closure writes it, for errors.
    func written(_ lhs: QueryExpression, _ rhs: QueryExpression) -> String {
        switch self {
        case .equal: "$0.\(lhs) == $0.\(rhs)"
        case .notEqual: "$0.\(lhs) != $0.\(rhs)"
        case .lessThan: "$0.\(lhs) < $0.\(rhs)"
        case .lessThanOrEqual: "$0.\(lhs) <= $0.\(rhs)"
        case .greaterThan: "$0.\(lhs) > $0.\(rhs)"
        case .greaterThanOrEqual: "$0.\(lhs) >= $0.\(rhs)"
        case .beginsWith: "$0.\(lhs).starts(with: $0.\(rhs))"
        case .endsWith: "$0.\(lhs).ends(with: $0.\(rhs))"
        case .contains: "$0.\(lhs).contains($0.\(rhs))"
        case .like: "$0.\(lhs).like($0.\(rhs))"
        case .in: "$0.\(lhs).in($0.\(rhs))"
        }
    }

    var queryOperator: ComparisonOperator {
        switch self {
        case .equal: .equal
        case .notEqual: .notEqual
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqual
        case .greaterThan: .greaterThan
        case .greaterThanOrEqual: .greaterThanOrEqual
        case .beginsWith: .beginsWith
        case .endsWith: .endsWith
        case .contains: .contains
        case .like: .like
        case .in: .in
        }
    }
}
