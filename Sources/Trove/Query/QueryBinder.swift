#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Checks a parsed predicate against the schema: resolves key paths through links and lists,
/// checks every operator against its operands' types, and types every constant (a string
/// meeting a date is read as ISO 8601, `$0` as a value of the property it meets).
///
/// Every failure is a `QueryError` pointing into the statement: an unknown property at its
/// name, a mismatched value at the value, an operator that does not apply at the operator.
struct QueryBinder {
    let layout: StoreLayout
    let arguments: [Value]
    /// The statement, so that errors can echo it under a caret.
    let statement: String?
    /// Notes each path comparison's constant as it is bound, for `BoundQueryTemplate`.
    var recorder: BindingRecorder?

    init(layout: StoreLayout, arguments: [Value], statement: String?) {
        self.layout = layout
        self.arguments = arguments
        self.statement = statement
    }

    /// What unqualified and `$x` key paths start from.
    private enum Subject {
        case model(ModelLayout)
        /// Inside `SUBQUERY(list, $x, ...)` over a list of objects.
        case objects(variable: String, ModelLayout)
        /// Inside `SUBQUERY(list, $x, ...)` over a list of primitives.
        case elements(variable: String, list: PropertyLayout)
    }

    // MARK: Statements

    /// The model a query names.
    func model(_ name: QueryIdentifier) throws -> ModelLayout {
        guard let model = layout.byName[name.name] else {
            throw error(.unknownModel, UnknownModelName.message(name.name, among: layout.models.map(\.name)), at: name.range.start)
        }
        return model
    }

    func bind(_ predicate: QueryPredicate, to model: ModelLayout) throws -> BoundPredicate {
        try bind(predicate, .model(model))
    }

    /// A key path for SORT or DISTINCT: at most one value per object, through to-one links.
    /// Sorting takes scalars only; DISTINCT also takes to-one links.
    func orderingKeyPath(_ path: QueryKeyPath, model: ModelLayout, clause: String, allowsLinks: Bool) throws -> BoundKeyPath {
        let bound = try resolve(path, .model(model))
        let p = bound.property
        guard !bound.isToMany else {
            throw error(.invalidKeyPath, "\(clause) needs one value per object; '\(bound.text)' crosses a list", at: path.range.start)
        }
        if p.isLink && !allowsLinks {
            throw error(.invalidKeyPath, "\(clause) needs a value; '\(bound.text)' is a link (sort by one of its properties, such as '\(bound.text).\(p.target?.primaryKey?.name ?? "name")')", at: path.range.start)
        }
        return bound
    }

    // MARK: Questions

    /// The SELECT item a SORT key names: the item whose name (its `AS NAME`, or its text when
    /// unnamed) is `path` as written, else the item written so; nil when none is. A key that
    /// is one item's name and another item's text would sort by either: it is refused, naming
    /// both, rather than settled by a rule a reader has to know.
    func sortItem(_ path: QueryKeyPath, in items: [(name: String, text: String)]) throws -> Int? {
        let written = path.description
        let named = items.firstIndex { $0.name == written }
        let writtenSo = items.firstIndex { $0.text == written }
        if let named, let writtenSo, items[named].text != items[writtenSo].text {
            func shown(_ item: (name: String, text: String)) -> String {
                item.name == item.text ? item.text : "\(item.text) AS \(item.name)"
            }
            throw error(.duplicateName, "SORT(\(written)) is ambiguous: '\(written)' is the name of the SELECT item '\(shown(items[named]))' and the text of the item '\(shown(items[writtenSo]))'; rename one with AS",
                        at: path.range.start)
        }
        return named ?? writtenSo
    }

    /// A key path of a SELECT item: any path from `model`.
    func selectedKeyPath(_ path: QueryKeyPath, model: ModelLayout) throws -> BoundKeyPath {
        try resolve(path, .model(model))
    }

    /// A list aggregate of a SELECT item (`dogs.@count`, `dogs.@avg.age`).
    func selectedAggregate(_ aggregate: QueryExpression.Aggregate, range: QuerySourceRange, model: ModelLayout) throws -> BoundAggregate {
        try bindAggregate(aggregate, range: range, .model(model))
    }

