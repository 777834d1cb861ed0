#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

/// What a predicate's translation depends on, read without translating it: the dynamic type
/// of its expression tree (which fixes every node and its operands' types), the key paths,
/// the comparison operators, which closure each variable belongs to, and of the captured
/// values only what changes the query text (nil, a Bool, an array's length). Two predicates
/// of one shape translate to one query text; their captured values are its parameters.
/// Sendable as key paths are: immutable once made.
struct PredicateShape: Hashable, @unchecked Sendable {
    let model: ObjectIdentifier
    let expression: ObjectIdentifier
    /// Key paths, operators, variable ordinals and value kinds, in the order the walk meets
    /// them: one array, allocated once per query.
    var elements: [Element] = []

    enum Element: Hashable {
        case keyPath(AnyKeyPath)
        case mark(Int)

        /// A key path hashes as its type: `AnyKeyPath`'s own hash walks its components, and
        /// the type already tells most key paths of one expression apart (equal key paths
        /// have one type, so equal elements still hash alike).
        func hash(into hasher: inout Hasher) {
            switch self {
            case .keyPath(let k): hasher.combine(ObjectIdentifier(type(of: k)))
            case .mark(let m): hasher.combine(m)
            }
        }

        /// A key-path literal is one instance wherever its call site runs, so identity
        /// answers almost every comparison; equal key paths made apart compare equal.
        static func == (a: Element, b: Element) -> Bool {
            switch (a, b) {
            case (.keyPath(let x), .keyPath(let y)): x === y || x == y
            case (.mark(let x), .mark(let y)): x == y
            default: false
            }
        }
    }
}

/// Walks an expression tree for its ``PredicateShape`` and its captured values, in the order
/// ``PredicateTranslator`` reads them; or, given the elements of a shape, checks the tree
/// against them as it walks, with no shape built.
struct PredicateShapeReader {
    var shape: PredicateShape
    /// The elements the tree is checked against, when it is; `shape` then stays empty.
    private let expected: [PredicateShape.Element]?
    /// How many elements the walk has met.
    private var position = 0
    /// Whether every element met so far is the expected one.
    private(set) var matches = true
    /// The type of the tree's root node, as the walk reads it.
    private(set) var shaped: (any ShapedExpression.Type)?
    /// The captured values, as the translator's `constants` holds them.
    var values: [Value] = []
    /// The outcomes of the comparisons of two constants a `??` leads to, as the translator's
    /// `folds` holds them; each is also an element of the shape, as it changes the query text.
    private(set) var folds: [Bool] = []
    /// The translation of each node type met, by type, when a shape is built (not checked):
    /// the translator finds each node's here, where a conformance lookup would scan every
    /// conformance record in the process the first time each node type is met.
    private(set) var translatables: [ObjectIdentifier: any TranslatableExpression.Type] = [:]
    /// The predicate's own variable, then each closure's as it is bound.
    private let root: PredicateExpressions.VariableID
    private var closureVariables: [PredicateExpressions.VariableID] = []

    /// The shape and values of a predicate whose tree is `expression`, or nil when the tree
    /// has a node the translator may refuse (that translation reports the error). The
    /// expression is opened to its own type, whose conformance is looked up as a type: no copy
    /// of the tree into an existential box.
    static func read<E: StandardPredicateExpression<Bool>>(_ expression: E, model: ObjectIdentifier,
                                                                   root: PredicateExpressions.VariableID) -> PredicateShapeReader? {
        guard let shaped = E.self as? any ShapedExpression.Type else { return nil }
        var reader = PredicateShapeReader(shape: PredicateShape(model: model, expression: ObjectIdentifier(E.self)), root: root, expected: nil)
        reader.shaped = shaped
        do {
            try shaped.readShape(of: expression, &reader)
        } catch {
            return nil
        }
        return reader
    }

    /// The captured values of a predicate whose tree is `expression` and whose variable is
    /// `root`, when the tree, of the type `known.shaped` reads, has the shape `known.shape`;
    /// nil when it has another.
    static func values<E: StandardPredicateExpression<Bool>>(of expression: E, matching known: PredicateTranslationCache.KnownExpression,
                                                             root: PredicateExpressions.VariableID) -> [Value]? {
        var reader = PredicateShapeReader(shape: PredicateShape(model: known.shape.model, expression: known.shape.expression), root: root,
                                          expected: known.shape.elements)
        do {
            try known.shaped.readShape(of: expression, &reader)
        } catch {
            return nil
        }
        return reader.matches && reader.position == known.shape.elements.count ? reader.values : nil
    }

    private init(shape: PredicateShape, root: PredicateExpressions.VariableID, expected: [PredicateShape.Element]?) {
        self.shape = shape
        self.root = root
        self.expected = expected
        // A comparison of a key path with a value holds three elements; a few more fit.
        if expected == nil { self.shape.elements.reserveCapacity(8) }
        values.reserveCapacity(4)
    }

