import Foundation
import Testing
@testable import Trove

/// A decimal is stored only as a number a decimal holds: NaN is refused, and every value in a
/// decimal's range (up to about 3.4e165) is taken from text exactly.
@Suite("Decimal values")
struct DecimalValueTests {
    static func store() throws -> Store {
        let schema = """
            {"models": [{"name": "M", "primaryKey": "id", "properties": {"id": "int", "dec": "decimal?", "decs": "decimal[]"}}]}
            """
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(schema)))
        try store.write { tx in _ = try tx.insert("M", ["id": 1, "dec": .decimal(5), "decs": [.decimal(1)]]) }
        return store
    }

    static let nan = StoreError.invalidValue(CoercionError(property: "dec", type: .decimal, found: "NaN (a decimal cannot be NaN)"))

    /// A NaN would be stored as text that reads back as another number; every write refuses it
    /// and changes nothing.
    @Test func aDecimalNaNIsRefusedOnEveryWrite() throws {
        let store = try Self.store()
        #expect(throws: Self.nan) { try store.write { tx in _ = try tx.insert("M", ["id": 2, "dec": .decimal(.nan)]) } }
        #expect(throws: Self.nan) { try store.write { tx in _ = try tx.upsert("M", ["id": 1, "dec": .decimal(.nan)]) } }
        #expect(throws: Self.nan) { try store.write { tx in _ = try tx.update("M", primaryKey: 1, ["dec": .decimal(.nan)]) } }
        #expect(throws: StoreError.invalidValue(CoercionError(property: "decs", type: .decimal, found: "NaN (a decimal cannot be NaN)"))) {
            try store.write { tx in _ = try tx.update("M", primaryKey: 1, ["decs": [.decimal(2), .decimal(.nan)]]) }
        }
        try store.read { r in
            #expect(try r.query("M").count == 1)
            let object = try #require(try r.object("M", primaryKey: 1))
            #expect(try object.value("dec") == .decimal(5))
            #expect(try object.value("decs") == .list([.decimal(1)]))
        }
    }

    static func zeros(_ n: Int) -> String { String(repeating: "0", count: n) }

    /// Each text with the value written in the form `Decimal(string:)` takes (an exponent up to 127).
    static let inRange: [(String, String)] = [
        ("3e165", "3" + zeros(38) + "e127"),
        ("3.4e165", "34" + zeros(37) + "e127"),
        ("-3e165", "-3" + zeros(38) + "e127"),
        ("340282366920938463463374607431768211455e127", "340282366920938463463374607431768211455e127"),
        ("12e140", "12" + zeros(13) + "e127"),
        ("100e-130", "1e-128"),
        ("0e500", "0"),
    ]

    @Test(arguments: inRange)
    func aDecimalInRangeIsTakenExactly(_ text: String, _ canonical: String) throws {
        let store = try Self.store()
        let expected = try #require(Decimal(string: canonical, locale: Locale(identifier: "en_US_POSIX")))
        try store.write { tx in
            _ = try tx.insert("M", ["id": 2, "dec": .string(text)])
            _ = try tx.insert("M", try tx.values(fromJSON: ["id": 3, "dec": .string(text)], model: "M"))
        }
        try store.read { r throws in
            #expect(try r.object("M", primaryKey: 2)?.value("dec") == .decimal(expected))
            #expect(try r.object("M", primaryKey: 3)?.value("dec") == .decimal(expected))
            #expect(try r.objects("M", where: "dec == \(text)").ids.sorted() == [2, 3])
            #expect(try r.objects("M", where: "dec == $0", arguments: [.string(text)]).ids.sorted() == [2, 3])
        }
    }

    @Test func aDecimalBeyondItsRangeIsOutOfRange() throws {
        let store = try Self.store()
        for text in ["3.5e165", "1e166", "340282366920938463463374607431768211456e127", "1e-129", "1e999999999"] {
            #expect(throws: StoreError.invalidValue(CoercionError(property: "dec", type: .decimal, found: "\"\(text)\", which is out of range for decimal")), "\(text)") {
                try store.write { tx in _ = try tx.insert("M", ["id": 2, "dec": .string(text)]) }
            }
        }
        #expect(throws: StoreError.invalidValue(CoercionError(property: "dec", type: .decimal, found: "\"3e1x\", which is not a decimal number"))) {
            try store.write { tx in _ = try tx.insert("M", ["id": 2, "dec": .string("3e1x")]) }
        }
    }

    @Test func theParseHoldsTheValueInADecimalsOwnForm() throws {
        let d = try #require(Decimal.parse("3e165"))
        #expect(d.exponent == 127)
        #expect(d == Decimal(string: "3" + String(repeating: "0", count: 38) + "e127"))
        #expect(d.description == "3" + String(repeating: "0", count: 165))
        #expect(Decimal.parse("NaN") == nil)
    }
}