    /// The key path a `sum`, `avg`, `min`, `max` (statement or group aggregate) reads: one
    /// value per object, of a kind the function takes.
    /// `name` is the function as written (`sum`, `@sum`).
    func aggregatedKeyPath(_ path: QueryKeyPath, model: ModelLayout, function: AggregateFunction, name: String) throws -> BoundKeyPath {
        let bound = try orderingKeyPath(path, model: model, clause: name, allowsLinks: true)
        if let message = AggregateAccumulator.check(function, named: name, kind: bound.kind, text: bound.text) {
            throw error(.invalidAggregate, message, at: path.range.start)
        }
        return bound
    }

    // MARK: Predicates

    private func bind(_ predicate: QueryPredicate, _ subject: Subject) throws -> BoundPredicate {
        switch predicate.kind {
        case .constant(let value):
            return .constant(value)
        case .not(let operand):
            let bound = try bind(operand, subject)
            if case .constant(let value) = bound { return .constant(!value) }
            return .not(bound)
        case .and(let operands):
            var bound: [BoundPredicate] = []
            for operand in operands {
                switch try bind(operand, subject) {
                case .constant(true): continue
                case .constant(false): bound.append(.constant(false))
                case let other: bound.append(other)
                }
            }
            if bound.contains(where: { if case .constant(false) = $0 { true } else { false } }) { return .constant(false) }
            return bound.isEmpty ? .constant(true) : bound.count == 1 ? bound[0] : .and(bound)
        case .or(let operands):
            var bound: [BoundPredicate] = []
            for operand in operands {
                switch try bind(operand, subject) {
                case .constant(false): continue
                case .constant(true): bound.append(.constant(true))
                case let other: bound.append(other)
                }
            }
            if bound.contains(where: { if case .constant(true) = $0 { true } else { false } }) { return .constant(true) }
            return bound.isEmpty ? .constant(false) : bound.count == 1 ? bound[0] : .or(bound)
        case .comparison(let comparison):
            return try bindComparison(comparison, start: predicate.range.start, subject)
        case .between(let between):
            return try bindBetween(between, start: predicate.range.start, subject)
        }
    }

    private func bindComparison(_ c: QueryPredicate.Comparison, start: QuerySourceLocation, _ subject: Subject) throws -> BoundPredicate {
        let op = BoundOperator(c.op)
        if let leftPath = c.left.keyPath, c.right.isConstant {
            let path = try resolve(leftPath, subject)
            return .path(try pathComparison(c.quantifier, path, op, c.options, c.right, operatorRange: c.operatorRange, start: start))
        }
        if c.left.isConstant, let rightPath = c.right.keyPath {
            let path = try resolve(rightPath, subject)
            if op == .in {
                // `5 IN scores` is `ANY scores == 5`.
                guard path.isToMany else {
                    throw error(.typeMismatch, "IN needs a list on its right; '\(path.text)' is a single value", at: rightPath.range.start)
                }
                return .path(try pathComparison(.any, path, .equal, c.options, c.left, operatorRange: c.operatorRange, start: start))
            }
            if let swapped = op.swapped {
                return .path(try pathComparison(nil, path, swapped, c.options, c.left, operatorRange: c.operatorRange, start: start))
            }
        }
        return .general(try generalComparison(c, start: start, subject))
    }

    private func bindBetween(_ b: QueryPredicate.Between, start: QuerySourceLocation, _ subject: Subject) throws -> BoundPredicate {
        for bound in [b.lower, b.upper] where !bound.isConstant {
            throw error(.typeMismatch, "BETWEEN takes constant bounds", at: bound.range.start)
        }
        let bounds = QueryExpression(.literal(.list([b.lower, b.upper])), range: b.lower.range.union(b.upper.range))
        if let keyPath = b.value.keyPath {
            let path = try resolve(keyPath, subject)
            return .path(try pathComparison(b.quantifier, path, .between, [], bounds, operatorRange: b.value.range, start: start))
        }
        let (operand, kind) = try computedOperand(b.value, subject)
        guard kind.isOrderable else {
            throw error(.invalidOperator, "BETWEEN does not apply to \(kind)", at: b.value.range.start)
        }
        let constant = try typedList(bounds, kind: kind, op: .between)
        return .general(GeneralComparison(quantifier: .any, left: operand, op: .between, options: [], right: .constant(constant)))
    }

