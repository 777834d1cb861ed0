/// The type of the values a bound operand yields: a scalar type, or objects of a model.
///
/// All integer widths are one kind (records hold every width as 8 bytes); numeric kinds
/// compare with each other.
enum ValueKind: Equatable, CustomStringConvertible {
    case bool, int, float, double, decimal, string, date, data, uuid
    case object(ModelLayout)

    init?(_ type: PropertyType, target: ModelLayout?) {
        switch type {
        case .bool: self = .bool
        case .int, .int8, .int16, .int32, .int64: self = .int
        case .float: self = .float
        case .double: self = .double
        case .decimal: self = .decimal
        case .string: self = .string
        case .date: self = .date
        case .data: self = .data
        case .uuid: self = .uuid
        case .link, .linkingObjects:
            guard let target else { return nil }
            self = .object(target)
        case .list(let element):
            self.init(element, target: target)
        }
    }

    var isNumeric: Bool {
        switch self {
        case .int, .float, .double, .decimal: true
        default: false
        }
    }

    /// Whether `<`, `<=`, `>`, `>=` and `BETWEEN` apply.
    var isOrderable: Bool { isNumeric || self == .date || self == .string }

    /// Whether two kinds may meet in a comparison.
    func isComparable(with other: ValueKind) -> Bool {
        if isNumeric && other.isNumeric { return true }
        switch (self, other) {
        case (.object(let a), .object(let b)): return a === b
        default: return self == other
        }
    }

    static func == (a: ValueKind, b: ValueKind) -> Bool {
        switch (a, b) {
        case (.bool, .bool), (.int, .int), (.float, .float), (.double, .double), (.decimal, .decimal),
             (.string, .string), (.date, .date), (.data, .data), (.uuid, .uuid):
            true
        case (.object(let x), .object(let y)): x === y
        default: false
        }
    }

    var description: String {
        switch self {
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .double: "double"
        case .decimal: "decimal"
        case .string: "string"
        case .date: "date"
        case .data: "data"
        case .uuid: "uuid"
        case .object(let m): "an object of \(m.name)"
        }
    }
}

/// A key path resolved against the schema: the links and lists it crosses, then the property
/// it reads (or, inside a `SUBQUERY` over a list of primitives, the element itself).
struct BoundKeyPath {
    enum Terminal {
        /// A stored scalar, primitive list, link or list of links, or a linkingObjects property.
        case property(PropertyLayout)
        /// `$x` standing for an element of a list of primitives.
        case element(PropertyLayout)
    }

    /// The links, lists of links and linkingObjects crossed before the terminal, in order.
    var hops: [PropertyLayout]
    var terminal: Terminal
    /// The type of each value reached.
    var kind: ValueKind
    /// The path as written, for plans and messages.
    var text: String
    var range: QuerySourceRange

    /// The property read at the end (the list, for an element).
    var property: PropertyLayout {
        switch terminal {
        case .property(let p), .element(let p): p
        }
    }

    /// Whether the path may reach many values: it crosses or ends in a list or linkingObjects.
    var isToMany: Bool {
        if case .element = terminal { return false }
        return hops.contains { !$0.isLink } || !property.isLink && (property.isList || property.isLinkingObjects)
    }

    /// Whether the path reads a property of the queried object itself, with no hops.
    var isDirect: Bool {
        if case .property = terminal { return hops.isEmpty }
        return false
    }

    /// The path without its terminal reads only to-one links: at most one value, null when a
    /// link on the way is null.
    var hopsAreToOne: Bool { hops.allSatisfy(\.isLink) }
}

/// An operator of a bound comparison.
enum BoundOperator: Equatable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case beginsWith, endsWith, contains, like, matches
    /// The value equals one of the constant's list elements.
    case `in`
    /// Between the constant's two list elements, inclusive.
    case between

    init(_ op: ComparisonOperator) {
        switch op {
        case .equal: self = .equal
        case .notEqual: self = .notEqual
        case .lessThan: self = .less
        case .lessThanOrEqual: self = .lessOrEqual
        case .greaterThan: self = .greater
        case .greaterThanOrEqual: self = .greaterOrEqual
        case .beginsWith: self = .beginsWith
        case .endsWith: self = .endsWith
        case .contains: self = .contains
        case .like: self = .like
        case .matches: self = .matches
        case .in: self = .in
        }
    }

    /// The operator with its operands swapped (`5 < age` is `age > 5`), where one exists.
    var swapped: BoundOperator? {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        default: nil
        }
    }

    var isOrdering: Bool {
        switch self {
        case .less, .lessOrEqual, .greater, .greaterOrEqual, .between: true
        default: false
        }
    }

    var isStringOnly: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like, .matches: true
        default: false
        }
    }

    var symbol: String {
        switch self {
        case .equal: "=="
        case .notEqual: "!="
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        case .beginsWith: "BEGINSWITH"
        case .endsWith: "ENDSWITH"
        case .contains: "CONTAINS"
        case .like: "LIKE"
        case .matches: "MATCHES"
        case .in: "IN"
        case .between: "BETWEEN"
        }
    }
}

/// `path op constant`: the comparison the planner can serve from an index and the evaluator
/// runs on record slots without decoding them.
struct PathComparison {
    /// `.any` when none was written.
    var quantifier: Quantifier
    var path: BoundKeyPath
    var op: BoundOperator
    var options: StringComparisonOptions
    /// Typed for the path's kind. For `IN`, a `.list` of elements; for `BETWEEN`, a `.list` of
    /// the two bounds.
    var constant: Value
}

/// A collection operator bound to the values it reads.
struct BoundAggregate {
    var function: AggregateFunction
    /// Reaches every element aggregated (for `links.@sum.price`, each linked object's price).
    var values: BoundKeyPath
    /// The kind of the result.
    var kind: ValueKind
}

/// `SUBQUERY(collection, $x, predicate).@count`.
struct BoundSubquery {
    /// Reaches the elements: objects (the predicate reads their properties) or primitives.
    var collection: BoundKeyPath
    var predicate: BoundPredicate
}

/// A value in a general comparison.
indirect enum BoundOperand {
    case path(BoundKeyPath)
    case constant(Value)
    case aggregate(BoundAggregate)
    case subqueryCount(BoundSubquery)

    var kindIsToMany: Bool {
        if case .path(let p) = self { return p.isToMany }
        return false
    }
}

/// A comparison of two computed operands (a property with another, an aggregate, a subquery
/// count): evaluated on decoded values. At most one side is to-many; the quantifier applies to it.
struct GeneralComparison {
    var quantifier: Quantifier
    var left: BoundOperand
    var op: BoundOperator
    var options: StringComparisonOptions
    var right: BoundOperand
}

/// A predicate checked against the schema, with every constant typed: what the planner and the
/// evaluator work from.
indirect enum BoundPredicate {
    case constant(Bool)
    case and([BoundPredicate])
    case or([BoundPredicate])
    case not(BoundPredicate)
    case path(PathComparison)
    case general(GeneralComparison)

    /// The operands of a top-level conjunction.
    var conjuncts: [BoundPredicate] {
        if case .and(let operands) = self { return operands.flatMap(\.conjuncts) }
        return [self]
    }
}
