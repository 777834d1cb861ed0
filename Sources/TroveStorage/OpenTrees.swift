/// The trees a transaction has opened, by name. A small commit opens a handful (an object
/// insert: objects, primary key, an index, backlinks), and for so few a search of a short array
/// costs less than hashing the name for a dictionary, both to find a tree and to add one; past
/// `indexThreshold` trees a dictionary of positions takes over the search.
struct OpenTrees {
    /// In the order opened.
    private(set) var all: [Tree] = []
    /// Positions in `all` by name, kept once `all` passes `indexThreshold`.
    private var positions: [String: Int] = [:]

    private static let indexThreshold = 16

    init() { all.reserveCapacity(8) }

    subscript(name: String) -> Tree? {
        if all.count > OpenTrees.indexThreshold { return positions[name].map { all[$0] } }
        for t in all where t.name == name { return t }
        return nil
    }

    /// Adds `tree`, in place of an open tree of the same name (one dropped and created again).
    mutating func set(_ tree: Tree) {
        if all.count > OpenTrees.indexThreshold {
            if let i = positions[tree.name] { all[i] = tree; return }
            positions[tree.name] = all.count
            all.append(tree)
            return
        }
        if let i = all.firstIndex(where: { $0.name == tree.name }) { all[i] = tree; return }
        all.append(tree)
        if all.count > OpenTrees.indexThreshold {
            for (i, t) in all.enumerated() { positions[t.name] = i }
        }
    }
}
