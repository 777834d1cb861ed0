import Testing
import Trove
@testable import TroveModels

/// `init(_storedObject:)`, which `@Model` writes, reads what `Codable` reads: scalars,
/// optionals, links, lists of values and of links, linkingObjects (empty below the top).
@Suite struct ModelReaderTests {
    @Test func theGeneratedReaderGivesWhatCodableGives() throws {
        let store = try peopleStore()
        try store.read { s in
            for person in try s.objects(Person.modelName) {
                let read = try #require(try Person.read(person))
                #expect(read == (try ObjectDecoder.decode(Person.self, from: person)))
            }
            for dog in try s.objects(Dog.modelName) {
                let read = try #require(try Dog.read(dog))
                let decoded = try ObjectDecoder.decode(Dog.self, from: dog)
                #expect(read == decoded)
                #expect(read.owners.map(\.id) == decoded.owners.map(\.id))
                #expect(read.owners.allSatisfy { $0.dogs.allSatisfy(\.owners.isEmpty) })
            }
            let ann = try #require(try s.object(Person.self, primaryKey: 1))
            #expect(ann.bestFriend?.name == "Rex" && ann.dogs.map(\.name) == ["Rex", "Fido"] && ann.tags == ["a", "b"])
            #expect(ann.nickname == "annie" && ann.score == 2.5)
            #expect(try s.object(Person.self, primaryKey: 99) == nil)
        }
    }

    @Test func linkedValuesAreReadOnceInASnapshotAndAfreshInATransaction() throws {
        let store = try peopleStore()
        try store.read { s in
            // Rex is Ann's best friend and Dee's second dog; Fido is Ann's second dog.
            let ann = try #require(try s.object(Person.self, primaryKey: 1))
            let dee = try #require(try s.object(Person.self, primaryKey: 4))
            #expect(ann.bestFriend == dee.dogs[1] && ann.bestFriend?.name == "Rex")
            #expect(ann.dogs.map(\.name) == ["Rex", "Fido"] && dee.dogs.map(\.name) == ["Ace", "Rex"])
            #expect(try s.objects(Person.self, sortBy: [.init(\.id)]).values.map { $0.bestFriend?.name } == ["Rex", "Fido", nil, "Ace"])
        }
        try store.write { tx in
            #expect(try tx.object(Person.self, primaryKey: 1)?.bestFriend?.name == "Rex")
            _ = try tx.update("Dog", primaryKey: 1, ["name": "Rexy"])
            #expect(try tx.object(Person.self, primaryKey: 1)?.bestFriend?.name == "Rexy")
            #expect(try tx.object(Person.self, primaryKey: 4)?.dogs.map(\.name) == ["Ace", "Rexy"])
        }
        #expect(try store.read { try $0.object(Person.self, primaryKey: 4)?.dogs.map(\.name) } == ["Ace", "Rexy"])
    }

    @Test func aCachedLinkedValueAnswersOnlyWhatAFreshReadAnswers() throws {
        // Node k links to k + 1 up to the last: a read of node k follows `last - k` links,
        // which the link depth limit allows from node `last - limit` on.
        let limit = ObjectDecoder.maximumDepth, last = limit + 8
        let store = try Store(configuration: .inMemory(schema: Schema(ChainNode.self)))
        try store.write { tx in
            for k in stride(from: last, through: 0, by: -1) {
                _ = try tx.insert(ChainNode.modelName, ["id": .int(Int64(k)), "next": .list(k == last ? [] : [.int(Int64(k + 1))])])
            }
        }
        let first = last - limit
        try store.read { (s: Snapshot) throws in
            // Fresh: nothing read in this snapshot before.
            #expect(throws: (any Error).self) { try s.object(ChainNode.self, primaryKey: first - 1) }
            #expect(try s.object(ChainNode.self, primaryKey: first)?.id == first)
        }
        try store.read { (s: Snapshot) throws in
            // Read from the end back, so that every node below the top is in the cache,
            // each read one link less deep than the next read needs it.
            for k in stride(from: last, through: first, by: -1) {
                #expect(try s.object(ChainNode.self, primaryKey: k)?.id == k)
            }
            for k in stride(from: first - 1, through: 0, by: -1) {
                #expect(throws: (any Error).self) { try s.object(ChainNode.self, primaryKey: k) }
            }
            #expect(try s.object(ChainNode.self, primaryKey: first)?.next.first?.id == first + 1)
        }
    }

    @Test func aModelListedByHandReadsThroughCodable() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Account.self)))
        let account = Account()
        account.username = "ann"
        account.logins = 5
        try store.write { tx in try tx.insert(account) }
        try store.read { s in
            let object = try #require(try s.object(Account.modelName, primaryKey: "ann"))
            #expect(try Account.read(object) == nil)
            #expect(try s.object(Account.self, primaryKey: "ann")?.logins == 5)
        }
    }
}

/// A chain of links as long as the data makes it (a list, so that the type may hold itself).
@Model struct ChainNode {
    @Attribute(.primaryKey) var id: Int
    var next: [ChainNode] = []
}
