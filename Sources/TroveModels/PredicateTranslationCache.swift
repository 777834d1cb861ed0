#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import Trove

/// Where a query parameter comes from: a captured constant of the predicate, or one element of
/// a captured array.
struct ArgumentSource: Hashable {
    var constant: Int
    var element: Int?

    func value(in constants: [Value]) -> Value {
        guard let element else { return constants[constant] }
        guard case .list(let items) = constants[constant], element < items.count else { return .null }
        return items[element]
    }
}

/// Translations of predicates by their ``PredicateShape``: a repeated typed query reads its
/// tree's shape and captured values and finds its query text here, with no walk of the
/// translator and no text printed. A predicate whose shape cannot be read (a node Trove does
/// not translate, a constant with no stored form) is translated every time, so that its error
/// is the translator's.
enum PredicateTranslationCache {
    /// One translation: the condition, its text, and where each parameter comes from.
    struct Entry {
        let condition: QueryPredicate
        let text: String
        let sources: [ArgumentSource]
        /// Whether the parameters are the captured values themselves, in order.
        let sourcesAreConstants: Bool

        init(condition: QueryPredicate, text: String, sources: [ArgumentSource], constants: Int) {
            self.condition = condition
            self.text = text
            self.sources = sources
            sourcesAreConstants = sources.count == constants && sources.indices.allSatisfy { sources[$0] == ArgumentSource(constant: $0) }
        }

        func arguments(_ constants: [Value]) -> [Value] {
            sourcesAreConstants ? constants : sources.map { $0.value(in: constants) }
        }
    }

    /// Enough for every predicate a program writes; beyond it the cache starts again, so that
    /// shapes built at run time (arrays of many lengths) cannot grow it without bound.
    static let capacity = 4096

    private static let entries = Mutex<[PredicateShape: Entry]>([:])

    /// An expression type's last shape and its translation. A call site's predicates have one
    /// expression type and, almost always, one shape: a predicate of a known expression type
    /// is checked against that shape as its tree is walked, with no shape built, hashed or
    /// compared whole, and no conformance looked up. Any difference (a key path, an operator,
    /// a variable, a captured nil, Bool or array length) sends it the way of ``entries``.
    /// Sendable as ``PredicateShape`` is: immutable once made.
    final class KnownExpression: @unchecked Sendable {
        let shape: PredicateShape
        let shaped: any ShapedExpression.Type
        let entry: Entry

        init(shape: PredicateShape, shaped: any ShapedExpression.Type, entry: Entry) {
            self.shape = shape
            self.shaped = shaped
            self.entry = entry
        }
    }

    /// The known expressions by expression type, and those published in a slot, kept for
    /// good: a reader of a slot uses its expression without a retain.
    private struct Known {
        var byType: [ObjectIdentifier: KnownExpression] = [:]
        var kept: [KnownExpression] = []
    }

    private static let known = Mutex(Known())

    /// How many known expressions may be published in the slots over a run; past it, they are
    /// found by expression type under the lock.
    static let keptCapacity = 1024

    /// The addresses of published known expressions (0 for none); an expression type's slot
    /// is chosen by bits of its metadata's address. A repeated query finds its expression
    /// here with one load: no lock, no hash and no copy.
    private static let slot0 = Atomic<UInt>(0)
    private static let slot1 = Atomic<UInt>(0)
    private static let slot2 = Atomic<UInt>(0)
    private static let slot3 = Atomic<UInt>(0)

    private static func slot<R>(_ expressionType: ObjectIdentifier, _ body: (borrowing Atomic<UInt>) -> R) -> R {
        switch (UInt(bitPattern: expressionType) >> 4) & 3 {
        case 0: body(slot0)
        case 1: body(slot1)
        case 2: body(slot2)
        default: body(slot3)
        }
    }

