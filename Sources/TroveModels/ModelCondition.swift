import Trove

/// A condition on objects of `Root`, built in Swift the way Realm Swift's `where` builds one:
/// `$0.age > 30 && !$0.name.starts(with: "A")`. What a `where:` closure of the typed API
/// returns (Realm's `Query<Bool>`).
///
/// A condition is Trove's query AST without the values: each compared value is a parameter
/// (`$0`, `$1`, ...) of the query text the condition stands for, so a condition of the same
/// shape with other values is the same statement, whose translation and plan are cached. It
/// runs as that text would: indexes, the planner and `explain` are the string query's.
///
/// ```swift
/// let adults = try snapshot.objects(Person.self, where: { $0.age >= 18 && $0.nickname != nil })
/// ```
public struct ModelCondition<Root: PersistentModel> {
    @usableFromInline let node: ModelConditionNode
    /// The values of the parameters, in the order the condition reads them.
    @usableFromInline let arguments: [Value]
    /// The node's identity as plain bits, for a single comparison of a property of the model.
    @usableFromInline let signature: ModelConditionSignature

    @inlinable init(_ node: ModelConditionNode, arguments: [Value], signature: ModelConditionSignature = .none) {
        self.node = node
        self.arguments = arguments
        self.signature = signature
    }

    /// `path op value`: the value is a parameter, or `nil` when it is null; a value with no
    /// stored form (a model) is an error when the condition runs.
    @inlinable
    static func comparison<V: StorableProperty>(_ path: consuming ModelQueryPath, _ op: ModelQueryOperator, options: UInt8 = 0, _ value: V) -> ModelCondition {
        do {
            let stored = try value.storedValue()
            if path.subquery != nil { return subqueryCountComparison(path, op, options: options, stored) }
            if case .null = stored {
                return ModelCondition(.comparison(path, op, options: options, .null), arguments: [],
                                      signature: ModelConditionSignature(path, op, options: options, isNull: true))
            }
            return ModelCondition(.comparison(path, op, options: options, .argument), arguments: [stored],
                                  signature: ModelConditionSignature(path, op, options: options, isNull: false))
        } catch {
            return ModelCondition(.unsupported("\(error)"), arguments: [])
        }
    }

    /// A comparison of a subquery's count, whose parameters come first: out of line, so that
    /// the comparison of a property stays as small as it is.
    @usableFromInline
    static func subqueryCountComparison(_ path: ModelQueryPath, _ op: ModelQueryOperator, options: UInt8, _ stored: Value) -> ModelCondition {
        if case .null = stored {
            return ModelCondition(.comparison(path, op, options: options, .null), arguments: path.arguments(then: []))
        }
        return ModelCondition(.comparison(path, op, options: options, .argument), arguments: path.arguments(then: [stored]))
    }

    /// The query text of the condition on `Root` and its parameters: the statement `explain`
    /// and the shell would run (`"Person where age > $0"`, `[.int(30)]`).
    public func queryText() throws -> (text: String, arguments: [Value]) {
        let translated = try ModelConditionCache.translation(of: node, root: Root.self)
        return ("\(Root.modelName) where \(translated.text)", arguments)
    }

    /// The predicate of ``queryText()`` alone, without the model (`"age > $0"`).
    func predicateText() throws -> String {
        try ModelConditionCache.text(of: node, signature: signature, root: Root.self)
    }

    /// The opposite condition: `NOT`.
    @inlinable
    public static prefix func ! (condition: ModelCondition) -> ModelCondition {
        ModelCondition(.not(condition.node), arguments: condition.arguments)
    }
}

/// A single comparison of a property of the model with a value or `nil` (the node of most
/// queries run in a loop) as plain bits: its key path's address and its operator, options and
/// operand. Two such nodes with one signature are the same node while that key path lives, so
/// ``ModelConditionCache`` finds the translation of a condition built by the same code as the
/// last one with two integer comparisons, its node not read. Any other node has ``none``.
@usableFromInline
struct ModelConditionSignature: Equatable, Sendable {
    @usableFromInline let keyPath: UInt
    @usableFromInline let rest: UInt

    @inlinable init(keyPath: UInt, rest: UInt) {
        self.keyPath = keyPath
        self.rest = rest
    }

    @usableFromInline static let none = ModelConditionSignature(keyPath: 0, rest: 0)

    @inlinable
    init(_ path: ModelQueryPath, _ op: ModelQueryOperator, options: UInt8, isNull: Bool) {
        guard path.links.isEmpty, path.aggregate == nil, path.subquery == nil, let last = path.last else {
            self = .none
            return
        }
        keyPath = UInt(bitPattern: ObjectIdentifier(last))
        rest = UInt(op.rawValue) | UInt(options) << 8 | (isNull ? 1 << 16 : 0)
    }
}

/// A condition's shape: its key paths, operators and which operands are parameters, without
/// their values. Two conditions of one node are one query text. Sendable as key paths are.
@usableFromInline
enum ModelConditionNode: Hashable, @unchecked Sendable {
    /// `path op operand`, with `[c]`/`[d]` options (`StringComparisonOptions` raw values).
    case comparison(ModelQueryPath, ModelQueryOperator, options: UInt8, ModelQueryOperand)
    /// `$n IN list`: the list holds the parameter.
    case element(of: ModelQueryPath)
    /// `path BETWEEN {$n, $n+1}`: the property is within the two parameters, inclusive.
    case between(ModelQueryPath)
    /// `list.contains(model)`: a model value is no query constant, an error naming the
    /// property of the list's objects to compare instead.
    case modelElement(of: ModelQueryPath, modelName: String)
    indirect case and(ModelConditionNode, ModelConditionNode)
    indirect case or(ModelConditionNode, ModelConditionNode)
    indirect case not(ModelConditionNode)
    /// Some element of the list meets the condition, whose key paths start with the list's:
    /// `ANY` of one comparison, else a subquery.
    indirect case any(ModelQueryPath, ModelConditionNode)
    /// Every element of the list meets the condition: `ALL` of one comparison, else a subquery.
    indirect case all(ModelQueryPath, ModelConditionNode)
    /// A construct Trove cannot run, and why: an error when the condition runs.
    case unsupported(String)
}

/// The right side of a comparison.
@usableFromInline
enum ModelQueryOperand: Hashable, @unchecked Sendable {
    /// The next parameter.
    case argument
    /// `nil`.
    case null
    /// Another property of the same object.
    case property(ModelQueryPath)
}

/// The operators a ``ModelQuery`` compares with; ``ModelConditionTranslator`` maps them to
/// the query language's.
@usableFromInline
enum ModelQueryOperator: UInt8, Hashable, Sendable {
    case equal, notEqual, lessThan, lessThanOrEqual, greaterThan, greaterThanOrEqual
    case beginsWith, endsWith, contains, like, `in`
}
