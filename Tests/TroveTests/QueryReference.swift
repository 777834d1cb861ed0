import Foundation
@testable import Trove

/// A predicate as the random generator builds it: typed constants for the reference evaluator,
/// and the expressions that print as query text for the engine.
indirect enum RefPredicate {
    case constant(Bool)
    case not(RefPredicate)
    case and([RefPredicate])
    case or([RefPredicate])
    /// `[quantifier] path op value`, or `value op path` when `flipped`.
    case compare(quantifier: Quantifier?, path: [String], op: ComparisonOperator, options: StringComparisonOptions,
                 value: Value, expression: QueryExpression, flipped: Bool)
    case between(quantifier: Quantifier?, path: [String], low: Value, high: Value, lowExpression: QueryExpression, highExpression: QueryExpression)
    /// `[quantifier] path IN {values}`.
    case inList(quantifier: Quantifier?, path: [String], options: StringComparisonOptions, values: [Value], expressions: [QueryExpression])
    /// `value IN listPath`.
    case valueIn(value: Value, expression: QueryExpression, list: [String])
    /// `[quantifier] left op right` between two key paths (`IN` when right is a list).
    case paths(quantifier: Quantifier?, left: [String], op: ComparisonOperator, options: StringComparisonOptions, right: [String])
    case aggregate(collection: [String], function: AggregateFunction, property: [String]?, op: ComparisonOperator,
                   value: Value, expression: QueryExpression)
    case subquery(collection: [String], variable: String, inner: RefPredicate, op: ComparisonOperator, count: Int64)

    /// The AST, with key paths starting from `variable` when given.
    func ast(variable: String? = nil) -> QueryPredicate {
        func path(_ names: [String]) -> QueryExpression {
            QueryExpression(.keyPath(QueryKeyPath(variable: variable.map { QueryIdentifier($0) }, components: names.map { QueryIdentifier($0) })))
        }
        func keyPath(_ names: [String]) -> QueryKeyPath {
            QueryKeyPath(variable: variable.map { QueryIdentifier($0) }, components: names.map { QueryIdentifier($0) })
        }
        switch self {
        case .constant(let b): return QueryPredicate(.constant(b))
        case .not(let p): return .not(p.ast(variable: variable))
        case .and(let ps): return .and(ps.map { $0.ast(variable: variable) })
        case .or(let ps): return .or(ps.map { $0.ast(variable: variable) })
        case let .compare(q, names, op, options, _, expression, flipped):
            return flipped
                ? .comparison(.init(expression, op, options: options, path(names)))
                : .comparison(.init(quantifier: q, path(names), op, options: options, expression))
        case let .between(q, names, _, _, low, high):
            return QueryPredicate(.between(.init(quantifier: q, path(names), lower: low, upper: high)))
        case let .inList(q, names, options, _, expressions):
            return .comparison(.init(quantifier: q, path(names), .in, options: options, .list(expressions)))
        case let .valueIn(_, expression, list):
            return .comparison(.init(expression, .in, path(list)))
        case let .paths(q, left, op, options, right):
            return .comparison(.init(quantifier: q, path(left), op, options: options, path(right)))
        case let .aggregate(collection, function, property, op, _, expression):
            let aggregate = QueryExpression.Aggregate(collection: keyPath(collection), function: function,
                                                      property: property.map { QueryKeyPath(components: $0.map { QueryIdentifier($0) }) })
            return .comparison(.init(QueryExpression(.aggregate(aggregate)), op, expression))
        case let .subquery(collection, name, inner, op, count):
            let subquery = QueryExpression.Subquery(collection: keyPath(collection), variable: QueryIdentifier(name),
                                                    predicate: inner.ast(variable: name))
            return .comparison(.init(QueryExpression(.subqueryCount(subquery)), op, .int(count)))
        }
    }
}

/// A plain, obviously-correct evaluator: every object decoded into a dictionary, every
/// predicate evaluated by walking the dictionaries. Shares nothing with the engine but the
/// string primitives (`StringComparison`, `RegularExpressionPattern`), tested on their own.
final class ReferenceStore {
    typealias Object = [String: Value]

    let schema: Schema
    /// Objects by model and object key.
    var objects: [String: [UInt64: Object]] = [:]
    /// Object keys by model, in insertion order.
    var order: [String: [UInt64]] = [:]

