/// `SORT` on one indexed property (or the primary key) of every object: the index holds the
/// objects in that order, so nothing is sorted, OFFSET skips entries and LIMIT stops the walk,
/// and no record is read.
///
/// Index order is SORT's order for nulls (first), numbers, dates, booleans and UUIDs, and for
/// strings whose keys hold them whole in ASCII. Equal values are ordered by object key in the
/// index, as SORT orders ties; walking backwards, each run of equal values is turned around.
/// A NaN (which compares with nothing), a cut or non-ASCII string met on the way (its bytes
/// as stored may order apart from its NFC scalars), decimals and data leave the query to the
/// general path.
extension QueryExecutor {
    /// The keys from `offset` on (at most `limit`) in the order of `sort`, the walk and the
    /// entries read; nil when the index cannot give that order.
    func keysInIndexOrder(model: ModelLayout, sort: [(BoundKeyPath, Bool)], offset: Int, limit: Int?)
        throws -> (keys: [UInt64], walk: IndexWalk, examined: Int)? {
        guard sort.count == 1, let walk = try IndexWalk(sort[0].0, model: model, snapshot: snapshot) else { return nil }
        let ascending = sort[0].1
        let type = walk.property.type
        let checksStrings = type == .string
        switch type {
        case .decimal, .data, .link, .list, .linkingObjects: return nil
        case .string where !ascending: return nil
        default: break
        }
        if try walk.holdsNaN() { return nil }
        // Entries at positions offset ..< end are returned.
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
        if end == 0 { return ([], walk, 0) }
        if ascending, !checksStrings, offset > 0 {
            // Nothing to check in the skipped entries: OFFSET skips them by count.
            position = offset
            let (skipped, _) = try walk.walkAll(from: offset) { _, objectKey in
                examined += 1
                return take(objectKey)
            }
            examined += skipped
        } else if ascending {
            try walk.walk(IndexWalk.everything) { valueKey, objectKey in
                examined += 1
                if checksStrings, valueKey.first != 0, !IndexScan.holdsWholeASCII(valueKey, hasObjectKey: false) {
                    unordered = true
                    return false
                }
                return take(objectKey)
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
            let complete = try walk.walk(IndexWalk.everything, descending: true) { valueKey, objectKey in
                examined += 1
                if unique { return take(objectKey) }
                if !run.isEmpty, !runValue.elementsEqual(valueKey) {
                    if !flush() { return false }
                }
                if run.isEmpty { runValue = Array(valueKey) }
                run.append(objectKey)
                return true
            }
            if complete { _ = flush() }
        }
        if unordered { return nil }
        return (keys, walk, examined)
    }
}