    /// `path op constant`, checked.
    private func pathComparison(
        _ quantifier: Quantifier?, _ path: BoundKeyPath, _ op: BoundOperator, _ options: StringComparisonOptions,
        _ constant: QueryExpression, operatorRange: QuerySourceRange, start: QuerySourceLocation
    ) throws -> PathComparison {
        if let quantifier, !path.isToMany {
            throw error(.invalidQuantifier, "\(quantifier) needs a key path that crosses a list; '\(path.text)' is a single value", at: start)
        }
        try checkOperator(op, options, kind: path.kind, operand: "'\(path.text)'", operatorRange: operatorRange)
        let value = try typedConstant(constant, kind: path.kind, op: op)
        if op == .matches, case .string(let pattern) = value {
            _ = try RegularExpressionPattern(pattern, options: options, at: constant.range.start, in: statement)
        }
        recorder?.leaves.append(BindingRecorder.Leaf(constant: constant, op: op))
        return PathComparison(quantifier: quantifier ?? .any, path: path, op: op, options: options, constant: value)
    }

    private func generalComparison(_ c: QueryPredicate.Comparison, start: QuerySourceLocation, _ subject: Subject) throws -> GeneralComparison {
        var op = BoundOperator(c.op)
        guard !(c.left.isConstant && c.right.isConstant) else {
            throw error(.typeMismatch, "a comparison needs a key path, an aggregate or a subquery on one side", at: start)
        }
        if case .elements(let variable, _) = subject {
            throw error(.invalidKeyPath, "inside this SUBQUERY, compare $\(variable) with values", at: start)
        }
        var quantifier = c.quantifier ?? .any
        var left: BoundOperand, right: BoundOperand
        if c.left.isConstant {
            guard op != .in else { throw error(.typeMismatch, "IN needs a list on its right", at: c.right.range.start) }
            let (operand, kind) = try computedOperand(c.right, subject)
            right = operand
            try checkOperator(op, c.options, kind: kind, operand: "the right side", operatorRange: c.operatorRange)
            left = .constant(try typed(c.left, kind: kind, op: op))
        } else {
            let (leftOperand, leftKind) = try computedOperand(c.left, subject)
            left = leftOperand
            if let quantifier = c.quantifier, !left.kindIsToMany {
                throw error(.invalidQuantifier, "\(quantifier) needs a key path that crosses a list", at: start)
            }
            if c.right.isConstant {
                try checkOperator(op, c.options, kind: leftKind, operand: "the left side", operatorRange: c.operatorRange)
                right = .constant(op == .in ? try typedList(c.right, kind: leftKind, op: op) : try typed(c.right, kind: leftKind, op: op))
            } else {
                let (rightOperand, rightKind) = try computedOperand(c.right, subject)
                right = rightOperand
                guard leftKind.isComparable(with: rightKind) else {
                    throw error(.typeMismatch, "cannot compare \(leftKind) with \(rightKind)", at: c.operatorRange.start)
                }
                if op == .in {
                    // `name IN otherList`: true when any element of the list equals the value.
                    guard right.kindIsToMany else {
                        throw error(.typeMismatch, "IN needs a list on its right", at: c.right.range.start)
                    }
                    op = .equal
                    quantifier = .any
                }
                try checkOperator(op, c.options, kind: leftKind, operand: "the left side", operatorRange: c.operatorRange)
                if left.kindIsToMany && right.kindIsToMany {
                    throw error(.typeMismatch, "only one side of a comparison may be a list", at: c.right.range.start)
                }
            }
        }
        return GeneralComparison(quantifier: quantifier, left: left, op: op, options: c.options, right: right)
    }

    /// A key path, aggregate or subquery count, with the kind of its values.
    private func computedOperand(_ expression: QueryExpression, _ subject: Subject) throws -> (BoundOperand, ValueKind) {
        switch expression.kind {
        case .keyPath(let keyPath):
            let path = try resolve(keyPath, subject)
            return (.path(path), path.kind)
        case .aggregate(let aggregate):
            let bound = try bindAggregate(aggregate, range: expression.range, subject)
            return (.aggregate(bound), bound.kind)
        case .subqueryCount(let subquery):
            return (.subqueryCount(try bindSubquery(subquery, range: expression.range, subject)), .int)
        case .literal, .parameter:
            throw error(.typeMismatch, "expected a key path", at: expression.range.start)
        }
    }

