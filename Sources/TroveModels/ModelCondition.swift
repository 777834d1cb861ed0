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

    @inlinable init(_ node: ModelConditionNode, arguments: [Value]) {
        self.node = node
        self.arguments = arguments
    }

    /// `path op value`: the value is a parameter, or `nil` when it is null; a value with no
    /// stored form (a model) is an error when the condition runs.
    @inlinable
    static func comparison<V: StorableProperty>(_ path: ModelQueryPath, _ op: ModelQueryOperator, options: UInt8 = 0, _ value: V) -> ModelCondition {
        do {
            let stored = try value.storedValue()
            if case .null = stored { return ModelCondition(.comparison(path, op, options: options, .null), arguments: []) }
            return ModelCondition(.comparison(path, op, options: options, .argument), arguments: [stored])
        } catch {
            return ModelCondition(.unsupported("\(error)"), arguments: [])
        }
    }

    /// The query text of the condition on `Root` and its parameters: the statement `explain`
    /// and the shell would run (`"Person where age > $0"`, `[.int(30)]`).
    public func queryText() throws -> (text: String, arguments: [Value]) {
        let translated = try ModelConditionCache.translation(of: node, root: Root.self)
        return ("\(Root.modelName) where \(translated.text)", arguments)
    }

    /// Both conditions: `AND`.
    @inlinable
    public static func && (lhs: ModelCondition, rhs: ModelCondition) -> ModelCondition {
        ModelCondition(.and(lhs.node, rhs.node), arguments: lhs.arguments + rhs.arguments)
    }

    /// Either condition: `OR`.
    @inlinable
    public static func || (lhs: ModelCondition, rhs: ModelCondition) -> ModelCondition {
        ModelCondition(.or(lhs.node, rhs.node), arguments: lhs.arguments + rhs.arguments)
    }

    /// The opposite condition: `NOT`.
    @inlinable
    public static prefix func ! (condition: ModelCondition) -> ModelCondition {
        ModelCondition(.not(condition.node), arguments: condition.arguments)
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
    indirect case and(ModelConditionNode, ModelConditionNode)
    indirect case or(ModelConditionNode, ModelConditionNode)
    indirect case not(ModelConditionNode)
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
