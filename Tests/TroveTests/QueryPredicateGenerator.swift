import Foundation
@testable import Trove

/// Random, well-typed predicates over the `QueryFixtures` schema, with typed constants for the
/// reference and literals or parameters for the engine.
struct QueryPredicateGenerator {
    enum Kind { case string, int, double, float, date, bool, decimal, uuid, data, object }

    struct PathSpec {
        var path: [String]
        var kind: Kind
        var many: Bool
    }

    static let personPaths: [PathSpec] = [
        .init(path: ["name"], kind: .string, many: false), .init(path: ["nick"], kind: .string, many: false),
        .init(path: ["age"], kind: .int, many: false), .init(path: ["level"], kind: .int, many: false),
        .init(path: ["score"], kind: .double, many: false), .init(path: ["weight"], kind: .float, many: false),
        .init(path: ["born"], kind: .date, many: false), .init(path: ["active"], kind: .bool, many: false),
        .init(path: ["balance"], kind: .decimal, many: false), .init(path: ["token"], kind: .uuid, many: false),
        .init(path: ["blob"], kind: .data, many: false), .init(path: ["id"], kind: .int, many: false),
        .init(path: ["bestFriend", "name"], kind: .string, many: false), .init(path: ["bestFriend", "age"], kind: .int, many: false),
        .init(path: ["bestFriend", "born"], kind: .date, many: false), .init(path: ["bestFriend", "bestFriend", "nick"], kind: .string, many: false),
        .init(path: ["bestFriend"], kind: .object, many: false),
        .init(path: ["tags"], kind: .string, many: true), .init(path: ["scores"], kind: .int, many: true),
        .init(path: ["dogs", "name"], kind: .string, many: true), .init(path: ["dogs", "age"], kind: .int, many: true),
        .init(path: ["dogs", "weight"], kind: .double, many: true), .init(path: ["fans", "name"], kind: .string, many: true),
        .init(path: ["fans", "age"], kind: .int, many: true), .init(path: ["dogs", "vet", "rating"], kind: .int, many: true),
        .init(path: ["dogs", "owners", "level"], kind: .int, many: true), .init(path: ["bestFriend", "dogs", "age"], kind: .int, many: true),
        .init(path: ["bestFriend", "tags"], kind: .string, many: true),
    ]

    static let dogPaths: [PathSpec] = [
        .init(path: ["name"], kind: .string, many: false), .init(path: ["age"], kind: .int, many: false),
        .init(path: ["weight"], kind: .double, many: false), .init(path: ["vet", "rating"], kind: .int, many: false),
        .init(path: ["vet", "name"], kind: .string, many: false), .init(path: ["owners", "age"], kind: .int, many: true),
        .init(path: ["owners", "name"], kind: .string, many: true),
    ]

    var rng: QueryFixtures.Random
    /// The parameters the predicates so far refer to, `$0` first.
    var arguments: [Value] = []

    init(seed: UInt64) {
        rng = QueryFixtures.Random(seed: seed)
    }

    mutating func predicate(depth: Int = 0, paths: [PathSpec] = personPaths, inSubquery: Bool = false) -> RefPredicate {
        let roll = rng.int(100)
        if depth < 3 && roll < 22 {
            let n = 2 + rng.int(2)
            let operands = (0..<n).map { _ in predicate(depth: depth + 1, paths: paths, inSubquery: inSubquery) }
            return rng.chance(50) ? .and(operands) : .or(operands)
        }
        if depth < 3 && roll < 28 { return .not(predicate(depth: depth + 1, paths: paths, inSubquery: inSubquery)) }
        if roll < 29 { return .constant(rng.chance(50)) }
        if !inSubquery {
            if roll < 37 { return aggregate() }
            if roll < 42 { return subquery(depth: depth) }
            if roll < 48 { return pathPair() }
        }
        return comparison(rng.pick(paths))
    }

    // MARK: Comparisons