    private func checkOperator(
        _ op: BoundOperator, _ options: StringComparisonOptions, kind: ValueKind, operand: @autoclosure () -> String, operatorRange: QuerySourceRange
    ) throws {
        let at = operatorRange.start
        if !options.isEmpty && kind != .string {
            throw error(.invalidModifier, "\(options) applies to strings; \(operand()) is \(kind)", at: at)
        }
        if op.isStringOnly && kind != .string {
            throw error(.invalidOperator, "\(op.symbol) applies to strings; \(operand()) is \(kind)", at: at)
        }
        if op.isOrdering && !kind.isOrderable {
            throw error(.invalidOperator, "'\(op.symbol)' does not apply to \(kind) (\(operand())); it takes only == and !=", at: at)
        }
    }

    // MARK: Aggregates and subqueries

    private func bindAggregate(_ aggregate: QueryExpression.Aggregate, range: QuerySourceRange, _ subject: Subject) throws -> BoundAggregate {
        let collection = try resolve(aggregate.collection, subject)
        let function = aggregate.function
        let p = collection.property
        let isCollection = (p.isList || p.isLinkingObjects) && collection.hopsAreToOne
        if function == .count || function == .size {
            let isSized = function == .size && !collection.isToMany && (collection.kind == .string || collection.kind == .data)
            guard isCollection || isSized else {
                throw error(.invalidAggregate, "\(function) applies to a list\(function == .size ? ", a string or data" : ""); '\(collection.text)' is \(describe(collection))", at: range.start)
            }
            return BoundAggregate(function: function, values: collection, kind: .int)
        }
        guard isCollection else {
            throw error(.invalidAggregate, "\(function) applies to a list; '\(collection.text)' is \(describe(collection))", at: range.start)
        }
        var values = collection
        if let property = aggregate.property {
            guard let target = p.target, !p.isLink else {
                throw error(.invalidAggregate, "\(function).\(property.names.joined(separator: ".")) needs a list of objects; '\(collection.text)' is \(describe(collection))", at: range.start)
            }
            let element = try resolve(property, .model(target))
            guard !element.isToMany, element.hopsAreToOne, !element.property.isLink else {
                throw error(.invalidAggregate, "\(function) needs a single value per object; '\(element.text)' is \(describe(element))", at: property.range.start)
            }
            values = BoundKeyPath(hops: collection.hops + [p] + element.hops, terminal: element.terminal, kind: element.kind,
                                  text: collection.text + "." + element.text, range: collection.range.union(element.range))
        } else if p.target != nil {
            throw error(.invalidAggregate, "\(function) over a list of objects needs a property: '\(collection.text).\(function).property'", at: range.start)
        }
        let kind = values.kind
        if let refusal = function.refusal(named: "\(function)", of: values.text, type: kind.propertyType, holding: "\(kind)") {
            throw error(.invalidAggregate, refusal, at: range.start)
        }
        let resultKind: ValueKind
        switch function {
        case .sum: resultKind = kind == .int || kind == .decimal ? kind : .double
        case .avg: resultKind = kind == .decimal ? .decimal : .double
        default: resultKind = kind
        }
        return BoundAggregate(function: function, values: values, kind: resultKind)
    }

    private func bindSubquery(_ subquery: QueryExpression.Subquery, range: QuerySourceRange, _ subject: Subject) throws -> BoundSubquery {
        let collection = try resolve(subquery.collection, subject)
        let p = collection.property
        guard (p.isList || p.isLinkingObjects) && collection.hopsAreToOne else {
            throw error(.invalidKeyPath, "SUBQUERY needs a list; '\(collection.text)' is \(describe(collection))", at: subquery.collection.range.start)
        }
        let inner: Subject
        if let target = p.target {
            inner = .objects(variable: subquery.variable.name, target)
        } else {
            inner = .elements(variable: subquery.variable.name, list: p)
        }
        return BoundSubquery(collection: collection, predicate: try bind(subquery.predicate, inner))
    }