    init(_ snapshot: Snapshot) throws {
        schema = snapshot.schema
        for model in schema.models {
            var byKey: [UInt64: Object] = [:]
            var keys: [UInt64] = []
            for object in try snapshot.objects(model.name) {
                var values: Object = [:]
                for p in model.properties { values[p.name] = try object.value(p.name) }
                byKey[object.reference.key] = values
                keys.append(object.reference.key)
            }
            objects[model.name] = byKey
            order[model.name] = keys
        }
    }

    enum Subject {
        case object(model: String, Object)
        case element(Value)
    }

    // MARK: Queries

    func filter(_ model: String, _ predicate: RefPredicate?) throws -> [UInt64] {
        guard let predicate else { return order[model]! }
        return try order[model]!.filter { try evaluate(predicate, .object(model: model, objects[model]![$0]!)) }
    }

    /// SORT (null first ascending, ties by object key), DISTINCT, OFFSET, LIMIT.
    func query(_ model: String, _ predicate: RefPredicate?, sort: [([String], Bool)], distinct: [[String]],
               offset: Int = 0, limit: Int?) throws -> [UInt64] {
        let table = objects[model]!
        return try query(model, predicate, sortValues: sort.map { path, ascending in
            ({ key in self.values(path, model: model, table[key]!).first ?? .null }, ascending)
        }, distinct: distinct, offset: offset, limit: limit)
    }

    /// `query` with each SORT key given as what it reads of an object.
    func query(_ model: String, _ predicate: RefPredicate?, sortValues sort: [((UInt64) -> Value, Bool)], distinct: [[String]],
               offset: Int, limit: Int?) throws -> [UInt64] {
        var keys = try filter(model, predicate)
        let table = objects[model]!
        func single(_ key: UInt64, _ path: [String]) -> Value {
            values(path, model: model, table[key]!).first ?? .null
        }
        if !sort.isEmpty {
            let rows = keys.map { key in (key, sort.map { $0.0(key) }) }
            keys = rows.sorted { a, b in
                for (i, descriptor) in sort.enumerated() {
                    let order = Self.sortOrder(a.1[i], b.1[i])
                    if order != 0 { return descriptor.1 ? order < 0 : order > 0 }
                }
                return a.0 < b.0
            }.map(\.0)
        }
        if !distinct.isEmpty {
            var seen: [[Value]] = []
            keys = keys.filter { key in
                let values = distinct.map { single(key, $0) }
                if seen.contains(where: { Self.sameKey($0, values) }) { return false }
                seen.append(values)
                return true
            }
        }
        keys = Array(keys.dropFirst(offset))
        if let limit { keys = Array(keys.prefix(limit)) }
        return keys
    }

    // MARK: Predicates

    func evaluate(_ predicate: RefPredicate, _ subject: Subject) throws -> Bool {
        switch predicate {
        case .constant(let b): return b
        case .not(let p): return try !evaluate(p, subject)
        case .and(let ps): return try ps.allSatisfy { try evaluate($0, subject) }
        case .or(let ps): return try ps.contains { try evaluate($0, subject) }
        case let .compare(q, path, op, options, value, _, flipped):
            let (vs, many) = reach(path, subject)
            return try quantify(q, many: many, vs) { v in
                flipped ? try Self.compare(value, op, options, v) : try Self.compare(v, op, options, value)
            }
        case let .between(q, path, low, high, _, _):
            let (vs, many) = reach(path, subject)
            return try quantify(q, many: many, vs) { v in
                try Self.compare(v, .greaterThanOrEqual, [], low) && Self.compare(v, .lessThanOrEqual, [], high)
            }
        case let .inList(q, path, options, values, _):
            let (vs, many) = reach(path, subject)
            return try quantify(q, many: many, vs) { v in try values.contains { try Self.compare(v, .equal, options, $0) } }
        case let .valueIn(value, _, list):
            return try reach(list, subject).values.contains { try Self.compare($0, .equal, [], value) }
        case let .paths(q, left, op, options, right):
            let (ls, leftMany) = reach(left, subject)
            let (rs, rightMany) = reach(right, subject)
            if op == .in {
                let l = ls.first ?? .null
                return try rs.contains { try Self.compare(l, .equal, options, $0) }
            }
            if rightMany {
                let l = ls.first ?? .null
                return try rs.contains { try Self.compare(l, op, options, $0) }
            }
            let r = rs.first ?? .null
            return try quantify(q, many: leftMany, ls) { try Self.compare($0, op, options, r) }
        case let .aggregate(collection, function, property, op, value, _):
            var elements = reach(collection, subject).values
            if let property, case .object(let model, _) = subject {
                let target = targetModel(collection, from: model)
                elements = elements.map { element in
                    guard case .reference(let r) = element else { return .null }
                    return values(property, model: target, objects[target]![r.key]!).first ?? .null
                }
            }
            return try Self.compare(Self.aggregate(function, elements), op, [], value)
        case let .subquery(collection, _, inner, op, count):
            let elements = reach(collection, subject).values
            guard case .object(let model, _) = subject else { return false }
            let target = targetModel(collection, from: model)
            let n = try elements.filter { element in
                if case .reference(let r) = element {
                    return try evaluate(inner, .object(model: target, objects[target]![r.key]!))
                }
                return try evaluate(inner, .element(element))
            }.count
            return try Self.compare(.int(Int64(n)), op, [], .int(count))
        }
    }

