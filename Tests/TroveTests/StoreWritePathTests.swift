import Foundation
import Testing
@testable import Trove
import TroveStorage
import TestRandom

/// Every entry of a tree, or nothing if it does not exist.
private func entries(_ s: Snapshot, _ tree: String) throws -> [[UInt8]: [UInt8]] {
    guard let t = try s.tree(tree) else { return [:] }
    var out: [[UInt8]: [UInt8]] = [:]
    let c = try s.storageTx.cursor(t)
    var ok = try c.first()
    while ok {
        try c.withEntry { k, v in out[Array(k)] = Array(v) }
        ok = try c.next()
    }
    return out
}

/// Checks that the primary-key, secondary-index and backlink trees hold exactly what a rebuild
/// from the records would: partial updates and deletes maintain them incrementally.
private func expectDerivedTreesMatchRecords(_ store: Store, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try store.read { (s) throws in
        var backlinks: [[UInt8]: [UInt8]] = [:]
        for m in s.layout.models {
            var keyEntries: [[UInt8]: [UInt8]] = [:]
            var indexEntries: [Int: [[UInt8]: [UInt8]]] = [:]
            try s.scan(m) { key, record in
                if let pk = m.primaryKey {
                    keyEntries[IndexKey.encode(try record.value(of: pk), as: pk.type)] = IndexKey.withObjectKeyValue(key) { Array($0) }
                }
                for p in m.properties where p.isIndexed {
                    let k = IndexKey.encode(try record.value(of: p), as: p.type) + withUnsafeBytes(of: key.bigEndian) { Array($0) }
                    indexEntries[p.id, default: [:]][k] = []
                }
                for p in m.properties where p.isLink || p.isLinkList {
                    guard let target = p.target else { continue }
                    var counts: [UInt64: UInt32] = [:]
                    switch try record.value(of: p) {
                    case .reference(let r): counts[r.key] = 1
                    case .list(let items): for case .reference(let r) in items { counts[r.key, default: 0] += 1 }
                    default: break
                    }
                    for (t, n) in counts {
                        let k = Backlinks.key(targetModel: target.id, targetKey: t, sourceModel: m.id, sourceProperty: p.id, sourceKey: key)
                        backlinks[k] = withUnsafeBytes(of: n) { Array($0) }
                    }
                }
                return true
            }
            if m.primaryKey != nil {
                #expect(try entries(s, m.primaryKeyTree) == keyEntries, "primary keys of \(m.name)", sourceLocation: sourceLocation)
            }
            for p in m.properties where p.isIndexed {
                #expect(try entries(s, p.indexTreeName) == indexEntries[p.id] ?? [:], "index \(m.name).\(p.name)", sourceLocation: sourceLocation)
            }
        }
        #expect(try entries(s, Backlinks.treeName) == backlinks, "backlinks", sourceLocation: sourceLocation)
    }
    #expect(try store.verify().isEmpty, sourceLocation: sourceLocation)
}

/// The JSON of every object of `model`, by primary key.
private func snapshotJSON(_ store: Store, _ model: String) throws -> [String: String] {
    try store.read { (s) throws in
        var out: [String: String] = [:]
        for o in try s.objects(model) { out["\(try o.primaryKey ?? .null)"] = JSONValue.object(try o.json()).jsonText }
        return out
    }
}

/// Collects the changes of every commit through the store.
private final class ChangeRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var commits: [[String: ModelChanges]] = []
    private var observation: CommitObservation?
    init(_ store: Store) {
        observation = store.observeCommits { [weak self] c in self?.record(c.changes ?? [:]) }
    }
    private func record(_ changes: [String: ModelChanges]) {
        lock.lock(); commits.append(changes); lock.unlock()
    }
    var last: [String: ModelChanges]? { lock.lock(); defer { lock.unlock() }; return commits.last }
    var count: Int { lock.lock(); defer { lock.unlock() }; return commits.count }
}

@Suite struct StoreWritePathTests {
    @Test func updatingAnIndexedPropertyMovesItsIndexEntryOnly() throws {
        let store = try memoryStore("People.json")
        try store.write { tx in
            try tx.insert("Person", ["id": 1, "name": "Ada", "age": 36])
            try tx.insert("Person", ["id": 2, "name": "Bob", "age": 40])
        }
        let changed = try store.write { tx in try tx.update("Person", primaryKey: 1, ["name": "Augusta"]) }
        #expect(changed == ["name"])
        try store.read { (s) throws in
            #expect(try s.objects("Person", where: "name == $0", "Ada").count == 0)
            #expect(try s.objects("Person", where: "name == $0", "Augusta").map { try $0.int("age") } == [36])
            #expect(try s.object("Person", primaryKey: 1)?.int("age") == 36)
        }
        try expectDerivedTreesMatchRecords(store)
    }

