import Foundation
import Testing
@testable import Trove
import TroveStorage

/// Integers in records and object keys in the primary-key index take the fewest bytes that
/// hold them, and the eight-byte forms of older files read as they always did.
@Suite struct NarrowEncodingTests {
    static let schema = """
    { "schemaVersion": 1, "models": [ { "name": "N", "primaryKey": "id", "properties": {
      "id": "int", "v": "int?", "w": { "type": "int", "indexed": true }, "list": "int[]" } } ] }
    """

    static let values: [Int64] = [0, 1, -1, 127, 128, -128, -129, 32_767, 32_768, -32_769,
                                  1 << 31, -(1 << 31) - 1, 1 << 55, -(1 << 55), Int64.max, Int64.min]

    @Test func integersTakeTheFewestBytesThatHoldThem() throws {
        let expected = [1, 1, 1, 1, 2, 1, 2, 2, 3, 3, 5, 5, 8, 7, 8, 8]
        for (v, size) in zip(Self.values, expected) {
            #expect(RecordCodec.intSize(v) == size, "\(v)")
            var bytes = [UInt8](repeating: 0, count: 8)
            let n = bytes.withUnsafeMutableBytes { RecordCodec.storeInt(v, to: $0.baseAddress!) }
            #expect(n == size)
            #expect(bytes.withUnsafeBytes { RecordCodec.int(UnsafeRawBufferPointer(rebasing: $0[..<n])) } == v)
            // The eight-byte payload of older files.
            #expect(withUnsafeBytes(of: v.littleEndian) { RecordCodec.int($0) } == v)
        }
        #expect([UInt8]().withUnsafeBytes { RecordCodec.int($0) } == nil)
        #expect([UInt8](repeating: 0, count: 9).withUnsafeBytes { RecordCodec.int($0) } == nil)
    }

    @Test func objectKeyValuesTakeTheFewestBytesAndEightByteOnesStillRead() throws {
        for (key, size) in [(UInt64(0), 1), (1, 1), (255, 1), (256, 2), (200_000, 3), (1 << 32, 5), (UInt64.max, 8)] {
            let stored = IndexKey.withObjectKeyValue(key) { Array($0) }
            #expect(stored.count == size, "\(key)")
            #expect(stored.withUnsafeBytes { IndexKey.objectKey(value: $0) } == key)
            #expect(withUnsafeBytes(of: key.bigEndian) { IndexKey.objectKey(value: $0) } == key)
        }
        #expect([UInt8]().withUnsafeBytes { IndexKey.objectKey(value: $0) } == nil)
    }

