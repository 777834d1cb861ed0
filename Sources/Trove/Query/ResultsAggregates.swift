#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Results {
    /// The sum of a numeric property (which may go through to-one links) over the objects:
    /// `.int` for integers, `.double` for floats and doubles, `.decimal` for decimals; zero
    /// when empty. Nulls and NaNs are skipped; an infinity is a value, so a sum that meets
    /// `+inf` is `+inf`, one that meets `-inf` is `-inf`, and one that meets both is NaN.
    ///
    /// - Throws: `QueryError` when the sum of finite values is beyond the range of `int`,
    ///   `double` or `decimal`, whatever infinities are beside them.
    public func sum(of property: String) throws -> Value {
        try aggregate(.sum, property)
    }

    /// `sum(of:)` as a `Float` reads it: a sum of floats whose finite values add up beyond
    /// `Float`'s range is that sum (a double no `Float` holds), even beside an infinity, so
    /// that the reader's range check refuses it (`DoubleSum.floatValue`).
    package func sum(of property: String, readAsFloat: Bool) throws -> Value {
        try aggregate(.sum, property, readsAsFloat: readAsFloat)
    }

    /// The mean of a numeric property: `.double` (`.decimal` for decimals), or `.null` when
    /// there is no non-null value. NaNs take no part; infinities do, as in `sum(of:)`.
    public func average(of property: String) throws -> Value {
        try aggregate(.avg, property)
    }

    /// The least value of a numeric or date property, or `.null` when there is none.
    public func min(of property: String) throws -> Value {
        try aggregate(.min, property)
    }

    /// The greatest value of a numeric or date property, or `.null` when there is none.
    public func max(of property: String) throws -> Value {
        try aggregate(.max, property)
    }

    private func aggregate(_ function: AggregateFunction, _ property: String, readsAsFloat: Bool = false) throws -> Value {
        try snapshot.checkLive()
        let binder = QueryBinder(layout: snapshot.layout, arguments: [], statement: property)
        let path = try binder.orderingKeyPath(try Self.keyPath(property), model: model, clause: "\(function)", allowsLinks: false)
        if let problem = AggregateAccumulator.check(function, named: "\(function)", kind: path.kind, text: path.text) {
            throw QueryError(.invalidAggregate, problem, at: .start, in: property)
        }
        let reader = KeyPathReader(snapshot: snapshot)
        let read = try reader.valueReader(path)
        let tree = try reader.tree(model)
        var accumulator = AggregateAccumulator(function, kind: path.kind, of: path.text, at: path.range.start)
        accumulator.readsAsFloat = readsAsFloat
        for key in keys {
            guard let value = try reader.withRecord(tree, key, { try read($0, key) }) else { continue }
            accumulator.add(value)
        }
        return try accumulator.value
    }
}
