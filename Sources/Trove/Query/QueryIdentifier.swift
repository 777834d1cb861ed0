/// A name written in a query (a model, a key path component, a subquery variable) and where
/// it was written, so that the binder can point at a name it cannot resolve.
///
/// Equality and hashing ignore the range: two queries that say the same thing are equal
/// wherever their names stand.
package struct QueryIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// The name, without the `#` or `$` that may prefix it in the text.
    package var name: String
    package var range: QuerySourceRange

    package init(_ name: String, range: QuerySourceRange = QuerySourceRange(at: .start)) {
        self.name = name
        self.range = range
    }

    package static func == (a: QueryIdentifier, b: QueryIdentifier) -> Bool { a.name == b.name }

    package func hash(into hasher: inout Hasher) { hasher.combine(name) }

    package var description: String { name }
}
