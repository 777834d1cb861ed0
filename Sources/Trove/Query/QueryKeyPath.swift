/// A dotted path of property names, `owner.address.city`, optionally starting from a subquery
/// variable (`$dog.name`).
///
/// Whether a component crosses a link or a list is known only against a schema; the binder
/// resolves that. Equality ignores source ranges.
package struct QueryKeyPath: Sendable, Hashable, CustomStringConvertible {
    /// The `SUBQUERY` variable the path starts from, or nil for a path from the queried model.
    package var variable: QueryIdentifier?
    /// The property names, in order. Empty for a bare variable (`$x`, an element of a list of
    /// primitives).
    package var components: [QueryIdentifier]

    package init(variable: QueryIdentifier? = nil, components: [QueryIdentifier]) {
        self.variable = variable
        self.components = components
    }

    /// A path from the queried model, from its dotted text: `QueryKeyPath("owner.name")`.
    package init(_ dotted: String) {
        self.init(components: dotted.split(separator: ".", omittingEmptySubsequences: false).map { QueryIdentifier(String($0)) })
    }

    /// The property names, without the variable.
    package var names: [String] { components.map(\.name) }

    /// The span of the path in the text.
    package var range: QuerySourceRange {
        let first = variable ?? components.first
        let last = components.last ?? variable
        guard let first, let last else { return QuerySourceRange(at: .start) }
        return first.range.union(last.range)
    }
}