    /// Adds `element` to the shape, or checks it against the expected one.
    private mutating func meet(_ element: PredicateShape.Element) {
        guard let expected else { return shape.elements.append(element) }
        if matches { matches = position < expected.count && expected[position] == element }
        position += 1
    }

    /// Notes the translation of the node type `node` when a shape is built.
    @inline(__always)
    mutating func note<Node: ShapedExpression>(_ node: Node.Type) {
        if expected == nil { translatables[ObjectIdentifier(node)] = node }
    }

    mutating func bind(_ variable: PredicateExpressions.VariableID) {
        closureVariables.append(variable)
    }

    mutating func use(_ variable: PredicateExpressions.VariableID) {
        mark(variable == root ? 0 : closureVariables.firstIndex(of: variable).map { $0 + 1 } ?? -1)
    }

    mutating func mark(_ value: Int) {
        meet(.mark(value))
    }

    /// The comparison `lhs op rhs`, when an operand is a `??`: where both stand for constants
    /// (a `??`'s default, a captured value), the translator folds `lhs op rhs`, and the outcome
    /// changes the query text.
    mutating func fold<L: ShapedExpression, R: ShapedExpression>(_ lhs: L, _ op: ComparisonOperator, _ rhs: R,
                                                                  options: StringComparisonOptions = []) throws {
        guard L.coalesces || R.coalesces, let a = try lhs.foldedConstant(), let b = try rhs.foldedConstant() else { return }
        let holds = ValueComparison.holds(a, op, b, options: options)
        folds.append(holds)
        mark(holds ? 1 : 0)
    }

    mutating func keyPath(_ keyPath: AnyKeyPath) {
        meet(.keyPath(keyPath))
    }

    /// A captured value: the kinds that change the query text are marked, the rest are
    /// parameters whatever they hold.
    mutating func capture(_ value: Value) {
        values.append(value)
        switch value {
        case .null: mark(1)
        case .bool(let b): mark(b ? 3 : 2)
        case .list(let items):
            mark(4)
            mark(items.count)
            for item in items { mark(item.isNull ? 1 : 0) }
        default: mark(0)
        }
    }
}

/// A node whose shape ``PredicateShapeReader`` can read. The conformances are conditional on
/// the operands', so reading a tree takes no dynamic casts below its root; and each node is a
/// ``TranslatableExpression`` by a conformance known where it is read, so the first walk of a
/// shape hands the translator every node's translation with no conformance looked up.
protocol ShapedExpression: TranslatableExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws
    /// Whether the node's term is a `??` with a constant default (through `!` and `?.`).
    static var coalesces: Bool { get }
    /// The constant the node stands for where a comparison folds it: a captured value, `nil`,
    /// or a `??`'s default; nil for any other node.
    func foldedConstant() throws -> Value?
}

extension ShapedExpression {
    static var coalesces: Bool { false }
    func foldedConstant() throws -> Value? { nil }
}

extension ShapedExpression {
    /// ``readShape(_:)`` of `expression`, a value of this type given as its own.
    static func readShape<E>(of expression: E, _ reader: inout PredicateShapeReader) throws {
        guard E.self == Self.self else { throw ModelQueryError("\(E.self) is not \(Self.self)") }
        // Through the mutable pointer's `pointee` the node is read where it is; a method
        // called on an immutable `pointee` runs on a copy of the whole tree. The memory is the
        // caller's: a predicate's tree lies in a box every copy of it shares, across threads
        // (`Predicate` is `Sendable`), and the pointer came from `withUnsafePointer`, so
        // `readShapeInPlace` must never store into `self`: a write would change the user's
        // predicate and race with its other readers.
        try withUnsafePointer(to: expression) { pointer in
            try UnsafeMutableRawPointer(mutating: pointer).assumingMemoryBound(to: Self.self).pointee.readShapeInPlace(&reader)
        }
    }

    /// ``readShape(_:)``, called on a node where it lies. `mutating` only so that the call
    /// needs no copy; it must change nothing (see ``readShape(of:_:)``).
    private mutating func readShapeInPlace(_ reader: inout PredicateShapeReader) throws {
        try readNode(&reader)
    }

    /// ``readShape(_:)`` of this node, which a shape's first walk also notes as translatable.
    @inline(__always)
    func readNode(_ reader: inout PredicateShapeReader) throws {
        reader.note(Self.self)
        try readShape(&reader)
    }
}

extension PredicateExpressions.Variable: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws { reader.use(key) }
}

extension PredicateExpressions.Value: ShapedExpression where Output: StorableProperty {
    func readShape(_ reader: inout PredicateShapeReader) throws { reader.capture(try value.storedValue()) }
    func foldedConstant() throws -> Value? { try value.storedValue() }
}

