/// What ``Storage/verify()`` found.
public struct VerifyReport: Sendable, CustomStringConvertible {
    /// One tree: a named one (``trees``), or the catalog (``catalog``).
    public struct TreeSummary: Sendable {
        public var name: String
        public var entries: Int
        public var pages: Int
        public var depth: Int
        /// Branch and leaf pages, and the bytes their entries and slots take.
        public var nodePages = 0
        public var nodeBytes = 0
        /// How full the branch and leaf pages are: `nodeBytes` over the room their bodies
        /// have (0 for an empty tree).
        public var fill: Double = 0
        /// Leaves with no entries below the root. The format allows them and readers step over
        /// them, so they are reported here and not as problems; a delete through one removes it,
        /// and in a tree (not the catalog, which packing does not visit) so does a packing
        /// commit (see ``Tree``); a vacuum that moves pages removes every one.
        public var emptyLeaves = 0
        /// Branches with one child. The format allows them, and the writer keeps one where keys
        /// of very different lengths let it neither merge nor share (see ``Tree``); the others
        /// a delete through them removes, in a tree a packing commit too, and a vacuum that
        /// moves pages all of them.
        public var oneChildBranches = 0
    }
    /// The snapshot verified.
    public var transactionID: UInt64 = 0
    public var pageCount: Int = 0
    public var usedPages: Int = 0
    public var freePages: Int = 0
    public var trees: [TreeSummary] = []
    /// The catalog, the tree that maps each tree's name to its root: its `entries` are the
    /// trees, and its `name` is empty. Its pages count in `usedPages` too.
    public var catalog = TreeSummary(name: "", entries: 0, pages: 0, depth: 0)
    /// Every inconsistency, each naming its page: empty when the store is sound.
    public var problems: [VerifyProblem] = []

    public var isValid: Bool { problems.isEmpty }

    public var description: String {
        var s = "transaction \(transactionID): \(pageCount) pages, \(usedPages) used, \(freePages) free, \(trees.count) trees"
        for p in problems { s += "\n  problem: \(p)" }
        for t in [catalog] + trees where t.emptyLeaves > 0 || t.oneChildBranches > 0 {
            let tree = t.name.isEmpty ? "the catalog" : "tree \(t.name)"
            let repairs = t.name.isEmpty ? "dropping trees through them removes most" : "deletes and packing through them remove most, a vacuum that moves pages all"
            s += "\n  note: \(tree) holds \(t.emptyLeaves) empty leaves and \(t.oneChildBranches) branches with one child (sound to read; \(repairs))"
        }
        return s
    }
}

/// One inconsistency ``Storage/verify()`` found; its description names the page.
public enum VerifyProblem: Sendable, Equatable, CustomStringConvertible {
    /// The file holds fewer pages than the snapshot counts: nothing else was checked.
    case truncated(expectedPages: UInt64, presentPages: UInt64)
    /// A page that is neither used nor free.
    case leaked(page: UInt64)
    /// A page (or, with no page, the store) that fails a check: its checksum, header, type,
    /// key order, or a reference to it. Described as ``StorageError/corrupt(page:detail:)``.
    case damaged(page: UInt64?, detail: String)
    /// The walk stopped at an error other than damage (a failed read, for one).
    case walkFailed(String)

    public var description: String {
        switch self {
        case let .truncated(expected, present): "the file is truncated: \(expected) pages expected, \(present) present"
        case let .leaked(page): "page \(page) is leaked: neither used nor free"
        case let .damaged(page, detail): StorageError.corrupt(page: page, detail: detail).description
        case let .walkFailed(detail): detail
        }
    }
}
