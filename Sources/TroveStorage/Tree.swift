/// A named tree as one transaction sees it. Get one from ``ReadTransaction/tree(named:)`` or
/// ``WriteTransaction/createTree(named:)``; it is valid only within that transaction.
///
/// A B+tree: every leaf at the same depth, keys ascending across leaves, the keys under a
/// branch's child at or above its entry's key and below the next entry's (the first entry's
/// key is empty). An empty tree has no pages. Writes keep its shape: no leaf but the root is
/// empty, every branch has two children or more (a root left with one gives way to it), and a
/// leaf or branch left under a quarter full is merged with a sibling when both fit in one page.
/// One exception: a branch left with one child keeps it when it can neither merge with its
/// sibling nor take some of its children, which only keys of very different lengths make so.
/// The format allows both shapes, so a file written without this rule may hold empty leaves
/// and branches with one child: readers step over them, ``Storage/verify()`` reports them
/// apart from problems (`VerifyReport.TreeSummary`), and deletes and commits that pack leaves
/// through them remove them (an insert does not), as does a vacuum that moves pages (it
/// walks every page).
public final class Tree {
    /// The tree's name in the catalog.
    public let name: String
    // Unchecked exclusivity, here and in the transactions: a transaction belongs to one thread
    // at a time and never overlaps two accesses to its own state, and the runtime check cost
    // ~25 instructions per access, 10% of a delete, on the write path.
    @exclusivity(unchecked) var info: TreeInfo
    @exclusivity(unchecked) var modified = false
    @exclusivity(unchecked) var dropped = false
    let isCatalog: Bool
    /// The largest key, kept while appending (empty: unknown).
    @exclusivity(unchecked) var appendKey: [UInt8] = []

    init(name: String, info: TreeInfo, isCatalog: Bool = false) {
        self.name = name
        self.info = info
        self.isCatalog = isCatalog
    }

    /// The number of keys in the tree.
    public var count: Int { Int(info.entries) }
    /// Pages the tree occupies (branch, leaf and overflow).
    public var pageCount: Int { Int(info.pages) }
    /// Levels from the root to the leaves (0 for an empty tree).
    public var depth: Int { Int(info.depth) }
}