    /// Every query path that reads integer payloads in place (comparisons, IN, BETWEEN, sums,
    /// sorts, list elements) agrees with the values, for narrow records and for records and
    /// primary-key entries written the way older files hold them.
    @Test func narrowAndEightByteRecordsAnswerQueriesAlike() throws {
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(Self.schema)))
        try store.write { tx in
            for (i, v) in Self.values.enumerated() {
                try tx.insert("N", ["id": .int(Int64(i)), "v": .int(v), "w": .int(v), "list": .list([.int(v), .int(v / 2)])])
            }
            try tx.insert("N", ["id": 100, "v": .null, "w": 3, "list": .list([])])
        }
        try expectAnswers(store)
        // Rewrite the first half the way older files hold them: eight-byte integers behind
        // four-byte offsets, eight-byte object keys in the primary-key index.
        try store.write { tx in
            let m = try #require(tx.layout.byName["N"])
            let objects = try tx.writableTree(m.objectsTree, slot: m.objectsTreeSlot)
            let keys = try tx.writableTree(m.primaryKeyTree, slot: m.primaryKeyTreeSlot)
            let ids = try tx.allKeys(m)
            for key in ids.prefix(ids.count / 2) {
                let values = try #require(try tx.values(of: m, key: key))
                let wide = try Self.wideRecord(values, layout: m)
                try withUnsafeBytes(of: key.bigEndian) { kb in try wide.withUnsafeBytes { try tx.writeTx.put(objects, raw: kb, $0) } }
                let pk = IndexKey.encode(values[m.primaryKey!.id], as: .int)
                try tx.writeTx.put(keys, pk, withUnsafeBytes(of: key.bigEndian) { Array($0) })
            }
            let v = try #require(m.byName["v"])
            #expect(try tx.withRecord(m, ids[0]) { $0.slot(v.id)?.count } == 8)
            #expect(try tx.withRecord(m, ids[ids.count - 1]) { $0.slot(v.id)?.count } == 0)
        }
        try expectAnswers(store)
        #expect(try store.verify().isEmpty)
    }

    /// A record as builds before narrow integers and offsets wrote it.
    static func wideRecord(_ values: [Value], layout m: ModelLayout) throws -> [UInt8] {
        var payloads: [[UInt8]] = []
        for (id, v) in values.enumerated() {
            let p = try #require(m.byID[id])
            switch v {
            case .int(let i): payloads.append(withUnsafeBytes(of: i.littleEndian) { Array($0) })
            case .list(let items):
                var out = withUnsafeBytes(of: UInt32(items.count).littleEndian) { Array($0) }
                for case .int(let i) in items {
                    out += withUnsafeBytes(of: UInt32(8).littleEndian) { Array($0) } + withUnsafeBytes(of: i.littleEndian) { Array($0) }
                }
                payloads.append(out)
            case .null: payloads.append([])
            default: Issue.record("unexpected \(v) for \(p.name)"); payloads.append([])
            }
        }
        let n = payloads.count
        var record: [UInt8] = [1, UInt8(n & 0xFF), UInt8(n >> 8)]
        var o = 3 + 4 * (n + 1)
        for p in payloads { record += withUnsafeBytes(of: UInt32(o).littleEndian) { Array($0) }; o += p.count }
        record += withUnsafeBytes(of: UInt32(o).littleEndian) { Array($0) }
        for p in payloads { record += p }
        return record
    }

    private func expectAnswers(_ store: Store) throws {
        let all = Array(Self.values.enumerated())
        func ids(_ predicate: String, _ arguments: Value...) throws -> [Int64] {
            try store.read { s in
                try s.objects("N", where: predicate, arguments: arguments).map { try $0.int("id") ?? -1 }.sorted()
            }
        }
        func expected(_ test: (Int64) -> Bool) -> [Int64] { all.filter { test($0.1) }.map { Int64($0.0) } }
        for v in Self.values {
            #expect(try ids("v == $0", .int(v)) == expected { $0 == v }, "v == \(v)")
            #expect(try ids("w == $0", .int(v)) == expected { $0 == v }, "w == \(v)")
            #expect(try ids("v < $0", .int(v)) == expected { $0 < v }, "v < \(v)")
            #expect(try ids("v >= $0", .int(v)) == expected { $0 >= v }, "v >= \(v)")
            #expect(try ids("v != $0", .int(v)) == expected { $0 != v } + [100], "v != \(v)")
            #expect(try ids("ANY list == $0", .int(v)) == expected { $0 == v || $0 / 2 == v }, "list == \(v)")
        }
        #expect(try ids("v BETWEEN {-200, 200}") == expected { -200 <= $0 && $0 <= 200 })
        #expect(try ids("v IN {-129, 128, 7}") == expected { [-129, 128].contains($0) })
        #expect(try ids("v == nil") == [100])
        #expect(try ids("w == 3") == [100])
        let small = all.filter { -(1 << 40) < $0.1 && $0.1 < 1 << 40 }
        #expect(try store.read { try $0.aggregate("sum N.v where v BETWEEN {-1099511627775, 1099511627775}") }
                == .int(small.map(\.1).reduce(0, +)))
        let sorted = try store.read { s in try s.objects("N", where: "v != nil").sorted(by: "v").map { try $0.int("v") ?? 0 } }
        #expect(sorted == Self.values.sorted())
        try store.read { s in
            for (i, v) in all {
                let o = try #require(try s.object("N", primaryKey: .int(Int64(i))))
                #expect(try o.int("v") == v)
                #expect(try o.value("list") == .list([.int(v), .int(v / 2)]))
            }
        }
    }
}
