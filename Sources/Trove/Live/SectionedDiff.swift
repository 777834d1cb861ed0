/// The rows of one section, by object key, as the diff sees them.
struct SectionRows: Equatable {
    var key: Value
    var ids: [UInt64]
}

/// The exact changes between two sectioned lists of objects (see ``ResultsChangeBatch`` for
/// how they apply).
///
/// Objects are matched by key. Of the objects present before and after, those forming the
/// longest run that kept its relative order within a surviving section stay put (reported
/// as updates if `changed`); every other survivor is a move. Sections are matched by key the
/// same way: a section that lost its relative order is deleted and inserted again, so its
/// objects become moves. Longest increasing subsequences make the number of moves minimal.
struct SectionedDiff: Equatable {
    enum ObjectChange: Equatable {
        case insert(UInt64, ResultsIndexPath)
        case delete(UInt64, ResultsIndexPath)
        case update(UInt64, from: ResultsIndexPath, to: ResultsIndexPath)
        case move(UInt64, from: ResultsIndexPath, to: ResultsIndexPath)
    }

    /// Indices in the old sections, ascending.
    var deletedSections: [Int] = []
    /// Indices in the new sections, ascending.
    var insertedSections: [Int] = []
    /// Deletions in old order, then the rest in new order.
    var objects: [ObjectChange] = []

    var isEmpty: Bool { deletedSections.isEmpty && insertedSections.isEmpty && objects.isEmpty }

    init(old: [SectionRows], new: [SectionRows], changed: (UInt64) -> Bool) {
        var oldSectionByKey: [GroupingKey: Int] = [:]
        for (i, s) in old.enumerated() { oldSectionByKey[GroupingKey([s.key])] = i }
        var commonNew: [Int] = [], commonOld: [Int] = []
        for (j, s) in new.enumerated() {
            if let i = oldSectionByKey[GroupingKey([s.key])] { commonNew.append(j); commonOld.append(i) }
        }
        var oldSectionOfNew: [Int: Int] = [:]
        for k in Self.longestIncreasingSubsequence(commonOld) { oldSectionOfNew[commonNew[k]] = commonOld[k] }
        let keptOld = Set(oldSectionOfNew.values)
        deletedSections = old.indices.filter { !keptOld.contains($0) }
        insertedSections = new.indices.filter { oldSectionOfNew[$0] == nil }

        var oldPosition: [UInt64: ResultsIndexPath] = [:]
        for (s, section) in old.enumerated() {
            for (i, id) in section.ids.enumerated() { oldPosition[id] = ResultsIndexPath(item: i, section: s) }
        }
        var present = Set<UInt64>()
        var rest: [ObjectChange] = []
        for (s, section) in new.enumerated() {
            let oldSection = oldSectionOfNew[s]
            var candidatesNew: [Int] = [], candidatesOld: [Int] = []
            if let oldSection {
                for (i, id) in section.ids.enumerated() {
                    if let p = oldPosition[id], p.section == oldSection { candidatesNew.append(i); candidatesOld.append(p.item) }
                }
            }
            let staying = Set(Self.longestIncreasingSubsequence(candidatesOld).map { candidatesNew[$0] })
            for (i, id) in section.ids.enumerated() {
                present.insert(id)
                let to = ResultsIndexPath(item: i, section: s)
                guard let from = oldPosition[id] else { rest.append(.insert(id, to)); continue }
                if !staying.contains(i) {
                    rest.append(.move(id, from: from, to: to))
                } else if changed(id) {
                    rest.append(.update(id, from: from, to: to))
                }
            }
        }
        for (s, section) in old.enumerated() {
            for (i, id) in section.ids.enumerated() where !present.contains(id) {
                objects.append(.delete(id, ResultsIndexPath(item: i, section: s)))
            }
        }
        objects += rest
    }

    /// The positions (into `values`) of one longest strictly increasing subsequence.
    static func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
        guard !values.isEmpty else { return [] }
        // tails[k]: position of the smallest last value of an increasing run of length k + 1.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: values.count)
        for (i, v) in values.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if values[tails[mid]] < v { lo = mid + 1 } else { hi = mid }
            }
            if lo > 0 { previous[i] = tails[lo - 1] }
            if lo == tails.count { tails.append(i) } else { tails[lo] = i }
        }
        var out: [Int] = []
        var i = tails.last!
        while i >= 0 { out.append(i); i = previous[i] }
        return out.reversed()
    }
}