    @Test func updatingLinksMovesBacklinksAndNullClearsThem() throws {
        let store = try memoryStore("People.json")
        try store.write { tx in
            try tx.insert("Person", ["id": 1, "name": "A"])
            try tx.insert("Person", ["id": 2, "name": "B"])
            try tx.insert("Person", ["id": 3, "name": "C", "bestFriend": 1])
        }
        try expectDerivedTreesMatchRecords(store)
        #expect(try store.write { tx in try tx.update("Person", primaryKey: 3, ["bestFriend": 2]) } == ["bestFriend"])
        try expectDerivedTreesMatchRecords(store)
        #expect(try store.write { tx in try tx.update("Person", primaryKey: 3, ["bestFriend": 2]) } == [])
        #expect(try store.write { tx in try tx.update("Person", primaryKey: 3, ["bestFriend": .null]) } == ["bestFriend"])
        try expectDerivedTreesMatchRecords(store)
        // A self-link, then deleting the object that holds it.
        #expect(try store.write { tx in try tx.update("Person", primaryKey: 3, ["bestFriend": 3]) } == ["bestFriend"])
        try expectDerivedTreesMatchRecords(store)
        try store.read { (s) throws in #expect(try s.object("Person", primaryKey: 3)?.object("bestFriend")?.int("id") == 3) }
        try store.write { tx in _ = try tx.delete("Person", primaryKey: 3) }
        try expectDerivedTreesMatchRecords(store)
    }

    @Test func updatingAListOfLinksKeepsBacklinkCounts() throws {
        let store = try memoryStore("People.json")
        let dogs = try store.write { tx in (0..<3).map { i in try! tx.insert("Dog", ["name": .string("d\(i)")]).reference } }
        try store.write { tx in try tx.insert("Person", ["id": 1, "name": "A", "dogs": [.reference(dogs[0]), .reference(dogs[0]), .reference(dogs[1])]]) }
        try expectDerivedTreesMatchRecords(store)
        try store.write { tx in try tx.update("Person", primaryKey: 1, ["dogs": [.reference(dogs[0]), .reference(dogs[2])]]) }
        try expectDerivedTreesMatchRecords(store)
        try store.read { (s) throws in
            #expect(try s.object(dogs[1])?.list("owners").isEmpty == true)
            #expect(try s.object(dogs[2])?.list("owners").map { try $0.int("id") } == [1])
        }
        try store.write { tx in try tx.update("Person", primaryKey: 1, ["dogs": .null]) }
        try expectDerivedTreesMatchRecords(store)
    }

    @Test func unchangedValuesWriteNothingAndReportNoChange() throws {
        let store = try memoryStore("People.json")
        try store.write { tx in try tx.insert("Person", ["id": 1, "name": "A", "age": 3, "nicknames": ["x"]]) }
        let recorder = ChangeRecorder(store)
        let before = try snapshotJSON(store, "Person")
        let changed = try store.write { tx in try tx.update("Person", primaryKey: 1, ["name": "A", "age": 3, "nicknames": ["x"], "bestFriend": .null]) }
        #expect(changed == [])
        #expect(recorder.count == 0)
        #expect(try snapshotJSON(store, "Person") == before)
    }

    /// Records take the narrowest offsets that fit (one byte under 256 bytes, two under
    /// 64 KiB, else four), and records with four-byte offsets, as every record was written
    /// before narrower ones, read as they always did.
    @Test func recordsTakeTheNarrowestOffsetsAndWideOnesStillRead() throws {
        let store = try memoryStore("AllTypes.json")
        let m = try #require(store.layout.byName["AllTypes"])
        let cases: [(String, UInt8)] = [("short", 3), (String(repeating: "m", count: 1_000), 2), (String(repeating: "l", count: 70_000), 1)]
        let text = try #require(m.byName["stringValue"]), id = try #require(m.byName["id"])
        for (string, format) in cases {
            var values = [Value](repeating: .null, count: m.byID.count)
            values[id.id] = .int(7)
            values[text.id] = .string(string)
            let record = try RecordCodec.encode(values, layout: m)
            #expect(record[0] == format)
            // The same payloads behind four-byte offsets: the format every older record has.
            let n = Int(record[1]) | Int(record[2]) << 8
            var wide: [UInt8] = [1, record[1], record[2]]
            let width = format == 3 ? 1 : format == 2 ? 2 : 4
            let table = 3 + width * (n + 1), shift = 3 + 4 * (n + 1) - table
            for i in 0...n {
                var o = 0
                for b in 0..<width { o |= Int(record[3 + width * i + b]) << (8 * b) }
                withUnsafeBytes(of: UInt32(o + shift).littleEndian) { wide.append(contentsOf: $0) }
            }
            wide.append(contentsOf: record[table...])
            try record.withUnsafeBytes { narrow in
                try wide.withUnsafeBytes { old in
                    let a = try RecordView(narrow), b = try RecordView(old)
                    for p in m.byID.compactMap({ $0 }) { #expect(try a.value(of: p) == b.value(of: p), "\(p.name)") }
                    #expect(try a.value(of: text) == values[text.id])
                }
            }
        }
    }

    @Test func sameSizeAndDifferentSizeUpdatesKeepTheOtherPropertiesAndEncodeCanonically() throws {
        let store = try memoryStore("AllTypes.json")
        try store.write { tx in
            try tx.insert("AllTypes", ["id": 1, "stringValue": "medium", "optString": "s", "intList": [1, 2, 3]])
            try tx.insert("AllTypes", ["id": 2, "link": 1, "links": [1, 1]])
        }
        var expected = try snapshotJSON(store, "AllTypes")
        func check(_ values: [String: Value], _ names: [String]) throws {
            let changed = try store.write { tx in try tx.update("AllTypes", primaryKey: 1, values) }
            #expect(changed == names)
            let after = try snapshotJSON(store, "AllTypes")
            // Only object 1 changed, and only in the given properties.
            #expect(after["2"] == expected["2"])
            let a = try JSONValue(parsing: Array(after["1"]!.utf8)), e = try JSONValue(parsing: Array(expected["1"]!.utf8))
            guard case .object(let ao) = a, case .object(let eo) = e else { Issue.record("not objects"); return }
            for (k, v) in eo.pairs where !names.contains(k) { #expect(ao[k] == v, "\(k)") }
            expected = after
            try expectDerivedTreesMatchRecords(store)
            // A same-size update patches the old record: it must hold the bytes a full
            // encoding of the same values does.
            try store.read { (s) throws in
                let m = try #require(s.layout.byName["AllTypes"])
                try s.scan(m) { _, record in
                    let values = try m.byID.map { p in try p.map { try record.value(of: $0) } ?? .null }
                    #expect(Array(UnsafeRawBufferPointer(start: record.base, count: record.count)) == (try RecordCodec.encode(values, layout: m)))
                    return true
                }
            }
        }
        try check(["intValue": 7], ["intValue"])                                    // same size, indexed
        try check(["doubleValue": -0.0], ["doubleValue"])
        try check(["stringValue": "a much longer string than before"], ["stringValue"])
        try check(["stringValue": ""], ["stringValue"])                             // shorter, empty but not null
        try check(["optString": .null, "optInt": 5], ["optInt", "optString"])       // indexed to null, null to value
        try check(["optString": "back", "intList": []], ["intList", "optString"])
        try check(["decimalValue": .decimal(Decimal(string: "1.5")!), "uuidValue": .uuid(UUID())], ["decimalValue", "uuidValue"])
        try check(["dateValue": .date(Date(timeIntervalSinceReferenceDate: 1))], ["dateValue"])
        try store.read { (s) throws in
            let o = try #require(try s.object("AllTypes", primaryKey: 1))
            #expect(try o.string("stringValue") == "")
            #expect(try o.string("optString") == "back")
            #expect(try o.int("optInt") == 5)
            #expect(try o.int("intValue") == 7)
        }
    }

    @Test func negativeZeroCountsAsTheSameDouble() throws {
        let store = try memoryStore("AllTypes.json")
        try store.write { tx in try tx.insert("AllTypes", ["id": 1, "doubleValue": 0.0]) }
        #expect(try store.write { tx in try tx.update("AllTypes", primaryKey: 1, ["doubleValue": -0.0]) } == [])
        #expect(try store.write { tx in try tx.update("AllTypes", primaryKey: 1, ["doubleValue": .double(.nan)]) } == ["doubleValue"])
        #expect(try store.write { tx in try tx.update("AllTypes", primaryKey: 1, ["doubleValue": .double(.nan)]) } == [])
    }

    @Test func aStringChangedToACanonicallyEquivalentSpellingIsAChange() throws {
        let store = try memoryStore("People.json")
        let nfc = "Jos\u{E9}", nfd = "Jose\u{301}"
        #expect(nfc == nfd)
        try store.write { tx in try tx.insert("Person", ["id": 1, "name": .string(nfc)]) }
        #expect(try store.write { tx in try tx.update("Person", primaryKey: 1, ["name": .string(nfd)]) } == ["name"])
        #expect(try store.read { try $0.object("Person", primaryKey: 1)?.string("name") }.map { Array($0.utf8) } == Array(nfd.utf8))
        #expect(try store.write { tx in try tx.update("Person", primaryKey: 1, ["name": .string(nfd)]) } == [])
        try expectDerivedTreesMatchRecords(store)
    }

    @Test func aPrimaryKeyChangeIsRefusedAndTheRecordIsUntouched() throws {
        let store = try memoryStore("People.json")
        try store.write { tx in try tx.insert("Person", ["id": 1, "name": "A"]) }
        #expect(throws: StoreError.self) { try store.write { tx in try tx.update("Person", primaryKey: 1, ["id": 2, "name": "B"]) } }
        #expect(try store.write { tx in try tx.update("Person", primaryKey: 1, ["id": 1, "name": "B"]) } == ["name"])
        try expectDerivedTreesMatchRecords(store)
    }

    @Test func updatesOfRecordsWrittenBeforeAPropertyExistedReadItsDefault() throws {
        let dir = StoreTempDir()
        defer { dir.cleanup() }
        let v1 = try schemaFromJSON(#"{"schemaVersion": 1, "models": [{"name": "T", "primaryKey": "id", "properties": {"id": "int", "a": "string"}}]}"#)
        let v2 = try schemaFromJSON(#"{"schemaVersion": 1, "models": [{"name": "T", "primaryKey": "id", "properties": {"id": "int", "a": "string", "b": {"type": "int", "default": 9, "indexed": true}, "c": "string?"}}]}"#)
        do {
            let store = try Store(path: dir.file("s.trove"), schema: v1)
            try store.write { tx in try tx.insert("T", ["id": 1, "a": "x"]) }
        }
        let store = try Store(path: dir.file("s.trove"), schema: v2)
        #expect(try store.write { tx in try tx.update("T", primaryKey: 1, ["a": "y"]) } == ["a"])
        try store.read { (s) throws in
            let o = try #require(try s.object("T", primaryKey: 1))
            #expect(try o.int("b") == 9)
            #expect(try o.string("c") == nil)
            #expect(try o.string("a") == "y")
            #expect(try s.objects("T", where: "b == 9").count == 1)
        }
        #expect(try store.write { tx in try tx.update("T", primaryKey: 1, ["b": 10, "c": "z"]) } == ["b", "c"])
        try expectDerivedTreesMatchRecords(store)
    }

    @Test func insertReturnsTheObjectAsStored() throws {
        let store = try memoryStore("AllTypes.json")
        try store.write { tx in
            let o = try tx.insert("AllTypes", ["id": 5, "optString": "s"])
            let stored = try #require(try tx.object("AllTypes", primaryKey: 5))
            #expect(o.record == stored.record)
            #expect(JSONValue.object(try o.json()).jsonText == JSONValue.object(try stored.json()).jsonText)
            let u = try tx.upsert("AllTypes", ["id": 6]).object
            #expect(u.record == (try tx.object("AllTypes", primaryKey: 6)!.record))
            let g = try tx.getOrCreate("AllTypes", primaryKey: 7)
            #expect(g.record == (try tx.object("AllTypes", primaryKey: 7)!.record))
        }
    }

    @Test func aDeletedObjectLeavesNoIndexOrBacklinkEntriesAndItsKeyIsFreeAgain() throws {
        let store = try memoryStore("People.json")
        // Before any Person exists (no primary-key tree yet), and on a model without one.
        #expect(try store.write { tx in try tx.delete("Person", primaryKey: 1) } == false)
        #expect(throws: StoreError.noPrimaryKey(model: "Dog")) { try store.write { tx in try tx.delete("Dog", primaryKey: 1) } }
        #expect(throws: StoreError.self) { try store.write { tx in try tx.delete("Person", primaryKey: "not an int") } }
        try store.write { tx in
            try tx.insert("Person", ["id": 1, "name": "A"])
            try tx.insert("Person", ["id": 2, "name": "B", "bestFriend": 1])
            try tx.insert("Person", ["id": 3, "name": "C", "bestFriend": 2])
        }
        try store.write { tx in
            #expect(try tx.delete("Person", primaryKey: 2))
            #expect(try !tx.delete("Person", primaryKey: 2))
            try tx.insert("Person", ["id": 2, "name": "B2"])
        }
        try expectDerivedTreesMatchRecords(store)
        try store.read { (s) throws in
            #expect(try s.object("Person", primaryKey: 3)?.object("bestFriend") == nil)
            #expect(try s.objects("Person", where: "name == 'B'").count == 0)
            #expect(try s.objects("Person", where: "name == 'B2'").count == 1)
        }
    }

    @Test func commitChangesNameInsertedDeletedAndModifiedObjectsExactly() throws {
        let store = try memoryStore("People.json")
        let keys = try store.write { tx in try (1...4).map { try tx.insert("Person", ["id": .int(Int64($0)), "name": "p"]).reference.key } }
        let recorder = ChangeRecorder(store)
        var newKeys: [UInt64] = []
        try store.write { tx in
            try tx.update("Person", primaryKey: 1, ["name": "q", "age": 1])     // modified
            try tx.update("Person", primaryKey: 1, ["bestFriend": 2])           // modified again
            _ = try tx.delete("Person", primaryKey: 2)                          // deleted: nulls 1's link
            newKeys.append(try tx.insert("Person", ["id": 10, "name": "n"]).reference.key)
            newKeys.append(try tx.insert("Person", ["id": 11, "name": "n"]).reference.key)
            try tx.update("Person", primaryKey: 10, ["name": "m"])              // inserted: not modified
            _ = try tx.delete("Person", primaryKey: 11)                         // inserted then deleted: neither
            try tx.update("Person", primaryKey: 3, ["name": "p"])               // unchanged
            try tx.insert("Dog", ["name": "d"])
            let partial = tx.changes["Person"]
            #expect(partial?.inserted == [newKeys[0]])
        }
        let person = try #require(recorder.last?["Person"])
        #expect(person.inserted == [newKeys[0]])
        #expect(person.deleted == [keys[1]])
        #expect(person.modified == [keys[0]: ["name", "age", "bestFriend"]])
        #expect(recorder.last?["Dog"]?.inserted.count == 1)
        try expectDerivedTreesMatchRecords(store)
    }

    @Test func randomWritesKeepRecordsIndexesAndBacklinksConsistent() throws {
        let store = try memoryStore("People.json")
        var rng = SplitMix64(seed: 11)
        var model: [Int64: (name: String, age: Int64?, friend: Int64?)] = [:]
        let names = ["a", "b", "c", "a long name that does not fit inline at all", ""]
        for round in 0..<20 {
            try store.write { tx in
                for _ in 0..<40 {
                    let id = Int64(rng.int(30))
                    switch rng.int(4) {
                    case 0:
                        let name = rng.pick(names)
                        let friend: Int64? = rng.chance(50) ? model.keys.sorted().randomElement(using: &rng) : nil
                        if model[id] == nil {
                            try tx.insert("Person", ["id": .int(id), "name": .string(name), "bestFriend": friend.map { .int($0) } ?? .null])
                            model[id] = (name, nil, friend)
                        }
                    case 1 where model[id] != nil:
                        let name = rng.pick(names)
                        try tx.update("Person", primaryKey: .int(id), ["name": .string(name)])
                        model[id]!.name = name
                    case 2 where model[id] != nil:
                        let age: Int64? = rng.chance(30) ? nil : Int64(rng.int(3))
                        let friend: Int64? = rng.chance(40) ? nil : model.keys.sorted().randomElement(using: &rng)
                        try tx.update("Person", primaryKey: .int(id), ["age": age.map { .int($0) } ?? .null, "bestFriend": friend.map { .int($0) } ?? .null])
                        model[id]!.age = age
                        model[id]!.friend = friend
                    case 3:
                        #expect(try tx.delete("Person", primaryKey: .int(id)) == (model[id] != nil))
                        model[id] = nil
                        for k in model.keys where model[k]!.friend == id { model[k]!.friend = nil }
                    default: break
                    }
                }
            }
            try store.read { (s) throws in
                #expect(try s.count("Person") == model.count, "round \(round)")
                for (id, want) in model {
                    let o = try #require(try s.object("Person", primaryKey: .int(id)))
                    #expect(try o.string("name") == want.name)
                    #expect(try o.int("age") == want.age)
                    #expect(try o.object("bestFriend")?.int("id") == want.friend)
                }
            }
            try expectDerivedTreesMatchRecords(store)
        }
    }

    @Test func indexKeysBuiltOnTheStackEqualTheArrayEncoding() throws {
        let long = String(repeating: "x", count: 399)
        let strings = ["", "a", "a\u{0}b", "\u{0}\u{0}", "héllo", long, long + "y", long + "yz", long + "\u{0}", String(repeating: "\u{0}", count: 500)]
        var cases: [(Value, PropertyType)] = strings.map { (.string($0), .string) }
        cases += [
            (.null, .string), (.null, .int), (.bool(true), .bool), (.bool(false), .bool),
            (.int(0), .int), (.int(-1), .int8), (.int(.max), .int64), (.int(.min), .int),
            (.double(0), .double), (.double(-0.0), .double), (.double(-2.5), .double), (.double(.infinity), .double),
            (.int(3), .double), (.float(1.5), .float), (.date(Date(timeIntervalSinceReferenceDate: -7)), .date),
            (.data(Data([0, 1, 0, 255])), .data), (.data(Data(repeating: 0, count: 450)), .data),
            (.decimal(Decimal(string: "12.5")!), .decimal), (.decimal(Decimal(string: "2.5")!), .double),
            (.uuid(UUID()), .uuid), (.reference(ObjectReference(model: "M", key: 42)), .link("M")),
            (.string("mismatch"), .int),
        ]
        for (v, t) in cases {
            for suffix: UInt64? in [nil, 0x0102_0304_0506_0708] {
                let stack = IndexKey.withEncoded(v, as: t, suffix: suffix) { Array($0) }
                var expected = IndexKey.encode(v, as: t)
                if let suffix { expected += withUnsafeBytes(of: suffix.bigEndian) { Array($0) } }
                #expect(stack == expected, "\(v) as \(t)")
            }
        }
    }

    @Test func recordsInOverflowPagesAndEncryptedStoresUpdateAndDeleteAlike() throws {
        let dir = StoreTempDir()
        defer { dir.cleanup() }
        var config = StoreConfiguration(path: dir.file("e.trove"), schema: try loadSchema("AllTypes.json"))
        config.encryptionKey = [UInt8](repeating: 7, count: 64)
        for store in [try memoryStore("AllTypes.json"), try Store(configuration: config)] {
            let big = String(repeating: "b", count: 5_000)
            try store.write { tx in
                for i in 0..<50 { try tx.insert("AllTypes", ["id": .int(Int64(i)), "stringValue": .string(i == 3 ? big : "s\(i)"), "link": i > 0 ? .int(Int64(i - 1)) : .null]) }
            }
            try store.write { (tx) throws in
                #expect(try tx.update("AllTypes", primaryKey: 3, ["intValue": 1]) == ["intValue"])
                #expect(try tx.update("AllTypes", primaryKey: 4, ["intValue": 2, "stringValue": .string(big)]) == ["intValue", "stringValue"])
                #expect(try tx.update("AllTypes", primaryKey: 5, ["optString": "x"]) == ["optString"])
                #expect(try tx.delete("AllTypes", primaryKey: 6))
            }
            try store.read { (s) throws in
                #expect(try s.object("AllTypes", primaryKey: 3)?.string("stringValue") == big)
                #expect(try s.object("AllTypes", primaryKey: 3)?.int("intValue") == 1)
                #expect(try s.object("AllTypes", primaryKey: 4)?.string("stringValue") == big)
                #expect(try s.object("AllTypes", primaryKey: 7)?.object("link") == nil)
                #expect(try s.count("AllTypes") == 49)
            }
            try expectDerivedTreesMatchRecords(store)
        }
    }
}
