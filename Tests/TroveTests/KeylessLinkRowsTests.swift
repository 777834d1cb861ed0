import Testing
import Trove
import TroveTestFixtures

/// In a store's rows, a SELECT item or GROUP key that is a link to a model without a primary
/// key is a `.reference` to the linked object (in a list, one per element).
struct KeylessLinkRowsTests {
    /// Each reference reaches the object it stands for on the store.
    @Test func aStoresReferenceReadsTheLinkedObject() throws {
        let store = try Store(configuration: .inMemory(schema: KeylessLinkShelves.schema))
        try store.write { tx in for shelf in KeylessLinkShelves.shelves { _ = try tx.insert("Shelf", shelf) } }
        try store.read { snapshot in
            let rows = try snapshot.rows("Shelf SORT(id) SELECT(top, boxes.inner)")
            guard case .reference(let top) = rows[0].values[0], case .list(let inners) = rows[1].values[1] else {
                Issue.record("\(rows)")
                return
            }
            #expect(try snapshot.object(top)?.string("label") == "a")
            #expect(inners.count == 2 && inners[0] == .null)
            guard case .reference(let inner) = inners[1] else {
                Issue.record("\(inners)")
                return
            }
            #expect(try snapshot.object(inner)?.string("label") == "e")
        }
    }

    /// A row's JSON holds a reference as its object's internal key, not the object the shell
    /// prints nested: the row has no snapshot to read the object from.
    @Test func aRowsJSONHoldsAReferenceAsItsObjectsKey() throws {
        let store = try Store(configuration: .inMemory(schema: KeylessLinkShelves.schema))
        try store.write { tx in for shelf in KeylessLinkShelves.shelves { _ = try tx.insert("Shelf", shelf) } }
        try store.read { snapshot in
            let rows = try snapshot.rows("Shelf SORT(id) SELECT(top, boxes)")
            guard case .reference(let top) = rows[0].values[0], case .list(let boxes) = rows[1].values[1] else {
                Issue.record("\(rows)")
                return
            }
            #expect(rows[0].json["top"] == .int(Int64(bitPattern: top.key)))
            #expect(rows[1].json["boxes"] == .array(boxes.map { box in
                if case .reference(let reference) = box { .int(Int64(bitPattern: reference.key)) } else { .null }
            }))
            #expect(boxes.count == 2 && boxes.allSatisfy { if case .reference = $0 { true } else { false } })
        }
    }
}
