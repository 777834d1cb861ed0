/// "Did you mean ...?" for misspelled types, models, properties and keys.
enum NameSuggestion {
    /// The most letters one name may add to another that starts it and still be its likely
    /// typo: `integer` for `int`, `boolean` for `bool`, `index` for `indexed`, but not
    /// `Carburetor` for `Car`.
    static let prefixSlack = 4

    /// The candidate closest to `name`, if it is close enough to be a likely typo. A candidate
    /// that starts `name`, or that `name` starts, within `prefixSlack` letters counts as one
    /// edit away; candidates equally close are told apart by their true distance, so
    /// `PersonAdress` is `PersonAddress`, not `Person`.
    static func closest(to name: String, among candidates: [String]) -> String? {
        let lower = Array(name.lowercased())
        var best: (name: String, score: Int, distance: Int)? = nil
        for candidate in candidates where candidate != name {
            let c = Array(candidate.lowercased())
            let d = distance(lower, c)
            var score = d
            if abs(lower.count - c.count) <= prefixSlack,
               (c.count >= 3 && lower.starts(with: c)) || (lower.count >= 3 && c.starts(with: lower)) {
                score = min(score, 1)
            }
            if best.map({ (score, d) < ($0.score, $0.distance) }) ?? true { best = (candidate, score, d) }
        }
        guard let best else { return nil }
        return best.score <= max(1, min(3, lower.count / 3)) ? best.name : nil
    }

    /// `"; did you mean 'x'?"`, or nothing.
    static func hint(for name: String, among candidates: [String]) -> String {
        closest(to: name, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// The edits that make `a` into `b`, each an insertion, a deletion, a substitution or a swap
    /// of two adjacent letters (the optimal string alignment distance): `Dgo` is one edit
    /// from `Dog`, as the commonest typo is.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
