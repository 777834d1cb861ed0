import Trove

/// The changes that turn one list of query results into the next, as `watch` prints them.
///
/// Applied in order to the old list, the events give the new one: deletions first (indexes
/// in the list as it is at that point), then, position by position, moves and insertions,
/// then updates of objects that stayed but whose values changed (indexes in the new list).
enum ResultDiff {
    struct Entry: Equatable {
        /// What the entry stands for across runs: an object, or a group's key values.
        var identity: AnyHashable
        var object: JSONObject

        init(identity: AnyHashable, object: JSONObject) {
            self.identity = identity
            self.object = object
        }

        init(reference: ObjectReference, object: JSONObject) {
            self.init(identity: reference, object: object)
        }
    }

    static func events(from old: [Entry], to new: [Entry]) -> [JSONObject] {
        var events: [JSONObject] = []
        let newReferences = Set(new.map(\.identity))
        var current: [Entry] = []
        current.reserveCapacity(old.count)
        var index = 0
        for entry in old {
            if newReferences.contains(entry.identity) {
                current.append(entry)
                index += 1
            } else {
                events.append(["op": "delete", "index": .int(Int64(index)), "object": .object(entry.object)])
            }
        }
        let oldObjects = Dictionary(current.map { ($0.identity, $0.object) }, uniquingKeysWith: { a, _ in a })
        for (i, entry) in new.enumerated() {
            if i < current.count, current[i].identity == entry.identity { continue }
            if let from = current[i...].firstIndex(where: { $0.identity == entry.identity }) {
                let moved = current.remove(at: from)
                current.insert(moved, at: i)
                events.append(["op": "move", "from": .int(Int64(from)), "to": .int(Int64(i))])
            } else {
                current.insert(entry, at: i)
                events.append(["op": "insert", "index": .int(Int64(i)), "object": .object(entry.object)])
            }
        }
        for (i, entry) in new.enumerated() {
            // By bytes: a value respelled (NFC to NFD) is an update, as the database wrote it.
            if let before = oldObjects[entry.identity], !before.isStoredSame(as: entry.object) {
                events.append(["op": "update", "index": .int(Int64(i)), "object": .object(entry.object)])
            }
        }
        return events
    }
}
