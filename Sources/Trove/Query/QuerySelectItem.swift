/// One item of a `SELECT(...)` clause: what a printed row holds in one column.
///
/// Equality and hashing ignore source ranges, as for the other AST nodes; the text as written
/// takes part, since it names an unnamed item.
package struct QuerySelectItem: Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        /// `name`, `team.name` (one value through to-one links), `dogs.name` (an array through a list).
        case keyPath(QueryKeyPath)
        /// `dogs.@count`, `dogs.@avg.age`: an aggregate of each object's list.
        case listAggregate(QueryExpression.Aggregate)
        /// `@count`, `@sum.mpg`, ...: an aggregate over the objects of a group; only under `GROUP`.
        case groupAggregate(AggregateFunction, QueryKeyPath?)
    }

    package var kind: Kind
    /// The name given by `AS NAME`, or nil.
    package var alias: QueryIdentifier?
    /// The item as written, without its `AS NAME`: the name of an unnamed item.
    package var text: String
    /// Where the item (without its `AS NAME`) stands in the statement.
    package var range: QuerySourceRange

    package init(_ kind: Kind, alias: QueryIdentifier? = nil, text: String, range: QuerySourceRange = QuerySourceRange(at: .start)) {
        self.kind = kind
        self.alias = alias
        self.text = text
        self.range = range
    }

    /// The column name: the alias, or the text as written without the `#` that escapes a
    /// property named like a keyword (`#any` is the property `any`, `team.#desc` its `desc`).
    package var name: String {
        if let alias { return alias.name }
        guard text.contains("#") else { return text }
        var result = "", previous: Character?
        for c in text {
            if c == "#", previous == nil || previous == "." { previous = c; continue }
            result.append(c)
            previous = c
        }
        return result
    }

    /// The item as written, with its `AS NAME`.
    package var description: String { text + (alias.map { " AS \($0.name)" } ?? "") }

    package static func == (a: QuerySelectItem, b: QuerySelectItem) -> Bool {
        a.kind == b.kind && a.alias == b.alias && a.text == b.text
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(alias)
        hasher.combine(text)
    }
}
