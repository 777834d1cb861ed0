/// `SORT` on one indexed property (or the primary key), of every object or of those a
/// predicate on that same property selects when the index keys decide it: the index holds the
/// objects in that order, so nothing is sorted, OFFSET skips entries and LIMIT stops the walk,
/// and no record is read.
///
/// Index order is SORT's order for nulls (first), numbers, dates, booleans and UUIDs, and for
/// strings whose keys hold them whole in ASCII. Equal values are ordered by object key in the
/// index, as SORT orders ties; walking backwards, each run of equal values is turned around.
/// A NaN (which compares with nothing), a cut or non-ASCII string met on the way (its bytes
/// as stored may order apart from its NFC scalars), decimals and data leave the query to the
/// general path; so does a predicate entry whose key does not decide it (the keys are walked
/// in order and the record would have to be read).
extension QueryExecutor {
    /// The keys from `offset` on (at most `limit`) of the objects matching `predicate` (every
    /// object: nil) in the order of `sort`, the walk, the scan of the predicate and the
    /// entries read; nil when the index cannot give that order or decide the predicate.
    func keysInIndexOrder(model: ModelLayout, predicate: BoundPredicate?, sort: [(BoundKeyPath, Bool)], offset: Int, limit: Int?)
        throws -> (keys: [UInt64], walk: IndexWalk, scan: IndexScan?, examined: Int)? {
        guard sort.count == 1, let walk = try IndexWalk(sort[0].0, model: model, snapshot: snapshot) else { return nil }
        let ascending = sort[0].1
        let type = walk.property.type
        let checksStrings = type == .string
        switch type {
        case .decimal, .data, .link, .list, .linkingObjects: return nil
        case .string where !ascending: return nil
        default: break
        }
        // The entries walked: every one, or the ranges of the one scan that serves the predicate.
        var scan: IndexScan?
        var ranges = [IndexWalk.everything]
        if let predicate {
            let planner = QueryPlanner(snapshot: snapshot, model: model)
            guard let serving = planner.scan(servingAll: predicate, on: walk.property),
                  let disjoint = serving.disjointRanges else { return nil }
            if case .candidates = serving.entryCheck { return nil }
            scan = serving
            ranges = disjoint
        }
        let check = scan?.entryCheck ?? .decides
        let decidesAll = if case .decides = check { true } else { false }
        if try walk.holdsNaN() { return nil }
        // Entries at positions offset ..< end (of those that match) are returned.
        let end = limit.map { offset > Int.max - $0 ? Int.max : offset + $0 }
        var keys: [UInt64] = []
        var position = 0
        var examined = 0
        var unordered = false
        func take(_ key: UInt64) -> Bool {
            if position >= offset { keys.append(key) }
            position += 1
            return end.map { position < $0 } ?? true
        }
        /// Whether the entry matches; nil (the walk stops, the general path answers) when
        /// its key cannot say, or cannot say where it sorts.
        func matches(_ valueKey: UnsafeRawBufferPointer) -> Bool? {
            if checksStrings, valueKey.first != 0, !IndexScan.holdsWholeASCII(valueKey, hasObjectKey: false) { return nil }
            switch decidesAll ? .match : IndexScan.verdict(valueKey, check, hasObjectKey: false) {
            case .match: return true
            case .rejected: return false
            case .unsure: return nil
            }
        }
        if end == 0 { return ([], walk, scan, 0) }
        if ascending, !checksStrings, decidesAll, ranges.count == 1, offset > 0 {
            // Every entry matches and none needs checking: OFFSET skips them by count.
            position = offset
            let (skipped, _) = try scan == nil
                ? walk.walkAll(from: offset) { _, objectKey in
                    examined += 1
                    return take(objectKey)
                }
                : walk.walk(ranges[0], from: offset) { _, objectKey in
                    examined += 1
                    return take(objectKey)
                }
            examined += skipped
        } else if ascending {
            for range in ranges {
                let complete = try walk.walk(range) { valueKey, objectKey in
                    examined += 1
                    guard let match = matches(valueKey) else {
                        unordered = true
                        return false
                    }
                    return !match || take(objectKey)
                }
                if !complete { break }
            }
        } else {
            // A run of equal values comes last key first: it is returned turned around.
            var run: [UInt64] = []
            var runValue: [UInt8] = []
            func flush() -> Bool {
                defer { run.removeAll(keepingCapacity: true) }
                for key in run.reversed() where !take(key) { return false }
                return true
            }
            let unique = walk.isPrimaryKey
            var complete = true
            for range in ranges.reversed() where complete {
                complete = try walk.walk(range, descending: true) { valueKey, objectKey in
                    examined += 1
                    guard let match = matches(valueKey) else {
                        unordered = true
                        return false
                    }
                    if !match { return true }
                    if unique { return take(objectKey) }
                    if !run.isEmpty, !runValue.elementsEqual(valueKey) {
                        if !flush() { return false }
                    }
                    if run.isEmpty { runValue = Array(valueKey) }
                    run.append(objectKey)
                    return true
                }
            }
            if complete { _ = flush() }
        }
        if unordered { return nil }
        return (keys, walk, scan, examined)
    }
}
