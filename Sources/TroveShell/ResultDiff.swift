import Trove

/// The changes that turn one list of query results into the next, as `watch` prints them.
///
/// Applied in order to the old list, the events give the new one: deletions first (indexes
/// in the list as it is at that point), then, position by position, moves and insertions,
/// then updates of objects that stayed but whose values changed (indexes in the new list).
enum ResultDiff {
    struct Entry: Equatable {
        var reference: ObjectReference
        var object: JSONObject
    }

    static func events(from old: [Entry], to new: [Entry]) -> [JSONObject] {
        var events: [JSONObject] = []
        let newReferences = Set(new.map(\.reference))
        var current: [Entry] = []
        current.reserveCapacity(old.count)
        var index = 0
        for entry in old {
            if newReferences.contains(entry.reference) {
                current.append(entry)
                index += 1
            } else {
                events.append(["op": "delete", "index": .int(Int64(index)), "object": .object(entry.object)])
            }
        }
        let oldObjects = Dictionary(current.map { ($0.reference, $0.object) }, uniquingKeysWith: { a, _ in a })
        for (i, entry) in new.enumerated() {
            if i < current.count, current[i].reference == entry.reference { continue }
            if let from = current[i...].firstIndex(where: { $0.reference == entry.reference }) {
                let moved = current.remove(at: from)
                current.insert(moved, at: i)
                events.append(["op": "move", "from": .int(Int64(from)), "to": .int(Int64(i))])
            } else {
                current.insert(entry, at: i)
                events.append(["op": "insert", "index": .int(Int64(i)), "object": .object(entry.object)])
            }
        }
        for (i, entry) in new.enumerated() {
            if let before = oldObjects[entry.reference], before != entry.object {
                events.append(["op": "update", "index": .int(Int64(i)), "object": .object(entry.object)])
            }
        }
        return events
    }
}
