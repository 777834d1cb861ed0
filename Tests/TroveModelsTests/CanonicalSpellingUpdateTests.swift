import Testing
import Trove
import TroveModels

/// A model keyed by a string, for a primary key spelled another way.
@Model private struct Label {
    @Attribute(.primaryKey) var code: String
    var note: String = ""
}

/// Canonically equivalent strings (`"é"` as one scalar, NFC, and as `e` and a combining accent,
/// NFD) are equal to Swift's `==` but stored as different bytes: a partial update that changes
/// one into the other changes the object.
@Suite struct CanonicalSpellingUpdateTests {
    let nfc = "Jos\u{E9}"
    let nfd = "Jose\u{301}"

    /// The stored bytes of `Person` 1's string property `name`.
    func storedBytes(_ store: Store, _ name: String) throws -> [UInt8]? {
        try store.read { try $0.object("Person", primaryKey: 1)?.string(name) }.map { Array($0.utf8) }
    }

    @Test func aPartialUpdateWritesAStringRespelledCanonically() throws {
        #expect(nfc == nfd)
        let store = try Store(configuration: .inMemory(schema: Schema(Person.self)))
        let ann = Person(id: 1, name: nfc, nickname: nfc, bestFriend: Dog(id: 1, name: nfc), tags: [nfc])
        try store.write { tx in try tx.insert(ann) }
        try store.write { tx in
            try tx.update(ann) {
                $0.name = nfd
                $0.nickname = nfd
                $0.tags = [nfd]
                $0.bestFriend?.name = nfd
            }
        }
        #expect(try storedBytes(store, "name") == Array(nfd.utf8))
        #expect(try storedBytes(store, "nickname") == Array(nfd.utf8))
        let (tags, dog) = try store.read { s in
            (try s.object("Person", primaryKey: 1)?.value("tags"), try s.object("Dog", primaryKey: 1)?.string("name"))
        }
        guard case .list(let items) = tags, items.count == 1, case .string(let tag) = items[0] else {
            Issue.record("tags: \(String(describing: tags))")
            return
        }
        #expect(Array(tag.utf8) == Array(nfd.utf8))
        #expect(dog.map { Array($0.utf8) } == Array(nfd.utf8))
        // Through the property table's comparison too.
        var respelled = ann
        respelled.name = nfd
        #expect(try Person._changedProperties(from: ann, to: respelled).map { Person.modelProperties[$0].name } == ["name"])
    }

    @Test func aPartialUpdateRefusesAPrimaryKeyRespelledCanonically() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Label.self)))
        let label = Label(code: nfc)
        try store.write { tx in try tx.insert(label) }
        #expect(throws: StoreError.invalidArgument("update cannot change the primary key 'code' of Label")) {
            try store.write { tx in try tx.update(label) { $0.code = nfd; $0.note = "moved" } }
        }
        let stored = try store.read { s in try s.objects(Label.self).map { (Array($0.code.utf8), $0.note) } }
        #expect(stored.count == 1 && stored.first?.0 == Array(nfc.utf8) && stored.first?.1 == "")
    }
}
