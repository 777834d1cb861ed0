/// "Did you mean ...?" for misspelled types, models, properties and keys.
enum NameSuggestion {
    /// The candidate closest to `name`, if it is close enough to be a likely typo.
    static func closest(to name: String, among candidates: [String]) -> String? {
        let lower = Array(name.lowercased())
        var best: (name: String, distance: Int)? = nil
        for candidate in candidates where candidate != name {
            let c = Array(candidate.lowercased())
            var d = distance(lower, c)
            // "integer" for "int", "boolean" for "bool": a known name as a prefix is a good guess.
            if c.count >= 3 && lower.starts(with: c) { d = min(d, 1) }
            // "index" for "indexed": a typed prefix of a known name too.
            if lower.count >= 3 && c.starts(with: lower) { d = min(d, 1) }
            if best == nil || d < best!.distance { best = (candidate, d) }
        }
        guard let best else { return nil }
        return best.distance <= max(1, min(3, lower.count / 3)) ? best.name : nil
    }

    /// `"; did you mean 'x'?"`, or nothing.
    static func hint(for name: String, among candidates: [String]) -> String {
        closest(to: name, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// Levenshtein distance.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