    private func quantify(_ q: Quantifier?, many: Bool, _ values: [Value], _ test: (Value) throws -> Bool) throws -> Bool {
        if !many { return try test(values.first ?? .null) }
        switch q ?? .any {
        case .any: return try values.contains(where: test)
        case .all: return try values.allSatisfy(test)
        case .noneOf: return try !values.contains(where: test)
        }
    }

    // MARK: Key paths

    /// The values `path` reaches from the subject, and whether it crosses or ends in a list.
    func reach(_ path: [String], _ subject: Subject) -> (values: [Value], many: Bool) {
        switch subject {
        case .element(let value): return ([value], false)
        case .object(let model, let object): return (values(path, model: model, object), isToMany(path, model: model))
        }
    }

    func values(_ path: [String], model: String, _ object: Object) -> [Value] {
        let p = schema[model]![property: path[0]]!
        let value = object[path[0]]!
        if path.count == 1 {
            if case .list(let items) = value { return items }
            return [value]
        }
        let rest = Array(path.dropFirst())
        let target = p.objectType!
        if case .list(let items) = value {
            return items.flatMap { item -> [Value] in
                guard case .reference(let r) = item else { return [] }
                return values(rest, model: target, objects[target]![r.key]!)
            }
        }
        guard case .reference(let r) = value else { return isToMany(rest, model: target) ? [] : [.null] }
        return values(rest, model: target, objects[target]![r.key]!)
    }

    func isToMany(_ path: [String], model: String) -> Bool {
        var model = model
        for name in path {
            let p = schema[model]![property: name]!
            if p.type.isList || p.type.isLinkingObjects { return true }
            guard let target = p.objectType else { return false }
            model = target
        }
        return false
    }

    func targetModel(_ path: [String], from model: String) -> String {
        var model = model
        for name in path { model = schema[model]![property: name]!.objectType ?? model }
        return model
    }

    // MARK: Values

    /// `@sum`, `@avg`, `@min`, `@max` and `@count` of a list's values: nulls and NaN take no
    /// part in the first four; an infinity does (see `fractionalSum`).
    static func aggregate(_ function: AggregateFunction, _ elements: [Value]) -> Value {
        if function == .count { return .int(Int64(elements.count)) }
        let present = elements.filter { !$0.isNull && !isNaN($0) }
        switch function {
        case .sum:
            // Integer and double sums compare alike.
            return .double(fractionalSum(present.map(double)) ?? .nan)
        case .avg:
            return present.isEmpty ? .null : .double((fractionalSum(present.map(double)) ?? .nan) / Double(present.count))
        case .min:
            return present.min { numericOrder($0, $1) < 0 } ?? .null
        case .max:
            return present.max { numericOrder($0, $1) < 0 } ?? .null
        default:
            return .null
        }
    }

    /// The documented sum of numbers none of which is NaN: +inf if one is +inf, -inf if one
    /// is -inf, NaN if both are met; else the sum of the finite values, nil when that sum
    /// leaves double's range (an error), whatever infinities are beside them.
    static func fractionalSum(_ numbers: [Double]) -> Double? {
        let finite = numbers.filter(\.isFinite).reduce(0.0, +)
        guard finite.isFinite else { return nil }
        switch (numbers.contains(.infinity), numbers.contains(-.infinity)) {
        case (true, true): return .nan
        case (true, false): return .infinity
        case (false, true): return -.infinity
        case (false, false): return finite
        }
    }