    /// The condition of `predicate`, its query text and its parameters.
    static func translate<T: PersistentModel>(_ predicate: Predicate<T>) throws -> (condition: QueryPredicate, text: String, arguments: [Value]) {
        try translate(predicate, predicate.expression)
    }

    /// ``translate(_:)`` with the predicate's expression opened to its own type once, in
    /// place: its type is the slot's key, and the known shape reads the same value.
    private static func translate<T: PersistentModel, E: StandardPredicateExpression<Bool>>(_ predicate: Predicate<T>, _ tree: E) throws
        -> (condition: QueryPredicate, text: String, arguments: [Value])
    {
        let expressionType = ObjectIdentifier(E.self)
        let root = predicate.variable.key
        if let pointer = UnsafeRawPointer(bitPattern: slot(expressionType) { $0.load(ordering: .acquiring) }) {
            let hit = Unmanaged<KnownExpression>.fromOpaque(pointer)._withUnsafeGuaranteedRef { expression in
                translation(of: tree, T.self, root: root, by: expression)
            }
            if let hit { return hit }
        }
        if let expression = known.withLock({ $0.byType[expressionType] }) {
            if let hit = translation(of: tree, T.self, root: root, by: expression) {
                publish(expression)
                return hit
            }
        }
        let reader = PredicateShapeReader.read(tree, model: ObjectIdentifier(T.self), root: root)
        if let reader, let entry = entries.withLock({ $0[reader.shape] }) {
            remember(reader, entry)
            return (entry.condition, entry.text, entry.arguments(reader.values))
        }
        let translated = try PredicateTranslator.translation(of: predicate, translatables: reader?.translatables ?? [:])
        let text = translated.condition.description
        // Cached only when the walk read the values the translator read, in the same order,
        // and marked the comparisons of constants the translator folded, with their outcomes:
        // then the sources point at the same values for every predicate of this shape.
        if let reader, let sources = translated.sources, translated.constants == reader.values, translated.folds == reader.folds {
            let entry = Entry(condition: translated.condition, text: text, sources: sources, constants: reader.values.count)
            entries.withLock { entries in
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
                entries[reader.shape] = entry
            }
            remember(reader, entry)
        }
        return (translated.condition, text, translated.arguments)
    }

    /// The translation of the predicate of `T` whose tree is `tree` and whose variable is
    /// `root`, by `expression`, when it is of that expression's type, model and shape.
    private static func translation<T: PersistentModel, E: StandardPredicateExpression<Bool>>(
        of tree: E, _ model: T.Type, root: PredicateExpressions.VariableID, by expression: KnownExpression
    ) -> (condition: QueryPredicate, text: String, arguments: [Value])? {
        guard expression.shape.expression == ObjectIdentifier(E.self), expression.shape.model == ObjectIdentifier(T.self),
              let values = PredicateShapeReader.values(of: tree, matching: expression, root: root) else { return nil }
        return (expression.entry.condition, expression.entry.text, expression.entry.arguments(values))
    }

    /// Puts `expression` in its expression type's slot when it is kept for good.
    private static func publish(_ expression: KnownExpression) {
        let kept = known.withLock { known in
            if known.kept.contains(where: { $0 === expression }) { return true }
            guard known.kept.count < keptCapacity else { return false }
            known.kept.append(expression)
            return true
        }
        guard kept else { return }
        let bits = UInt(bitPattern: Unmanaged.passUnretained(expression).toOpaque())
        slot(expression.shape.expression) { $0.store(bits, ordering: .releasing) }
    }

    /// Makes the shape `reader` read its expression type's known shape.
    private static func remember(_ reader: PredicateShapeReader, _ entry: Entry) {
        guard let shaped = reader.shaped else { return }
        let expression = KnownExpression(shape: reader.shape, shaped: shaped, entry: entry)
        known.withLock { known in
            if known.byType.count >= capacity { known.byType.removeAll(keepingCapacity: true) }
            known.byType[reader.shape.expression] = expression
        }
        publish(expression)
    }
}
