/// The text of a query statement rebuilt from its recognized pieces, for the store's query
/// parser, with a map back to the statement so that its errors point where the user typed.
struct QueryText {
    private(set) var text = ""
    /// Where each copied piece starts in `text` and in the statement, in UTF-8 bytes.
    private var pieces: [(start: Int, length: Int, source: Int)] = []

    init(_ spec: QuerySpec) {
        append(spec.model)
        if let predicate = spec.predicate {
            append(" where ")
            append(predicate)
        }
        for modifier in spec.modifiers {
            switch modifier {
            case .sort(let keys):
                append(" SORT(")
                for (i, key) in keys.enumerated() {
                    if i > 0 { append(", ") }
                    append(key.keyPath)
                    append(key.ascending ? " ASC" : " DESC")
                }
                append(")")
            case .distinct(let keys):
                append(" DISTINCT(")
                for (i, key) in keys.enumerated() {
                    if i > 0 { append(", ") }
                    append(key)
                }
                append(")")
            case .limit(let n):
                append(" LIMIT(\(n))")
            }
        }
    }

    /// A predicate alone.
    init(predicate: SourceFragment) {
        append(predicate)
    }

    private mutating func append(_ literal: String) { text += literal }

    private mutating func append(_ fragment: SourceFragment) {
        pieces.append((text.utf8.count, fragment.text.utf8.count, fragment.offset))
        text += fragment.text
    }

    /// The statement offset of `offset` in `text`: inside a copied piece exactly, between
    /// pieces at the start of the next one (or the end of the last).
    func statementOffset(_ offset: Int) -> Int {
        for piece in pieces where offset < piece.start + piece.length || piece.start >= offset {
            return piece.source + max(0, offset - piece.start)
        }
        guard let last = pieces.last else { return 0 }
        return last.source + last.length
    }
}
