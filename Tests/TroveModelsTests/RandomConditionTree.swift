import TestRandom

/// A random tree of AND, OR and NOT over the atoms `atom` draws, with the query text it means:
/// the shape every differential test of typed conditions draws, whichever API builds them.
func randomConditionTree<Builder>(_ g: inout SplitMix64, depth: Int,
                                  atom: (inout SplitMix64) -> (Builder, String),
                                  and: (Builder, Builder) -> Builder,
                                  or: (Builder, Builder) -> Builder,
                                  not: (Builder) -> Builder) -> (Builder, String) {
    guard depth > 0, Int.random(in: 0..<3, using: &g) > 0 else { return atom(&g) }
    let (a, ta) = randomConditionTree(&g, depth: depth - 1, atom: atom, and: and, or: or, not: not)
    switch Int.random(in: 0..<3, using: &g) {
    case 0:
        let (b, tb) = randomConditionTree(&g, depth: depth - 1, atom: atom, and: and, or: or, not: not)
        return (and(a, b), "(\(ta)) AND (\(tb))")
    case 1:
        let (b, tb) = randomConditionTree(&g, depth: depth - 1, atom: atom, and: and, or: or, not: not)
        return (or(a, b), "(\(ta)) OR (\(tb))")
    default:
        return (not(a), "NOT (\(ta))")
    }
}