    mutating func comparison(_ spec: PathSpec) -> RefPredicate {
        let quantifier: Quantifier? = spec.many && rng.chance(60) ? rng.pick([.any, .all, .noneOf]) : nil
        if spec.kind == .object {
            let (value, expression) = (Value.null, QueryExpression.null)
            return .compare(quantifier: nil, path: spec.path, op: rng.chance(50) ? .equal : .notEqual, options: [],
                            value: value, expression: expression, flipped: false)
        }
        let orderable = [.string, .int, .double, .float, .date, .decimal].contains(spec.kind)
        var ops: [ComparisonOperator] = [.equal, .notEqual, .in]
        if orderable { ops += [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual] }
        if spec.kind == .string { ops += [.beginsWith, .endsWith, .contains, .like, .like, .beginsWith, .contains, .matches] }
        let op = rng.pick(ops + [ComparisonOperator.equal])
        let stringOptions: StringComparisonOptions = spec.kind == .string && op != .lessThan && op != .lessThanOrEqual
            && op != .greaterThan && op != .greaterThanOrEqual && rng.chance(40)
            ? rng.pick([.caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]]) : []
        if orderable && rng.chance(8) {
            let (low, lowExpression) = constant(spec.kind, nullable: false)
            let (high, highExpression) = constant(spec.kind, nullable: false)
            return .between(quantifier: quantifier, path: spec.path, low: low, high: high, lowExpression: lowExpression, highExpression: highExpression)
        }
        if op == .in {
            if spec.many && quantifier == nil && rng.chance(30) && spec.kind != .string {
                let (value, expression) = constant(spec.kind, nullable: false)
                return .valueIn(value: value, expression: expression, list: spec.path)
            }
            let items = (0..<rng.int(4)).map { _ in constant(spec.kind, nullable: true) }
            return .inList(quantifier: quantifier, path: spec.path, options: stringOptions, values: items.map(\.0), expressions: items.map(\.1))
        }
        let allowsNull = op == .equal || op == .notEqual
        var (value, expression) = op == .like ? likePattern() : op == .matches ? regex() : constant(spec.kind, nullable: allowsNull)
        if op == .beginsWith || op == .endsWith || op == .contains, rng.chance(60), case .string(let s) = value {
            let piece = fragment(of: s)
            (value, expression) = (.string(piece), .string(piece))
        }
        let flippable = quantifier == nil && [.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual].contains(op)
        if flippable && rng.chance(20) {
            // `c < path`: the reference evaluates it with the constant on the left too.
            return .compare(quantifier: nil, path: spec.path, op: op, options: stringOptions, value: value, expression: expression, flipped: true)
        }
        return .compare(quantifier: quantifier, path: spec.path, op: op, options: stringOptions, value: value, expression: expression, flipped: false)
    }

    mutating func aggregate() -> RefPredicate {
        let forms: [([String], AggregateFunction, [String]?)] = [
            (["dogs"], .count, nil), (["tags"], .count, nil), (["scores"], .count, nil), (["fans"], .count, nil),
            (["bestFriend", "dogs"], .count, nil), (["scores"], .sum, nil), (["scores"], .avg, nil), (["scores"], .min, nil),
            (["scores"], .max, nil), (["dogs"], .sum, ["age"]), (["dogs"], .avg, ["weight"]), (["dogs"], .max, ["age"]),
            (["dogs"], .min, ["weight"]), (["fans"], .max, ["age"]), (["dogs"], .sum, ["vet", "rating"]),
        ]
        let (collection, function, property) = rng.pick(forms)
        let op = rng.pick([ComparisonOperator.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual])
        if function != .count && function != .sum && (op == .equal || op == .notEqual) && rng.chance(25) {
            return .aggregate(collection: collection, function: function, property: property, op: op, value: .null, expression: .null)
        }
        let n = Int64(rng.int(function == .count ? 5 : 25))
        // A NaN argument is refused against an integer's aggregate: only the doubles meet one.
        if property == ["weight"] && rng.chance(15) {
            let d = rng.pick(QueryFixtures.specialDoubles)
            return .aggregate(collection: collection, function: function, property: property, op: op, value: .double(d), expression: parameter(.double(d)))
        }
        if rng.chance(30) {
            let d = Double(n) + 0.5
            return .aggregate(collection: collection, function: function, property: property, op: op, value: .double(d), expression: .double(d))
        }
        return .aggregate(collection: collection, function: function, property: property, op: op, value: .int(n), expression: parameterOr(.int(n), .int(n)))
    }

    mutating func subquery(depth: Int) -> RefPredicate {
        let op = rng.pick([ComparisonOperator.equal, .greaterThan, .greaterThanOrEqual, .lessThan])
        let count = Int64(rng.int(3))
        switch rng.int(4) {
        case 0:
            let inner = comparison(PathSpec(path: [], kind: .int, many: false))
            return .subquery(collection: ["scores"], variable: "s", inner: inner, op: op, count: count)
        case 1:
            let inner = comparison(PathSpec(path: [], kind: .string, many: false))
            return .subquery(collection: ["tags"], variable: "t", inner: inner, op: op, count: count)
        default:
            let inner = predicate(depth: max(depth, 2), paths: Self.dogPaths, inSubquery: true)
            return .subquery(collection: rng.chance(70) ? ["dogs"] : ["bestFriend", "dogs"], variable: "d", inner: inner, op: op, count: count)
        }
    }

    mutating func pathPair() -> RefPredicate {
        switch rng.int(6) {
        case 0: return .paths(quantifier: nil, left: ["age"], op: rng.pick([.equal, .notEqual, .lessThan, .greaterThanOrEqual]), options: [], right: ["bestFriend", "age"])
        case 1:
            let op = rng.pick([ComparisonOperator.equal, .notEqual, .beginsWith, .contains, .lessThan])
            return .paths(quantifier: nil, left: ["name"], op: op, options: op != .lessThan && rng.chance(50) ? [.caseInsensitive] : [],
                          right: ["bestFriend", "name"])
        case 2: return .paths(quantifier: nil, left: ["name"], op: .in, options: rng.chance(50) ? [.caseInsensitive] : [], right: ["tags"])
        case 3: return .paths(quantifier: rng.pick([.any, .all, .noneOf]), left: ["dogs", "age"], op: rng.pick([.lessThan, .equal, .greaterThan]), options: [], right: ["level"])
        case 4: return .paths(quantifier: nil, left: ["score"], op: rng.pick([.lessThan, .equal, .greaterThan]), options: [], right: ["weight"])
        default: return .paths(quantifier: nil, left: ["level"], op: rng.pick([.lessThan, .equal, .notEqual]), options: [], right: ["age"])
        }
    }

    // MARK: Constants

    /// A typed value and the expression the engine reads it from: a literal in the form the
    /// query language takes for the kind, or a parameter.
    mutating func constant(_ kind: Kind, nullable: Bool) -> (Value, QueryExpression) {
        if nullable && rng.chance(12) { return (.null, rng.chance(20) ? parameter(.null) : .null) }
        switch kind {
        case .string:
            let s = rng.chance(85) ? rng.pick(QueryFixtures.strings) : rng.pick(["zz", "a", "A", "e", "é", "ss", "ß", "σ"])
            return (.string(s), parameterOr(.string(s), .string(s)))
        case .int:
            let i = Int64(rng.int(70) - 6)
            if rng.chance(15) {
                let d = Double(i) + 0.5
                return (.double(d), .double(d))
            }
            return (.int(i), parameterOr(rng.chance(50) ? .int(i) : .string("\(i)"), .int(i)))
        case .double:
            // NaN and the infinities have no literal: they come as arguments.
            if rng.chance(10) {
                let d = rng.pick(QueryFixtures.specialDoubles)
                return (.double(d), d.isFinite ? .double(d) : parameter(.double(d)))
            }
            let d = rng.pick(QueryFixtures.doubles + [2, 0.5])
            return (.double(d), parameterOr(.double(d), d.rounded() == d && abs(d) < 1e6 ? .int(Int64(d)) : .double(d)))
        case .float:
            if rng.chance(10) {
                let f = Float(rng.pick(QueryFixtures.specialDoubles))
                return (.float(f), f.isFinite ? .double(Double(f)) : parameter(.float(f)))
            }
            let f = rng.pick(QueryFixtures.floats + [0.5])
            return (.float(f), .double(Double(f)))
        case .date:
            var date = rng.pick(QueryFixtures.dates)
            if rng.chance(30) { date += Double(rng.int(3) - 1) }
            let text = ISO8601Timestamp.format(date)
            let parsed = ISO8601Timestamp.parse(text)!
            return (.date(parsed), parameterOr(rng.chance(50) ? .string(text) : .date(parsed), .string(text)))
        case .bool:
            let b = rng.chance(50)
            return (.bool(b), parameterOr(.bool(b), .bool(b)))
        case .decimal:
            let text = rng.pick(["1.5", "2", "-3.25", "0", "100.01", "5"])
            return (.decimal(Decimal(string: text)!), parameterOr(.string(text), .string(text)))
        case .uuid:
            let u = rng.pick(QueryFixtures.uuids)
            return (.uuid(u), parameterOr(.uuid(u), .string(u.uuidString)))
        case .data:
            let d = rng.pick(QueryFixtures.blobs)
            return (.data(d), parameterOr(.data(d), .string(d.base64EncodedString())))
        case .object:
            return (.null, .null)
        }
    }

    /// Sometimes `$n` bound to `argument`, else the literal.
    mutating func parameterOr(_ argument: Value, _ literal: QueryExpression) -> QueryExpression {
        rng.chance(15) ? parameter(argument) : literal
    }

    mutating func parameter(_ argument: Value) -> QueryExpression {
        arguments.append(argument)
        return .parameter(arguments.count - 1)
    }

    mutating func fragment(of s: String) -> String {
        let characters = Array(s)
        guard !characters.isEmpty else { return "" }
        let start = rng.int(characters.count)
        let length = rng.int(characters.count - start + 1)
        return String(characters[start..<(start + length)])
    }

    mutating func likePattern() -> (Value, QueryExpression) {
        var characters = Array(rng.pick(QueryFixtures.strings).prefix(12))
        for _ in 0..<rng.int(3) where !characters.isEmpty {
            let i = rng.int(characters.count)
            characters[i] = rng.chance(50) ? "?" : "*"
        }
        if rng.chance(40) { characters.append("*") }
        if rng.chance(30) { characters.insert("*", at: 0) }
        let pattern = String(characters)
        return (.string(pattern), .string(pattern))
    }

    mutating func regex() -> (Value, QueryExpression) {
        let pattern = rng.pick([".*a.*", "[A-Z].*", "(?i)ada", ".", "\\w+", ".*ß", "[^x]*e"])
        return (.string(pattern), .string(pattern))
    }

    // MARK: Statements

    static let sortPaths: [[String]] = [
        ["name"], ["nick"], ["age"], ["level"], ["score"], ["weight"], ["born"], ["active"], ["balance"],
        ["bestFriend", "age"], ["bestFriend", "name"],
    ]
    static let distinctPaths: [[String]] = [["active"], ["level"], ["nick"], ["bestFriend", "age"], ["bestFriend"], ["age"],
                                            ["score"], ["weight"]]

    mutating func clauses() -> (sort: [([String], Bool)], distinct: [[String]], offset: Int, limit: Int?) {
        let sort = (0..<rng.int(3)).map { _ in (rng.pick(Self.sortPaths), rng.chance(50)) }
        let distinct = rng.chance(30) ? (0..<(1 + rng.int(2))).map { _ in rng.pick(Self.distinctPaths) } : []
        let offset = rng.chance(30) ? rng.int(40) : 0
        let limit = rng.chance(50) ? rng.int(25) : nil
        return (sort, distinct, offset, limit)
    }

    static func statement(_ model: String, _ predicate: RefPredicate, sort: [([String], Bool)], distinct: [[String]],
                          offset: Int = 0, limit: Int?) -> String {
        var text = "\(model) where \(predicate.ast())"
        if !sort.isEmpty { text += " SORT(" + sort.map { "\($0.0.joined(separator: ".")) \($0.1 ? "ASC" : "DESC")" }.joined(separator: ", ") + ")" }
        if !distinct.isEmpty { text += " DISTINCT(" + distinct.map { $0.joined(separator: ".") }.joined(separator: ", ") + ")" }
        if offset > 0 || (limit == nil && !sort.isEmpty) { text += " OFFSET(\(offset))" }
        if let limit { text += " LIMIT(\(limit))" }
        return text
    }
}
