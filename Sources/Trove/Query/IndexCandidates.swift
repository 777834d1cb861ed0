/// The objects index scans found for a predicate, in two lists: those the index keys show to
/// satisfy it, and those whose records must be checked. Each list ends sorted by object key
/// (insertion order), without duplicates.
struct IndexCandidates {
    private(set) var matches: [UInt64] = []
    private(set) var unsure: [UInt64] = []
    /// Whether each list is still in ascending order with no duplicates, as one equality
    /// range yields it (entries sort by value, then object key).
    private var matchesAreOrdered = true
    private var unsureAreOrdered = true

    var count: Int { matches.count + unsure.count }

    mutating func addMatch(_ key: UInt64) {
        if let last = matches.last, last >= key { matchesAreOrdered = false }
        matches.append(key)
    }

    mutating func addUnsure(_ key: UInt64) {
        if let last = unsure.last, last >= key { unsureAreOrdered = false }
        unsure.append(key)
    }

    /// Every key becomes one to check (the scan decided only part of the predicate).
    mutating func demote() {
        guard !matches.isEmpty else { return }
        if unsure.isEmpty {
            swap(&matches, &unsure)
            swap(&matchesAreOrdered, &unsureAreOrdered)
        } else {
            unsure += matches
            matches = []
            unsureAreOrdered = false
        }
        matchesAreOrdered = true
    }

    /// The keys of both, for an `OR`.
    mutating func formUnion(_ other: IndexCandidates) {
        for key in other.matches { addMatch(key) }
        for key in other.unsure { addUnsure(key) }
    }

    /// Sorts both lists and drops duplicates (a key in both stays a match only).
    mutating func normalize() {
        if !matchesAreOrdered { Self.sortUnique(&matches); matchesAreOrdered = true }
        if !unsureAreOrdered { Self.sortUnique(&unsure); unsureAreOrdered = true }
        if !matches.isEmpty && !unsure.isEmpty {
            unsure = Self.subtracting(unsure, matches)
        }
    }

    private static func sortUnique(_ keys: inout [UInt64]) {
        keys.sort()
        var n = 0
        for i in keys.indices where n == 0 || keys[n - 1] != keys[i] {
            keys[n] = keys[i]
            n += 1
        }
        keys.removeLast(keys.count - n)
    }

    /// The keys of sorted `a` not in sorted `b`.
    private static func subtracting(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var out: [UInt64] = []
        out.reserveCapacity(a.count)
        var j = 0
        for key in a {
            while j < b.count && b[j] < key { j += 1 }
            if j < b.count && b[j] == key { continue }
            out.append(key)
        }
        return out
    }

    /// Sorted `a` and sorted `b` merged, without duplicates.
    static func merged(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        if a.isEmpty { return b }
        if b.isEmpty { return a }
        var out: [UInt64] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count && j < b.count {
            if a[i] < b[j] { out.append(a[i]); i += 1 }
            else if b[j] < a[i] { out.append(b[j]); j += 1 }
            else { out.append(a[i]); i += 1; j += 1 }
        }
        out += a[i...]
        out += b[j...]
        return out
    }
}
