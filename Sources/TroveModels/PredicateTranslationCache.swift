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
    struct KnownExpression: @unchecked Sendable {
        let shape: PredicateShape
        let shaped: any ShapedExpression.Type
        let entry: Entry
    }

    private static let known = Mutex<[ObjectIdentifier: KnownExpression]>([:])

    /// The condition of `predicate`, its query text and its parameters.
    static func translate<T: PersistentModel>(_ predicate: Predicate<T>) throws -> (condition: QueryPredicate, text: String, arguments: [Value]) {
        let expressionType = ObjectIdentifier(type(of: predicate.expression))
        if let expression = known.withLock({ $0[expressionType] }), expression.shape.model == ObjectIdentifier(T.self),
           let values = PredicateShapeReader.values(of: predicate, matching: expression) {
            return (expression.entry.condition, expression.entry.text, expression.entry.arguments(values))
        }
        let reader = PredicateShapeReader.read(predicate)
        if let reader, let entry = entries.withLock({ $0[reader.shape] }) {
            remember(reader, entry)
            return (entry.condition, entry.text, entry.arguments(reader.values))
        }
        let translated = try PredicateTranslator.translation(of: predicate)
        let text = translated.condition.description
        // Cached only when the walk read the values the translator read, in the same order:
        // then the sources point at the same values for every predicate of this shape.
        if let reader, let sources = translated.sources, translated.constants == reader.values {
            let entry = Entry(condition: translated.condition, text: text, sources: sources, constants: reader.values.count)
            entries.withLock { entries in
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
                entries[reader.shape] = entry
            }
            remember(reader, entry)
        }
        return (translated.condition, text, translated.arguments)
    }

    /// Makes the shape `reader` read its expression type's known shape.
    private static func remember(_ reader: PredicateShapeReader, _ entry: Entry) {
        guard let shaped = reader.shaped else { return }
        let expression = KnownExpression(shape: reader.shape, shaped: shaped, entry: entry)
        known.withLock { known in
            if known.count >= capacity { known.removeAll(keepingCapacity: true) }
            known[reader.shape.expression] = expression
        }
    }
}