    /// Whether two objects' DISTINCT (or GROUP) values are one combination: each pair equal,
    /// or both NaN (SORT orders every NaN alike).
    static func sameKey(_ a: [Value], _ b: [Value]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0 == $1 || (isNaN($0) && isNaN($1)) }
    }

    static func isNaN(_ v: Value) -> Bool {
        switch v {
        case .double(let d): d.isNaN
        case .float(let f): f.isNaN
        default: false
        }
    }

    static func double(_ v: Value) -> Double {
        switch v {
        case .int(let i): Double(i)
        case .float(let f): Double(f)
        case .double(let d): d
        case .date(let d): d.timeIntervalSinceReferenceDate
        default: .nan
        }
    }

    static func numericOrder(_ a: Value, _ b: Value) -> Int {
        var involvesDecimal = false
        if case .decimal = a { involvesDecimal = true }
        if case .decimal = b { involvesDecimal = true }
        if involvesDecimal, let x = decimal(a), let y = decimal(b) { return x < y ? -1 : x == y ? 0 : 1 }
        let x = double(a), y = double(b)
        return x < y ? -1 : x == y ? 0 : 1
    }

    static func decimal(_ v: Value) -> Decimal? {
        switch v {
        case .int(let i): Decimal(i)
        case .double(let d): Decimal(string: "\(d)")
        case .decimal(let d): d
        default: nil
        }
    }

    /// Unicode scalar order of the NFC forms.
    static func stringOrder(_ a: String, _ b: String) -> Int {
        let x = a.precomposedStringWithCanonicalMapping.unicodeScalars.map(\.value)
        let y = b.precomposedStringWithCanonicalMapping.unicodeScalars.map(\.value)
        return x.lexicographicallyPrecedes(y) ? -1 : x == y ? 0 : 1
    }

    static func sortOrder(_ a: Value, _ b: Value) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.string(let x), .string(let y)): return stringOrder(x, y)
        case (.bool(let x), .bool(let y)): return x == y ? 0 : x ? 1 : -1
        case (.date(let x), .date(let y)): return x < y ? -1 : x == y ? 0 : 1
        default:
            // NaN after every number, equal to another NaN; -0 is 0.
            switch (isNaN(a), isNaN(b)) {
            case (true, true): return 0
            case (true, false): return 1
            case (false, true): return -1
            case (false, false): return numericOrder(a, b)
            }
        }
    }

    static func compare(_ a: Value, _ op: ComparisonOperator, _ options: StringComparisonOptions, _ b: Value) throws -> Bool {
        switch op {
        case .equal, .in: return equal(a, b, options)
        case .notEqual: return !equal(a, b, options)
        default: break
        }
        if a.isNull || b.isNull { return false }
        switch (a, b) {
        case (.string(let s), .string(let t)):
            switch op {
            case .lessThan: return stringOrder(s, t) < 0
            case .lessThanOrEqual: return stringOrder(s, t) <= 0
            case .greaterThan: return stringOrder(s, t) > 0
            case .greaterThanOrEqual: return stringOrder(s, t) >= 0
            case .beginsWith: return StringComparison.beginsWith(s, t, options: options)
            case .endsWith: return StringComparison.endsWith(s, t, options: options)
            case .contains: return StringComparison.contains(s, t, options: options)
            case .like: return StringComparison.like(s, t, options: options)
            case .matches: return try RegularExpressionPattern(t, options: options).matches(s)
            default: return false
            }
        case (.date(let x), .date(let y)):
            return ordered(x < y ? -1 : x == y ? 0 : 1, op)
        default:
            // An ordering comparison with NaN is false.
            if isNaN(a) || isNaN(b) { return false }
            return ordered(numericOrder(a, b), op)
        }
    }

    private static func ordered(_ order: Int, _ op: ComparisonOperator) -> Bool {
        switch op {
        case .lessThan: order < 0
        case .lessThanOrEqual: order <= 0
        case .greaterThan: order > 0
        case .greaterThanOrEqual: order >= 0
        default: false
        }
    }

    static func equal(_ a: Value, _ b: Value, _ options: StringComparisonOptions) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let s), .string(let t)): return options.isEmpty ? s == t : StringComparison.equals(s, t, options: options)
        case (.bool(let x), .bool(let y)): return x == y
        case (.date(let x), .date(let y)): return x == y
        case (.data(let x), .data(let y)): return x == y
        case (.uuid(let x), .uuid(let y)): return x == y
        case (.reference(let x), .reference(let y)): return x.key == y.key
        default: return !isNaN(a) && !isNaN(b) && numericOrder(a, b) == 0
        }
    }
}
