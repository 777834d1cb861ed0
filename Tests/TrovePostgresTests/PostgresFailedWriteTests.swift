import Foundation
import Testing
import Trove
@testable import TrovePostgres
import PostgresTestSupport

/// A write that fails leaves nothing of itself: inside a unit (`atomically`), whose body may
/// catch the error and go on, as outside one, and whether the failure is found on the client
/// (a value refused) or after a statement was sent (a link to no object).
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresFailedWriteTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "Tag", "primaryKey": "id", "properties": {"id": "string"}},
          {"name": "Cat", "primaryKey": "id", "properties": {"id": "int", "name": "string?", "tags": "string[]",
            "friends": "Cat[]", "best": "Cat?", "tag": "Tag?", "labels": "Tag[]", "born": "date?", "days": "date[]"}}]}
        """#.utf8), fileName: "cats")

    /// A database holding the cats 1 and 2 (2 with a tag and a friend) and the tag "a".
    static func store() throws -> PostgresStore {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        try store.insert("Tag", ["id": "a"])
        try store.insert("Cat", ["id": 1, "name": "one"])
        try store.insert("Cat", ["id": 2, "name": "two", "tags": ["x"], "friends": [1], "labels": ["a"]])
        return store
    }

    /// Every object, as JSON lines by model: what a failed write must leave as it was.
    static func contents(_ store: PostgresStore) throws -> [String] {
        try ["Tag SORT(id)", "Cat SORT(id)"].flatMap { query in try store.objects(query).json.map { JSONValue.object($0).jsonText } }
    }

    /// The writes that fail, each named, with whether its failure is found before any of its
    /// statements is sent (the unit then goes on and commits); one found later fails the unit.
    static let failures: [(name: String, foundFirst: Bool, write: @Sendable (PostgresStore) throws -> Void)] = [
        ("insert, a NUL in a list element", true, { try $0.insert("Cat", ["id": 10, "tags": ["a", "b\u{0}"]]) }),
        ("insert, a wrong-typed list element", true, { try $0.insert("Cat", ["id": 10, "tags": ["a", 5]]) }),
        ("insert, a wrong-typed link key in a list", true, { try $0.insert("Cat", ["id": 10, "friends": [1, "x"]]) }),
        ("insert, a NUL in a link key in a list", true, { try $0.insert("Cat", ["id": 10, "labels": ["a", "b\u{0}"]]) }),
        ("insert, a null link in a list", true, { try $0.insert("Cat", ["id": 10, "friends": [1, .null]]) }),
        ("insert, a link to no object in a list", false, { try $0.insert("Cat", ["id": 10, "friends": [1, 99]]) }),
        ("insert, a link to no object", false, { try $0.insert("Cat", ["id": 10, "best": .object(["id": 11]), "tag": "zz"]) }),
        ("insert, a nested object's bad element", true,
         { try $0.insert("Cat", ["id": 10, "best": .object(["id": 11, "tags": [.int(3)]]), "tags": ["a"]]) }),
        ("insert, a bad element after a nested object", true,
         { try $0.insert("Cat", ["id": 10, "best": .object(["id": 11]), "friends": [.object(["id": 12]), "x"]]) }),
        ("insert, a nested object's NUL after its list", true,
         { try $0.insert("Cat", ["id": 10, "friends": [.object(["id": 12, "tags": ["a"], "name": "b\u{0}"])]]) }),
        ("upsert of a new object, a bad element", true, { try $0.upsert("Cat", ["id": 10, "friends": [.object(["id": 11]), 1, "x"]]) }),
        ("upsert of an object there, a bad element", true, { try $0.upsert("Cat", ["id": 2, "name": "new", "tags": ["a", 5]]) }),
        ("upsert of an object there, a nested object's NUL", true,
         { try $0.upsert("Cat", ["id": 2, "best": .object(["id": 11, "labels": ["a\u{0}"]]), "tags": ["b"]]) }),
        ("upsert, a link to no object in a list", false, { try $0.upsert("Cat", ["id": 2, "name": "new", "friends": [1, 99]]) }),
        ("update by key, a bad element", true, { _ = try $0.update("Cat", primaryKey: 2, set: ["name": "new", "tags": ["a", .null]]) }),
        ("update by key, a nested object's bad value", true,
         { _ = try $0.update("Cat", primaryKey: 2, set: ["friends": [.object(["id": 11]), .object(["id": 12, "name": 5])]]) }),
        ("update where, a bad element", true, { _ = try $0.update("Cat", where: "id > 0", set: ["name": "new", "labels": ["a", 7]]) }),
        ("update where, a link to no object in a list", false,
         { _ = try $0.update("Cat", where: "id > 0", set: ["name": "new", "friends": [.object(["id": 11]), 1, 99]]) }),
        ("update by key, a primary key changed with another value", true,
         { _ = try $0.update("Cat", primaryKey: 2, set: ["id": 3, "name": "x"]) }),
        ("update where, a primary key changed with another value", true,
         { _ = try $0.update("Cat", where: "id == 2", set: ["id": 3, "name": "x"]) }),
        ("update where, a primary key change refused after a nested object was written", false,
         { _ = try $0.update("Cat", where: "id == 2", set: ["id": 3, "best": .object(["id": 11])]) }),
        ("insert, a date out of PostgreSQL's range in a list", true,
         { try $0.insert("Cat", ["id": 10, "days": [.date(Date(timeIntervalSince1970: 0)), .date(Date(timeIntervalSince1970: 1e15))]]) }),
        ("update by key, a date out of PostgreSQL's range after a nested object", true,
         { _ = try $0.update("Cat", primaryKey: 2, set: ["best": .object(["id": 11]), "born": .date(Date(timeIntervalSince1970: 1e15))]) }),
        ("delete by keys, a bad key after a good one", true, { _ = try $0.delete("Cat", primaryKeys: [1, "x"]) }),
    ]

    /// In a unit whose body catches the error and goes on, nothing of the failed write is
    /// there once the unit ends: a failure found before the write sent anything leaves the unit
    /// to commit; one found later fails the unit, whose end throws and rolls it back.
    @Test(arguments: failures.indices)
    func aFailedWriteInAUnitLeavesNothing(index: Int) throws {
        let (name, foundFirst, write) = Self.failures[index]
        let store = try Self.store()
        let before = try Self.contents(store)
        var caught: Error?
        do {
            try store.atomically {
                do { try write(store) } catch { caught = error }
                if foundFirst { try store.insert("Tag", ["id": "after"]) }
            }
            #expect(foundFirst, "\(name): the unit committed")
        } catch {
            #expect(!foundFirst, "\(name): the unit failed: \(error)")
        }
        #expect(caught != nil, "\(name): the write did not fail")
        let expected = foundFirst ? [#"{"id":"a"}"#, #"{"id":"after"}"#] + before.dropFirst() : before
        #expect(try Self.contents(store) == expected, "\(name): \(caught.map { "\($0)" } ?? "")")
    }

    /// Outside a transaction each write is its own, and one that fails leaves nothing.
    @Test(arguments: failures.indices)
    func aFailedWriteOutsideATransactionLeavesNothing(index: Int) throws {
        let (name, _, write) = Self.failures[index]
        let store = try Self.store()
        let before = try Self.contents(store)
        #expect(throws: (any Error).self, "\(name)") { try write(store) }
        #expect(try Self.contents(store) == before, "\(name)")
        #expect(!store.isInTransaction)
    }

    /// In an open transaction (`begin`), a failed write is taken back alone and the
    /// transaction goes on, as on a store.
    @Test(arguments: failures.indices)
    func aFailedWriteInATransactionLeavesNothing(index: Int) throws {
        let (name, _, write) = Self.failures[index]
        let store = try Self.store()
        let before = try Self.contents(store)
        try store.begin()
        #expect(throws: (any Error).self, "\(name)") { try write(store) }
        try store.insert("Tag", ["id": "after"])
        try store.commit()
        #expect(try Self.contents(store) == [#"{"id":"a"}"#, #"{"id":"after"}"#] + before.dropFirst(), "\(name)")
    }
}

extension PostgresFailedWriteTests {
    /// A wrong-typed element of a list (of values or of links), given through the Swift API,
    /// is named by its position, with the store's words.
    @Test func aWrongTypedElementIsNamedByItsPositionAsOnAStore() throws {
        let store = try Store(configuration: .inMemory(schema: Self.schema))
        try store.write { tx in
            _ = try tx.insert("Tag", ["id": "a"])
            _ = try tx.insert("Cat", ["id": 1])
        }
        let postgres = try Self.store()
        let cases: [[String: Value]] = [["id": 10, "tags": ["a", 5]], ["id": 10, "friends": [1, "x"]], ["id": 10, "labels": ["a", 5]]]
        for values in cases {
            let onStore = #expect(throws: StoreError.self) { try store.write { tx in _ = try tx.insert("Cat", values) } }
            let onServer = #expect(throws: (any Error).self) { try postgres.insert("Cat", values) }
            let message = onStore.map { "\($0)" } ?? ""
            #expect(message.hasPrefix("element 2 of property '"), "\(values)")
            #expect(onServer.map { "\($0)" } == message, "\(values)")
        }
    }

    /// A repository's save checks every object before it sends anything: in a unit whose body
    /// catches its error, none of the save (neither its delete nor its insert) is written.
    @Test func aRefusedSaveInAUnitWritesNothing() throws {
        let schema = try Schema(jsonData: Array(#"""
            {"models": [{"name": "Note", "primaryKey": "id", "properties": {"id": "int", "text": "string"}}]}
            """#.utf8), fileName: "notes")
        let repo = PostgresRepository(store: try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema))
        try repo.beginWrite()
        let kept = try repo.addEntity(Note.self)
        kept.id = 1
        kept.text = "kept"
        try repo.endWrite()
        var caught: Error?
        try repo.store.atomically {
            try repo.beginWrite()
            try repo.removeEntity(kept)
            let added = try repo.addEntity(Note.self)
            added.id = 2
            added.text = "a\u{0}b"
            do { try repo.endWrite() } catch { caught = error }
        }
        #expect("\(caught.map { "\($0)" } ?? "")".contains("NUL character"))
        #expect(try repo.store.objects("Note SORT(id)").json.map { JSONValue.object($0).jsonText } == [#"{"id":1,"text":"kept"}"#])
    }
}

/// An entity with a primary key and a text.
final class Note: EntityType {
    var id = 0
    var text = ""
    init() {}
}