extension PredicateExpressions.NilLiteral: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws {}
    func foldedConstant() throws -> Value? { .null }
}

extension PredicateExpressions.KeyPath: ShapedExpression where Root: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws {
        try root.readNode(&reader)
        reader.keyPath(keyPath)
    }
}

extension PredicateExpressions.Equal: ShapedExpression where LHS: ShapedExpression, RHS: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws {
        try lhs.readNode(&reader)
        try rhs.readNode(&reader)
        try reader.fold(lhs, .equal, rhs)
    }
}

extension PredicateExpressions.NotEqual: ShapedExpression where LHS: ShapedExpression, RHS: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws {
        try lhs.readNode(&reader)
        try rhs.readNode(&reader)
        try reader.fold(lhs, .notEqual, rhs)
    }
}

extension PredicateExpressions.Comparison: ShapedExpression where LHS: ShapedExpression, RHS: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws {
        let code = switch op {
        case .lessThan: 0
        case .lessThanOrEqual: 1
        case .greaterThan: 2
        case .greaterThanOrEqual: 3
        @unknown default: -1
        }
        reader.mark(code)
        try lhs.readNode(&reader)
        try rhs.readNode(&reader)
        let operation: ComparisonOperator = switch op {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqual
        case .greaterThan: .greaterThan
        default: .greaterThanOrEqual
        }
        try reader.fold(lhs, operation, rhs)
    }
}

extension PredicateExpressions.Conjunction: ShapedExpression where LHS: ShapedExpression, RHS: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws {
        try lhs.readNode(&reader)
        try rhs.readNode(&reader)
    }
}

extension PredicateExpressions.Disjunction: ShapedExpression where LHS: ShapedExpression, RHS: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws {
        try lhs.readNode(&reader)
        try rhs.readNode(&reader)
    }
}

extension PredicateExpressions.Negation: ShapedExpression where Wrapped: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws { try wrapped.readNode(&reader) }
}

extension PredicateExpressions.CollectionContainsCollection: ShapedExpression where Base: ShapedExpression, Other: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws {
        try base.readNode(&reader)
        try other.readNode(&reader)
        try reader.fold(base, .contains, other)
    }
}

extension PredicateExpressions.SequenceStartsWith: ShapedExpression where Base: ShapedExpression, Prefix: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws {
        try base.readNode(&reader)
        try prefix.readNode(&reader)
        try reader.fold(base, .beginsWith, prefix)
    }
}

extension PredicateExpressions.SequenceContains: ShapedExpression where LHS: ShapedExpression, RHS: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws {
        try sequence.readNode(&reader)
        try element.readNode(&reader)
    }
}

extension PredicateExpressions.SequenceContainsWhere: ShapedExpression where LHS: ShapedExpression, RHS: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws {
        try sequence.readNode(&reader)
        reader.bind(variable.key)
        try test.readNode(&reader)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: ShapedExpression where LHS: ShapedExpression, RHS: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws {
        try sequence.readNode(&reader)
        reader.bind(variable.key)
        try test.readNode(&reader)
    }
}

extension PredicateExpressions.OptionalFlatMap: ShapedExpression where LHS: ShapedExpression, RHS: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws {
        try wrapped.readNode(&reader)
        reader.bind(variable.key)
        try transform.readNode(&reader)
    }
}

extension PredicateExpressions.NilCoalesce: ShapedExpression where LHS: ShapedExpression, RHS: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws {
        try lhs.readNode(&reader)
        try rhs.readNode(&reader)
    }
    static var coalesces: Bool { true }
    /// The default a comparison folds with, or the constant this `??` is, as the translator
    /// takes them (``folding(left:right:)``); nil for a property with a nil default, which
    /// the translator compares as the property, with no fold.
    func foldedConstant() throws -> Value? {
        guard let right = try rhs.foldedConstant() else { return nil }
        let left = try lhs.foldedConstant()
        return switch Self.folding(left: left, right: right) {
        case .left: left
        case .right, .coalesced: right
        }
    }
}

extension PredicateExpressions.ForcedUnwrap: ShapedExpression where Inner: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws { try inner.readNode(&reader) }
    static var coalesces: Bool { Inner.coalesces }
    func foldedConstant() throws -> Value? { try inner.foldedConstant() }
}

extension PredicateExpressions.StringLocalizedStandardContains: ShapedExpression where Root: ShapedExpression, Other: ShapedExpression {
    func readShape(_ reader: inout PredicateShapeReader) throws {
        try root.readNode(&reader)
        try other.readNode(&reader)
        try reader.fold(root, .contains, other, options: [.caseInsensitive, .diacriticInsensitive])
    }
}
