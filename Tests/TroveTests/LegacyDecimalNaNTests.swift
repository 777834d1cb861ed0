import Foundation
import Testing
@testable import Trove
import TroveStorage

/// Older builds stored a decimal NaN as the text "NaN" (writes refuse it now). Such a record
/// reads as the NaN it was: sums, `min` and `max` skip it, no comparison matches it, the
/// object stays readable and writable; text that is no number at all is a damaged record.
@Suite("A decimal NaN in an older file")
struct LegacyDecimalNaNTests {
    static let schema = """
        {"models": [{"name": "M", "primaryKey": "id", "properties": {"id": "int", "dec": "decimal?", "decs": "decimal[]", "n": "int"}}]}
        """

    /// A store of three objects whose object 2 holds, as an older build wrote them, a NaN in
    /// `dec` and in `decs`, or `text` where given.
    static func store(_ text: String = "NaN") throws -> Store {
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(schema)))
        try store.write { tx in
            _ = try tx.insert("M", ["id": 1, "dec": .decimal(5), "decs": [.decimal(1)], "n": 1])
            _ = try tx.insert("M", ["id": 2, "dec": .decimal(7), "decs": [.decimal(2), .decimal(8)], "n": 2])
            _ = try tx.insert("M", ["id": 3, "dec": .decimal(1), "decs": [.decimal(3)], "n": 3])
        }
        // The record an older build wrote: its encoder took the NaN, whose text is "NaN".
        try store.write { tx in
            let m = try #require(tx.layout.byName["M"])
            let key = try #require(try tx.allKeys(m).dropFirst().first)
            var values = try #require(try tx.values(of: m, key: key))
            let dec = try #require(m.byName["dec"]), decs = try #require(m.byName["decs"])
            values[dec.id] = .decimal(.nan)
            values[decs.id] = [.decimal(2), .decimal(.nan)]
            var record = try RecordCodec.encode(values, layout: m)
            // Other text of the same length, in place of each "NaN".
            let nan = Array("NaN".utf8), replacement = Array(text.utf8)
            #expect(replacement.count == nan.count)
            var i = 0, found = 0
            while i + nan.count <= record.count {
                if Array(record[i..<(i + nan.count)]) == nan { record.replaceSubrange(i..<(i + nan.count), with: replacement); found += 1 }
                i += 1
            }
            #expect(found == 2)
            let objects = try tx.writableTree(m.objectsTree, slot: m.objectsTreeSlot)
            try withUnsafeBytes(of: key.bigEndian) { kb in try record.withUnsafeBytes { try tx.writeTx.put(objects, raw: kb, $0) } }
            #expect(try tx.withRecord(m, key) { $0.slot(dec.id).map { Array($0) } } == [1] + replacement)
        }
        return store
    }

    @Test func aStoredDecimalNaNReadsAsNaN() throws {
        let store = try Self.store()
        try store.read { r in
            let object = try #require(try r.object("M", primaryKey: 2))
            guard case .decimal(let d) = try object.value("dec") else { Issue.record("not a decimal"); return }
            #expect(d.isNaN)
            guard case .list(let items) = try object.value("decs"), items.count == 2, case .decimal(let last) = items[1] else {
                Issue.record("decs: \(try object.value("decs"))"); return
            }
            #expect(items[0] == .decimal(2))
            #expect(last.isNaN)
            #expect(try r.aggregate("sum M.dec") == .decimal(6))
            // Nor is it counted: the average of 5, NaN and 1 is 3.
            #expect(try r.aggregate("avg M.dec") == .decimal(3))
            #expect(try r.objects("M", where: "n > 0").average(of: "dec") == .decimal(3))
            #expect(try r.rows("M SORT(id) SELECT(decs.@avg)").map(\.values) == [[.decimal(1)], [.decimal(2)], [.decimal(3)]])
            #expect(try r.objects("M", where: "decs.@avg == 2").ids.sorted() == [2])
            #expect(try r.aggregate("min M.dec") == .decimal(1))
            #expect(try r.aggregate("max M.dec") == .decimal(5))
            #expect(try r.objects("M", where: "dec > 0").ids.sorted() == [1, 3])
            #expect(try r.objects("M", where: "dec != 5").ids.sorted() == [2, 3])
            #expect(try r.rows("M SORT(id) SELECT(decs.@sum, decs.@max)").map(\.values)
                    == [[.decimal(1), .decimal(1)], [.decimal(2), .decimal(2)], [.decimal(3), .decimal(3)]])
        }
        // The object stays writable: another property, and the NaN replaced by a number.
        try store.write { tx in _ = try tx.update("M", primaryKey: 2, ["n": 9]) }
        try store.read { r in
            let object = try #require(try r.object("M", primaryKey: 2))
            #expect(try object.value("n") == .int(9))
            guard case .decimal(let d) = try object.value("dec") else { Issue.record("not a decimal"); return }
            #expect(d.isNaN)
        }
        try store.write { tx in _ = try tx.update("M", primaryKey: 2, ["dec": .decimal(4)]) }
        #expect(try store.read { try $0.aggregate("sum M.dec") } == .decimal(10))
    }

    @Test func decimalTextThatIsNoNumberIsADamagedRecord() throws {
        let store = try Self.store("sev")
        #expect(throws: StoreError.corruptRecord("property dec: decimal text \"sev\" is not a number")) {
            try store.read { r in _ = try r.object("M", primaryKey: 2)?.value("dec") }
        }
    }
}
