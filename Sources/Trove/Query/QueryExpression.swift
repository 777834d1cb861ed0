/// A value in a predicate: a key path, a literal, a parameter, an aggregate or a subquery
/// count.
///
/// Equality and hashing ignore source ranges, so that `QueryParser.parsePredicate(p.description)
/// == p` holds.
package struct QueryExpression: Sendable, Hashable, CustomStringConvertible {
    package indirect enum Kind: Sendable, Hashable {
        /// `name`, `owner.name`, `$x.name`.
        case keyPath(QueryKeyPath)
        case literal(Literal)
        /// `$0`, `$1`, ...: replaced by the value bound at that index, never read as query text.
        case parameter(Int)
        /// `list.@count`, `list.@sum`, `links.@avg.price`, ...
        case aggregate(Aggregate)
        /// `SUBQUERY(list, $x, predicate).@count`.
        case subqueryCount(Subquery)
    }

    /// A literal value as written. Typing (a string read as a date, an int compared with a
    /// double) happens when binding against the schema.
    package enum Literal: Sendable, Hashable {
        /// A number as written (`42`, `-0.25`, `1e3`, `12345678901234567890.5`): the binder reads
        /// it as the type it meets, so a decimal keeps every digit.
        case number(String)
        case string(String)
        /// `true`, `false`, `TRUE`, `FALSE`, `YES`, `NO`.
        case bool(Bool)
        /// `nil` or `NULL`.
        case null
        /// `{a, b, ...}`: literals and parameters only.
        case list([QueryExpression])
    }

    /// A collection operator applied to a key path.
    package struct Aggregate: Sendable, Hashable {
        /// The list (or string, for `@size`) the operator reads.
        package var collection: QueryKeyPath
        package var function: AggregateFunction
        /// The property of linked objects to aggregate (`price` in `items.@sum.price`), or nil
        /// for a list of primitives.
        package var property: QueryKeyPath?

        package init(collection: QueryKeyPath, function: AggregateFunction, property: QueryKeyPath? = nil) {
            self.collection = collection
            self.function = function
            self.property = property
        }
    }

    /// `SUBQUERY(collection, $variable, predicate)`, whose value is the count of the elements of
    /// `collection` that satisfy `predicate`, with `$variable` standing for each element.
    package struct Subquery: Sendable, Hashable {
        package var collection: QueryKeyPath
        package var variable: QueryIdentifier
        package var predicate: QueryPredicate

        package init(collection: QueryKeyPath, variable: QueryIdentifier, predicate: QueryPredicate) {
            self.collection = collection
            self.variable = variable
            self.predicate = predicate
        }
    }

    package var kind: Kind
    /// Where the expression stands in the statement.
    package var range: QuerySourceRange

    package init(_ kind: Kind, range: QuerySourceRange = QuerySourceRange(at: .start)) {
        self.kind = kind
        self.range = range
    }

    package static func == (a: QueryExpression, b: QueryExpression) -> Bool { a.kind == b.kind }

    package func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    /// The key path, when the expression is one.
    package var keyPath: QueryKeyPath? {
        if case .keyPath(let path) = kind { path } else { nil }
    }

    /// The literal, when the expression is one.
    package var literal: Literal? {
        if case .literal(let literal) = kind { literal } else { nil }
    }

    /// Whether the expression is a value known without reading any object (a literal or a
    /// parameter, or a list of them).
    package var isConstant: Bool {
        switch kind {
        case .literal, .parameter: true
        case .keyPath, .aggregate, .subqueryCount: false
        }
    }
}

extension QueryExpression {
    /// A key path expression from its dotted text, for building queries in code.
    package static func keyPath(_ dotted: String) -> QueryExpression {
        QueryExpression(.keyPath(QueryKeyPath(dotted)))
    }

    package static func int(_ value: Int64) -> QueryExpression { QueryExpression(.literal(.number(String(value)))) }
    // Swift prints the shortest text that reads back as the same double.
    package static func double(_ value: Double) -> QueryExpression { QueryExpression(.literal(.number(value.description))) }
    /// A number literal as written.
    package static func number(_ text: String) -> QueryExpression { QueryExpression(.literal(.number(text))) }
    package static func string(_ value: String) -> QueryExpression { QueryExpression(.literal(.string(value))) }
    package static func bool(_ value: Bool) -> QueryExpression { QueryExpression(.literal(.bool(value))) }
    package static let null = QueryExpression(.literal(.null))
    package static func list(_ elements: [QueryExpression]) -> QueryExpression { QueryExpression(.literal(.list(elements))) }
    package static func parameter(_ index: Int) -> QueryExpression { QueryExpression(.parameter(index)) }
}
