import Foundation
import Testing
@testable import Trove
import TroveStorage

@Suite struct StoreObjectTests {
    @Test func insertedObjectsReadBackWithTheirTypes() throws {
        let store = try memoryStore("People.json")
        try store.write { tx in
            try tx.insert("Person", ["id": 1, "name": "Ada", "age": 36, "nicknames": ["Countess", "Enchantress"],
                                     "birthdate": .date(Date(timeIntervalSince1970: -4_679_251_200))])
        }
        try store.read { (s) throws in
            let ada = try #require(try s.object("Person", primaryKey: 1))
            #expect(try ada.string("name") == "Ada")
            #expect(try ada.int("age") == 36)
            #expect(try ada["nicknames"] == ["Countess", "Enchantress"])
            #expect(try ada.date("birthdate") == Date(timeIntervalSince1970: -4_679_251_200))
            #expect(try ada.object("bestFriend") == nil)
            #expect(try s.count("Person") == 1)
        }
    }

    @Test func unknownPropertiesAndTypeMismatchesThrowClearly() throws {
        let store = try memoryStore("People.json")
        #expect(throws: StoreError.noSuchProperty(model: "Person", property: "nmae")) {
            try store.write { tx in try tx.insert("Person", ["id": 1, "nmae": "x"]) }
        }
        #expect(throws: StoreError.invalidValue(CoercionError(property: "name", type: .string, found: "the number 5"))) {
            try store.write { tx in try tx.insert("Person", ["id": 1, "name": 5]) }
        }
        #expect(throws: StoreError.noSuchModel("Cat")) { try store.write { tx in try tx.insert("Cat", [:]) } }
        try store.write { tx in try tx.insert("Person", ["id": 1, "name": "A"]) }
        try store.read { (s) throws in
            let p = try #require(try s.object("Person", primaryKey: 1))
            #expect(throws: StoreError.wrongAccessor(property: "Person.name", holds: "a string", accessor: "string(_:)")) { _ = try p.int("name") }
        }
        #expect(try store.read { try $0.count("Person") } == 1)
    }

    /// A typed accessor on another type says what the property holds and which accessor reads it.
    @Test func aWrongAccessorNamesWhatThePropertyHoldsAndHowToReadIt() throws {
        let store = try memoryStore("People.json")
        try store.write { tx in
            try tx.insert("Person", ["id": 1, "name": "Ann", "age": 31, "nicknames": ["A"], "dogs": [["name": "Rex"]]])
            try tx.update("Person", primaryKey: 1, ["bestFriend": 1])
        }
        try store.read { (s) throws in
            let ann = try #require(try s.object("Person", primaryKey: 1))
            do {
                _ = try ann.string("age")
                Issue.record("string(_:) read an integer")
            } catch {
                #expect("\(error)" == "'Person.age' holds an integer; read it with int(_:)")
            }
            #expect(throws: StoreError.wrongAccessor(property: "Person.bestFriend", holds: "an object reference", accessor: "object(_:)")) {
                _ = try ann.int("bestFriend")
            }
            #expect(throws: StoreError.wrongAccessor(property: "Person.dogs", holds: "a list", accessor: "list(_:)")) { _ = try ann.string("dogs") }
            #expect(throws: StoreError.wrongAccessor(property: "Person.nicknames", holds: "a list", accessor: "value(_:)")) {
                _ = try ann.string("nicknames")
            }
            #expect(throws: StoreError.wrongAccessor(property: "Person.name", holds: "a string", accessor: "string(_:)")) {
                _ = try s.withObject("Person", primaryKey: 1) { try $0.bool("name") }
            }
        }
    }

    /// An object kept past its write prints why it cannot, and how to get its values.
    @Test func anObjectPrintedAfterItsWriteEndedSaysSo() throws {
        let store = try memoryStore("People.json")
        let created = try store.write { tx in try tx.getOrCreate("Person", primaryKey: 7) }
        #expect("\(created)" == "Person (its write has ended: read its values inside the write, or fetch it again by primary key)")
        let read = try #require(try store.read { try $0.object("Person", primaryKey: 7) })
        #expect("\(read)" == "Person (its read has ended: read its values inside the read, or fetch it again by primary key)")
        // A Dog has no primary key to fetch it by.
        let dog = try store.write { tx in try tx.insert("Dog", ["name": "Rex"]) }
        #expect("\(dog)" == "Dog (its write has ended: read its values inside the write, or query it again)")
        try store.read { (s) throws in
            let live = try #require(try s.object("Person", primaryKey: 7))
            #expect("\(live)".hasPrefix("Person {\"id\":7,"))
        }
    }

    @Test func duplicatePrimaryKeysAreRefusedAndTheFailedWriteChangesNothing() throws {
        let store = try memoryStore("People.json")
        try store.write { tx in try tx.insert("Person", ["id": 1, "name": "A"]) }
        #expect(throws: StoreError.duplicatePrimaryKey(model: "Person", value: "1")) {
            try store.write { tx in
                try tx.insert("Person", ["id": 2, "name": "B"])
                try tx.insert("Person", ["id": 1, "name": "again"])
            }
        }
        #expect(try store.read { try $0.count("Person") } == 1)
    }

    @Test func deletingAnObjectNullsLinksAndLeavesLists() throws {
        let store = try memoryStore("People.json")
        try store.write { tx in
            let rex = try tx.insert("Dog", ["name": "Rex"])
            let fido = try tx.insert("Dog", ["name": "Fido"])
            try tx.insert("Person", ["id": 1, "name": "Ann", "dogs": [.reference(rex.reference), .reference(fido.reference), .reference(rex.reference)]])
            try tx.insert("Person", ["id": 2, "name": "Bob", "bestFriend": 1, "dogs": [.reference(rex.reference)]])
        }
        try store.read { (s) throws in
            let rex = try #require(try s.objects("Dog").first { try $0.string("name") == "Rex" })
            #expect(Set(try rex.list("owners").map { try $0.string("name") }) == ["Ann", "Bob"])
        }
        try store.write { tx in
            #expect(try tx.delete("Person", primaryKey: 1))
            let rex = try #require(try tx.objects("Dog").first { try $0.string("name") == "Rex" })
            try tx.delete(rex.reference)
        }
        try store.read { (s) throws in
            let bob = try #require(try s.object("Person", primaryKey: 2))
            #expect(try bob.object("bestFriend") == nil)
            #expect(try bob.list("dogs").isEmpty)
            #expect(try s.objects("Dog").map { try $0.string("name") } == ["Fido"])
            #expect(try s.objects("Dog")[0].list("owners").isEmpty)
        }
        #expect(try store.verify().isEmpty)
    }

    @Test func upsertWritesOnlyTheGivenPropertiesAndReportsChanges() throws {
        let store = try memoryStore("People.json")
        try store.write { tx in try tx.insert("Person", ["id": 1, "name": "Ada", "age": 36]) }
        let result = try store.write { tx in try tx.upsert("Person", ["id": 1, "age": 37, "name": "Ada"]) }
        #expect(!result.created)
        #expect(result.changedProperties == ["age"])
        let created = try store.write { tx in try tx.upsert("Person", ["id": 2, "name": "Bo"]).created }
        #expect(created)
        try store.read { (s) throws in
            let ada = try #require(try s.object("Person", primaryKey: 1))
            #expect(try ada.int("age") == 37)
            #expect(try ada.string("name") == "Ada")
        }
    }

    @Test func partialUpdateByPrimaryKeyAndGetOrCreate() throws {
        let store = try memoryStore("User.json")
        try store.write { tx in
            let u = try tx.getOrCreate("User", primaryKey: "A")
            #expect(try u.string("uid") == "A")
            try tx.update("User", primaryKey: "A", ["name": "Name A"])
            let again = try tx.getOrCreate("User", primaryKey: "A")
            #expect(try again.string("name") == "Name A")
        }
        #expect(throws: StoreError.objectNotFound(model: "User", primaryKey: "\"Z\"")) {
            try store.write { tx in try tx.update("User", primaryKey: "Z", ["name": "x"]) }
        }
    }

    @Test func nestedWritesJoinTheEnclosingTransaction() throws {
        let store = try memoryStore("People.json")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try store.write { tx in
                try tx.insert("Person", ["id": 1, "name": "outer"])
                try store.write { inner in
                    #expect(inner === tx)
                    try inner.insert("Person", ["id": 2, "name": "inner"])
                }
                throw Boom()
            }
        }
        #expect(try store.read { try $0.count("Person") } == 0)
        try store.write { tx in
            try store.write { inner in try inner.insert("Person", ["id": 3, "name": "n"]) }
            #expect(try tx.count("Person") == 1)
        }
        #expect(try store.read { try $0.count("Person") } == 1)
    }

    @Test func everyTypeRoundTripsIncludingExtremes() throws {
        let store = try memoryStore("AllTypes.json")
        let bigString = String(repeating: "é☃︎🚀", count: 500_000)
        let bigData = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let early = Date(timeIntervalSince1970: -2_000_000_000.123456)
        try store.write { tx in
            try tx.insert("AllTypes", [
                "id": .int(Int64.max), "intValue": .int(Int64.min), "int8Value": -128, "int16Value": 32767,
                "int32Value": .int(Int64(Int32.min)), "floatValue": .float(.infinity), "doubleValue": .double(.nan),
                "stringValue": .string(bigString), "dateValue": .date(early), "dataValue": .data(bigData),
                "decimalValue": .decimal(Decimal(string: "-123456789.000000001")!), "uuidValue": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
                "optDouble": .double(-.infinity), "optString": "", "intList": [1, 2, .int(Int64.min)], "optIntList": [1, nil, 3],
                "stringList": ["", "x"], "dateList": [.date(early)],
            ])
            try tx.insert("AllTypes", ["id": .int(Int64.min), "links": [.int(Int64.max), .int(Int64.max)], "link": .int(Int64.max)])
        }
        try store.read { (s) throws in
            let o = try #require(try s.object("AllTypes", primaryKey: .int(Int64.max)))
            #expect(try o.int("intValue") == Int64.min)
            #expect(try o.int("int8Value") == -128)
            #expect(try o["floatValue"] == .float(.infinity))
            #expect(try o.double("doubleValue")?.isNaN == true)
            #expect(try o.double("optDouble") == -.infinity)
            #expect(try o.string("stringValue") == bigString)
            #expect(try o.data("dataValue") == bigData)
            #expect(try o.date("dateValue") == early)
            #expect(try o.decimal("decimalValue") == Decimal(string: "-123456789.000000001"))
            #expect(try o.string("optString") == "")
            #expect(try o["optInt"] == .null)
            #expect(try o["optIntList"] == [1, nil, 3])
            #expect(try o["intList"] == [1, 2, .int(Int64.min)])
            #expect(try o.bool("boolValue") == true)   // default
            let other = try #require(try s.object("AllTypes", primaryKey: .int(Int64.min)))
            #expect(try other.list("links").count == 2)
            #expect(try o.list("linkedFrom").count == 1)
        }
        #expect(throws: StoreError.self) { try store.write { tx in try tx.insert("AllTypes", ["id": 5, "int8Value": 128]) } }
    }

    @Test func backgroundWriteCompletesOnTheGivenQueueWithPrimaryKeys() async throws {
        let store = try memoryStore("User.json")
        let queue = DispatchQueue(label: "caller")
        let marker = DispatchSpecificKey<Int>()
        queue.setSpecific(key: marker, value: 7)
        let keys: [Value] = try await withCheckedThrowingContinuation { continuation in
            store.write({ tx in
                var keys: [Value] = []
                for id in ["A", "B", "C"] {
                    try tx.insert("User", ["uid": .string(id), "name": .string("Name \(id)")])
                    keys.append(.string(id))
                }
                return keys
            }, queue: queue) { result in
                #expect(DispatchQueue.getSpecific(key: marker) == 7)
                continuation.resume(with: result)
            }
        }
        let names = try await store.read { s in try s.objects("User", forPrimaryKeys: keys).sorted { try $0.string("uid")! > $1.string("uid")! }.map { try $0.string("name") } }
        #expect(names == ["Name C", "Name B", "Name A"])
    }

    @Test func asyncWriteAndReadRunOffTheCaller() async throws {
        let store = try memoryStore("User.json")
        try await store.write { tx in try tx.insert("User", ["uid": "x", "name": "X"]) ; return () }
        let count = try await store.read { try $0.count("User") }
        #expect(count == 1)
        await #expect(throws: StoreError.self) {
            try await store.write { tx in try tx.insert("User", ["name": "no key"]); return () }
        }
    }

    @Test func inMemoryStoresWithTheSameIdentifierShareData() throws {
        let schema = try loadSchema("User.json")
        let a = try Store(configuration: .inMemory(identifier: "shared-\(UUID())", schema: schema))
        let b = try Store(configuration: .inMemory(identifier: a.configuration.inMemoryIdentifier, schema: schema))
        try a.write { tx in try tx.insert("User", ["uid": "1", "name": "n"]) }
        #expect(try b.read { try $0.count("User") } == 1)
        let c = try Store(configuration: .inMemory(schema: schema))
        #expect(try c.read { try $0.count("User") } == 0)
    }

    @Test func aStoreReopensWithoutASchemaFileAndKnowsItsSchema() throws {
        let dir = StoreTempDir()
        defer { dir.cleanup() }
        let schema = try loadSchema("People.json")
        do {
            let store = try Store(path: dir.file("p.trove"), schema: schema)
            try store.write { tx in try tx.insert("Person", ["id": 1, "name": "Ada"]) }
        }
        let store = try Store(path: dir.file("p.trove"))
        #expect(store.schema == schema)
        #expect(try store.read { try $0.object("Person", primaryKey: 1)?.string("name") } == "Ada")
    }

    /// A store whose object layer is newer than this build's is refused at open, by name.
    @Test func aStoreOfANewerObjectFormatIsRefused() throws {
        let dir = StoreTempDir()
        defer { dir.cleanup() }
        let path = dir.file("p.trove")
        do {
            let store = try Store(path: path, schema: try loadSchema("People.json"))
            try store.write { tx in try tx.insert("Person", ["id": 1, "name": "Ada"]) }
            try store.storage.write { tx in
                let t = try #require(try tx.tree(named: Store.metaTree))
                #expect(try tx.get(t, Array("format".utf8)) == withUnsafeBytes(of: Store.formatVersion.littleEndian) { Array($0) })
                try tx.put(t, Array("format".utf8), withUnsafeBytes(of: (Store.formatVersion + 1).littleEndian) { Array($0) })
            }
        }
        do {
            _ = try Store(path: path)
            Issue.record("a store of a newer object format opened")
        } catch StoreError.storage(.notATroveFile(let p, let detail)) {
            #expect(p == path)
            #expect(detail == "object format version \(Store.formatVersion + 1), this build reads versions 1 to \(Store.formatVersion)")
        }
    }

    @Test func storageFailuresArriveAsCasesNotText() throws {
        let dir = StoreTempDir()
        defer { dir.cleanup() }
        let missing = dir.file("no such directory/s.trove")
        #expect(throws: StoreError.storage(.cannotOpen(path: missing, errno: ENOENT))) {
            _ = try Store(configuration: StoreConfiguration(path: missing))
        }
        let text = dir.file("notes.txt")
        try Data("not a store, but long enough to hold a header or two".utf8).write(to: URL(fileURLWithPath: text))
        do {
            _ = try Store(configuration: StoreConfiguration(path: text))
            Issue.record("a text file opened as a store")
        } catch StoreError.storage(.notATroveFile(let path, _)) {
            #expect(path == text)
        }
        let store = try Store(configuration: StoreConfiguration(path: dir.file("ok.trove"), schema: try loadSchema("User.json")))
        let problems: [StoreProblem] = try store.verify()
        #expect(problems.isEmpty)
        // An engine error from inside a transaction's closure arrives as Trove's too.
        #expect(throws: StoreError.storage(.corrupt(page: 9, detail: "a test"))) {
            try store.read { _ in throw StorageError.corrupt(page: 9, detail: "a test") }
        }
        #expect(throws: StoreError.storage(.corrupt(page: nil, detail: "a test"))) {
            try store.write { _ in throw StorageError.corrupt(page: nil, detail: "a test") }
        }
        #expect(StoreProblem.leakedPage(7).description == "page 7 is leaked: neither used nor free")
        #expect(StoreProblem.damaged(page: 3, detail: "checksum mismatch (page content is damaged)").description
                == "database is corrupt at page 3: checksum mismatch (page content is damaged)")
    }

    @Test func readOnlyStoresRefuseWritesAndWrongKeysFail() throws {
        let dir = StoreTempDir()
        defer { dir.cleanup() }
        let key = [UInt8](repeating: 3, count: 64)
        var config = StoreConfiguration(path: dir.file("e.trove"), schema: try loadSchema("User.json"))
        config.encryptionKey = key
        do { _ = try Store(configuration: config) }
        var wrong = config
        wrong.encryptionKey = [UInt8](repeating: 4, count: 64)
        #expect(throws: StoreError.storage(.wrongEncryptionKey(path: dir.file("e.trove")))) { _ = try Store(configuration: wrong) }
        #expect { _ = try Store(configuration: wrong) } throws: {
            "\($0)" == "\(dir.file("e.trove")): wrong encryption key: the key does not open this store"
        }
        var ro = config
        ro.readOnly = true
        let store = try Store(configuration: ro)
        #expect(throws: StoreError.readOnly) { try store.write { tx in try tx.insert("User", ["uid": "x"]) } }
    }

    @Test func concurrentReadersSeeWholeCommits() async throws {
        let store = try memoryStore("User.json")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for i in 0..<200 {
                    try store.write { tx in
                        try tx.insert("User", ["uid": .string("a\(i)"), "name": "x"])
                        try tx.insert("User", ["uid": .string("b\(i)"), "name": "y"])
                    }
                }
            }
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<200 {
                        let n = try store.read { try $0.count("User") }
                        #expect(n % 2 == 0)
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