    // MARK: Key paths

    private func resolve(_ path: QueryKeyPath, _ subject: Subject) throws -> BoundKeyPath {
        var model: ModelLayout
        var text = ""
        if let variable = path.variable {
            text = "$" + variable.name
            switch subject {
            case .model:
                throw error(.unknownVariable, "'$\(variable.name)' is not declared here", at: variable.range.start)
            case .objects(let name, let m):
                guard name == variable.name else { throw innerVariableOnly(variable, name) }
                model = m
            case .elements(let name, let list):
                guard name == variable.name else { throw innerVariableOnly(variable, name) }
                if let first = path.components.first {
                    throw error(.unknownProperty, "the elements of '\(list.name)' are \(list.elementType) values, with no property '\(first.name)'", at: first.range.start)
                }
                guard let kind = ValueKind(list.elementType, target: nil) else {
                    throw error(.invalidKeyPath, "'\(list.name)' holds no values", at: variable.range.start)
                }
                return BoundKeyPath(hops: [], terminal: .element(list), kind: kind, text: text, range: path.range)
            }
            guard !path.components.isEmpty else {
                throw error(.invalidKeyPath, "compare a property of $\(variable.name), such as $\(variable.name).\(model.primaryKey?.name ?? model.properties.first?.name ?? "name")", at: variable.range.start)
            }
        } else {
            switch subject {
            case .model(let m):
                model = m
            case .objects(let name, _), .elements(let name, _):
                throw error(.invalidKeyPath, "inside SUBQUERY, key paths start with $\(name)", at: path.range.start)
            }
        }
        var hops: [PropertyLayout] = []
        for (index, component) in path.components.enumerated() {
            guard let p = model.byName[component.name] else {
                let suggestion = NameSuggestion.closest(to: component.name, among: model.properties.map(\.name))
                throw error(.unknownProperty, "'\(model.name)' has no property '\(component.name)'" + hint(suggestion), at: component.range.start)
            }
            text += text.isEmpty ? p.name : "." + p.name
            if index == path.components.count - 1 {
                guard let kind = ValueKind(p.type, target: p.target) else {
                    throw error(.unknownProperty, "'\(model.name).\(p.name)' links to a model the schema lacks", at: component.range.start)
                }
                return BoundKeyPath(hops: hops, terminal: .property(p), kind: kind, text: text, range: path.range)
            }
            guard let target = p.target else {
                let next = path.components[index + 1]
                throw error(.unknownProperty, "'\(text)' is \(p.schema.typeString), not a link; it has no property '\(next.name)'", at: next.range.start)
            }
            hops.append(p)
            model = target
        }
        throw error(.invalidKeyPath, "empty key path", at: path.range.start)
    }

    private func innerVariableOnly(_ variable: QueryIdentifier, _ inner: String) -> QueryError {
        error(.unknownVariable, "only $\(inner), the variable of the innermost SUBQUERY, can be used here", at: variable.range.start)
    }

    private func describe(_ path: BoundKeyPath) -> String {
        let p = path.property
        if path.isToMany && !(p.isList || p.isLinkingObjects) { return "reached through a list" }
        if p.isLinkingObjects { return "linkingObjects" }
        return p.schema.typeString
    }

    // MARK: Constants

    /// The constant of a path comparison `path op constant`, typed for a path of `kind`.
    func typedConstant(_ constant: QueryExpression, kind: ValueKind, op: BoundOperator) throws -> Value {
        op == .in || op == .between ? try typedList(constant, kind: kind, op: op) : try typed(constant, kind: kind, op: op)
    }

    /// The value of a literal or parameter as `kind`.
    private func typed(_ expression: QueryExpression, kind: ValueKind, op: BoundOperator) throws -> Value {
        let value: Value
        switch expression.kind {
        case .literal(.list):
            throw error(.typeMismatch, "a list {...} goes with IN or BETWEEN", at: expression.range.start)
        case .literal(let literal):
            value = try typedLiteral(literal, kind: kind, at: expression.range.start)
        case .parameter(let index):
            value = try typedArgument(argument(index, at: expression.range.start), kind: kind, name: "$\(index)", at: expression.range.start)
        default:
            throw error(.typeMismatch, "expected a value", at: expression.range.start)
        }
        if value.isNull && (op.isOrdering || op.isStringOnly) {
            throw error(.typeMismatch, "nil cannot be compared with \(op.symbol); only == and != take nil", at: expression.range.start)
        }
        return value
    }

