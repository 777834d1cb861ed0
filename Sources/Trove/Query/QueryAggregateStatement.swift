/// `sum MODEL.KEYPATH [where PREDICATE]`, and likewise `avg`, `min` and `max`, or
/// `count MODEL [where PREDICATE]`: one value over the objects that match.
package struct QueryAggregateStatement: Sendable, Hashable, CustomStringConvertible {
    /// `.sum`, `.avg`, `.min`, `.max` or `.count`.
    package var function: AggregateFunction
    package var model: QueryIdentifier
    /// The property aggregated, from `model`, through to-one links only; nil for `count`.
    package var keyPath: QueryKeyPath?
    package var predicate: QueryPredicate?

    package init(function: AggregateFunction, model: QueryIdentifier, keyPath: QueryKeyPath?, predicate: QueryPredicate? = nil) {
        self.function = function
        self.model = model
        self.keyPath = keyPath
        self.predicate = predicate
    }

    /// The statement words: `sum`, `avg`, `min`, `max`.
    package static let words: [String: AggregateFunction] = ["sum": .sum, "avg": .avg, "min": .min, "max": .max]

    package var description: String {
        var out = "\(function.rawValue.dropFirst()) \(model.name)" + (keyPath.map { ".\($0)" } ?? "")
        if let predicate { out += " where \(predicate)" }
        return out
    }
}
