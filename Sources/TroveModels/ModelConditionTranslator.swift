import Trove

/// Translates a ``ModelCondition``'s node into Trove's query AST: each key path becomes the
/// property name the model's table gives it, each `.argument` operand the next parameter.
/// `&&` and `||` chains become one n-ary `AND`/`OR`, as the parser reads `a AND b AND c`, so
/// the condition prints as the query text a person would write.
struct ModelConditionTranslator {
    private var parameters: Int

    /// The predicate of `node` over `root`, whose parameters start at `$firstParameter` (after
    /// those of a predicate it is joined to).
    static func predicate(of node: ModelConditionNode, root: any PersistentModel.Type, firstParameter: Int = 0) throws -> QueryPredicate {
        var translator = ModelConditionTranslator(parameters: firstParameter)
        return try translator.predicate(node, root: root)
    }

    private mutating func nextParameter() -> QueryExpression {
        defer { parameters += 1 }
        return .parameter(parameters)
    }

    private mutating func predicate(_ node: ModelConditionNode, root: any PersistentModel.Type) throws -> QueryPredicate {
        switch node {
        case .comparison(let path, let op, let options, let operand):
            let (left, throughList) = try Self.expression(path, root: root)
            let right: QueryExpression = switch operand {
            case .argument: nextParameter()
            case .null: .null
            case .property(let other): try Self.expression(other, root: root).expression
            }
            return .comparison(.init(quantifier: throughList ? .any : nil, left, op.queryOperator,
                                     options: StringComparisonOptions(rawValue: options), right))
        case .element(let path):
            let (list, _) = try Self.expression(path, root: root)
            return .comparison(.init(nextParameter(), .in, list))
        case .between(let path):
            let (value, throughList) = try Self.expression(path, root: root)
            return QueryPredicate(.between(.init(quantifier: throughList ? .any : nil, value, lower: nextParameter(), upper: nextParameter())))
        case .modelElement(let path, let modelName):
            let (list, _) = try Self.expression(path, root: root)
            throw ModelQueryError("where: a \(modelName) value is not a query constant: compare a property of the list's objects, such as its primary key ($0.\(list).id == value.id)")
        case .and(let lhs, let rhs):
            let left = try predicate(lhs, root: root)
            return .and(flattening: left, try predicate(rhs, root: root))
        case .or(let lhs, let rhs):
            let left = try predicate(lhs, root: root)
            return .or(flattening: left, try predicate(rhs, root: root))
        case .not(let inner):
            return .not(try predicate(inner, root: root))
        case .unsupported(let reason):
            throw ModelQueryError("where: \(reason)")
        }
    }

    /// The key path (or list count) `path` reads, and whether it crosses a list of links,
    /// which makes a comparison of it an `ANY` one.
    static func expression(_ path: ModelQueryPath, root: any PersistentModel.Type) throws -> (expression: QueryExpression, throughList: Bool) {
        var model: (any PersistentModel.Type)? = root
        var names: [QueryIdentifier] = []
        var throughList = false
        let keyPaths = path.keyPaths
        guard !keyPaths.isEmpty else { throw ModelQueryError("where: the queried object itself is compared; compare one of its properties") }
        for (position, keyPath) in keyPaths.enumerated() {
            guard let current = model else { throw ModelQueryError("where: \(keyPath) does not start from a model object") }
            let property = try current._storedProperty(keyPath)
            names.append(QueryIdentifier(property.schema.name))
            switch property.schema.type {
            case .link:
                model = property.linkedModel
            case .list, .linkingObjects:
                if position < keyPaths.count - 1 { throughList = true }
                model = property.linkedModel
            default:
                model = nil
            }
        }
        let keyPath = QueryKeyPath(components: names)
        if path.counts {
            // `ANY dogs.owners.@count` is no query: a count is of one list, not of each of a list's.
            if throughList {
                throw ModelQueryError("where: $0.\(keyPath).count counts a list of each object of a list (ANY \(keyPath).@count), which the query language has no form for: count one list ($0.\(names[0].name).count) or compare a property of the list's objects")
            }
            return (QueryExpression(.aggregate(.init(collection: keyPath, function: .count))), throughList)
        }
        return (QueryExpression(.keyPath(keyPath)), throughList)
    }
}

extension ModelQueryOperator {
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