    /// The elements of a `{...}` literal or a list parameter, each as `kind`.
    private func typedList(_ expression: QueryExpression, kind: ValueKind, op: BoundOperator) throws -> Value {
        let elementOp: BoundOperator = op == .between ? .less : .equal
        switch expression.kind {
        case .literal(.list(let elements)):
            if op == .between && elements.count != 2 {
                throw error(.typeMismatch, "BETWEEN takes {lower, upper}", at: expression.range.start)
            }
            return .list(try elements.map { try typed($0, kind: kind, op: elementOp) })
        case .parameter(let index):
            let at = expression.range.start
            guard case .list(let items) = try argument(index, at: at) else {
                throw error(.typeMismatch, "$\(index) must be a list for \(op.symbol)", at: at)
            }
            return .list(try items.map { item in
                let value = try typedArgument(item, kind: kind, name: "an element of $\(index)", at: at)
                if value.isNull && op == .between { throw error(.typeMismatch, "BETWEEN bounds cannot be nil", at: at) }
                return value
            })
        default:
            throw error(.typeMismatch, "\(op.symbol) takes a list such as {1, 2}", at: expression.range.start)
        }
    }

    private func argument(_ index: Int, at location: QuerySourceLocation) throws -> Value {
        guard index < arguments.count else {
            throw error(.invalidParameter, "no value for $\(index): \(arguments.count) argument\(arguments.count == 1 ? "" : "s") given", at: location)
        }
        return arguments[index]
    }

    private func typedLiteral(_ literal: QueryExpression.Literal, kind: ValueKind, at location: QuerySourceLocation) throws -> Value {
        if case .null = literal { return .null }
        return try coerced(.literal(literal), kind: kind, at: location) { $0.description }
    }

    private func typedArgument(_ argument: Value, kind: ValueKind, name: @autoclosure () -> String, at location: QuerySourceLocation) throws -> Value {
        switch argument {
        case .null:
            return .null
        case .reference(let reference):
            guard case .object(let model) = kind, model.name == reference.model else {
                throw error(.typeMismatch, "\(name()) is \(argument.kindDescription) (\(QueryLexer.truncated(argument.description))), but is compared with \(Self.article(kind))", at: location)
            }
            return argument
        case .string(let s):
            // A shell `--arg` is text: read it as a literal of the type it meets.
            return try coerced(.text(s), kind: kind, at: location) { "\(name()) is \($0.found), but is compared with \(Self.article(kind))" }
        default:
            return try coerced(.value(argument), kind: kind, at: location) { _ in
                "\(name()) is \(argument.kindDescription) (\(QueryLexer.truncated(argument.description))), but is compared with \(Self.article(kind))"
            }
        }
    }

    /// A constant as a comparand of `kind`, through ``Coercion``.
    private func coerced(_ input: CoercionInput, kind: ValueKind, at location: QuerySourceLocation,
                         message: (CoercionError) -> String) throws -> Value {
        guard let type = kind.propertyType else {
            throw error(.typeMismatch, "expected \(Self.article(kind)), found a value", at: location)
        }
        do {
            return try Coercion.comparand(input, as: type, for: "")
        } catch {
            throw self.error(.typeMismatch, message(error), at: location)
        }
    }

    private static func article(_ kind: ValueKind) -> String {
        switch kind {
        case .int, .uuid: "an \(kind)"
        case .object: "\(kind)"
        default: "a \(kind)"
        }
    }

    // MARK: Errors

    func error(_ kind: QueryError.Kind, _ message: String, at location: QuerySourceLocation) -> QueryError {
        QueryError(kind, message, at: location, in: statement)
    }

    private func hint(_ suggestion: String?) -> String {
        suggestion.map { "; did you mean '\($0)'?" } ?? ""
    }
}
