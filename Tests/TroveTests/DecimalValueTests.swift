import Foundation
import Testing
@testable import Trove

/// A decimal is stored only as a number a decimal holds: NaN is refused, every value in a
/// decimal's range (up to about 3.4e165) is taken from text, and digits beyond those it holds
/// are rounded as sums round.
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
        // An element of a list is named by its position.
        #expect(throws: StoreError.invalidValue(CoercionError(property: "decs", type: .decimal, found: "NaN (a decimal cannot be NaN)", element: 2))) {
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

    /// Text with more digits than a decimal holds, and its value once rounded half away from
    /// zero (as sums round) to 39 significant digits where they fit the 128-bit significand,
    /// else 38, and to no place below 10^-128; nil where that is out of range. The expected
    /// values are Python's `decimal` (ROUND_HALF_UP, one quantize from the exact value).
    static let rounded: [(String, String?)] = [
        ("1.23456789012345678901234567890123456789012345", "1.23456789012345678901234567890123456789"),
        ("1000000000000000000000000000000000000005", "1.00000000000000000000000000000000000001E+39"),
        ("-1000000000000000000000000000000000000005", "-1.00000000000000000000000000000000000001E+39"),
        ("9999999999999999999999999999999999999999", "1E+40"),
        ("3402823669209384634633746074317682114551", "3.40282366920938463463374607431768211455E+39"),
        ("3402823669209384634633746074317682114555", "3.4028236692093846346337460743176821146E+39"),
        ("0.00000000001234567890123456789012345678901234567891", "1.23456789012345678901234567890123456789E-11"),
        ("1.0000000000000000000000000000000000000000000000001e-120", "1E-120"),
        // One rounding: to 39 digits first would make a half that is not there.
        ("1.49999999999999999999999999999999999999999e-128", "1E-128"),
        ("5e-129", "1E-128"),
        ("-2.5e-128", "-3E-128"),
        ("123456789012345678901234567890123456789012345e120", "1.23456789012345678901234567890123456789E+164"),
        ("0.00000000000000000000000000000000000000000000", "0"),
        ("4.99999999999999999999999999999999999999999e-129", nil),
        ("340282366920938463463374607431768211455500e125", nil),
    ]

    /// Every way text becomes a decimal rounds alike: the Swift API's string, a JSON document
    /// (the shell's insert and import), a CSV field or `--arg` (`CoercionInput.text`), and a
    /// literal or argument compared with a decimal.
    @Test(arguments: rounded)
    func textBeyondADecimalsDigitsIsRounded(_ text: String, _ expected: String?) throws {
        let store = try Self.store()
        guard let expected else {
            let error = StoreError.invalidValue(CoercionError(property: "dec", type: .decimal, found: "\"\(text)\", which is out of range for decimal"))
            #expect(throws: error) { try store.write { tx in _ = try tx.insert("M", ["id": 2, "dec": .string(text)]) } }
            #expect(throws: CoercionError.self) { try Coercion.scalar(.text(text), as: .decimal, for: "dec") }
            return
        }
        let value = Value.decimal(try #require(Decimal(string: expected, locale: Locale(identifier: "en_US_POSIX"))))
        #expect(try Coercion.scalar(.text(text), as: .decimal, for: "dec") == value)
        try store.write { tx in
            _ = try tx.insert("M", ["id": 2, "dec": .string(text), "decs": [.string(text)]])
            _ = try tx.insert("M", try tx.values(fromJSON: ["id": 3, "dec": .string(text), "decs": .array([.string(text)])], model: "M"))
        }
        try store.read { r throws in
            for id: Int64 in [2, 3] {
                #expect(try r.object("M", primaryKey: .int(id))?.value("dec") == value)
                #expect(try r.object("M", primaryKey: .int(id))?.value("decs") == .list([value]))
            }
            #expect(try r.objects("M", where: "dec == \(expected)").ids.sorted() == [2, 3])
        }
    }

    /// A comparison meets text with digits a decimal does not hold as it meets any number
    /// beyond a decimal's range, as a double (by sign and magnitude below 1e-128): it is not
    /// rounded as a stored value is, which would make `dec > 5e-129` false for 1e-128.
    @Test func aComparandBeyondADecimalsDigitsIsNotRounded() throws {
        let store = try Self.store()
        try store.write { tx in
            _ = try tx.insert("M", ["id": 2, "dec": .string("1e-128")])
            _ = try tx.insert("M", ["id": 3, "dec": .string("1.23456789012345678901234567890123456789012345")])
        }
        try store.read { r throws in
            for (predicate, ids) in [("dec > 5e-129", [1, 2, 3]), ("dec == 5e-129", []), ("dec < 1.5e-128", [2]),
                                     ("dec == 1.23456789012345678901234567890123456789012345", []),
                                     ("dec == 1.23456789012345678901234567890123456789", [3])] as [(String, [Int64])] {
                #expect(try r.objects("M", where: predicate).ids.sorted() == ids, "\(predicate)")
                let (name, op, text) = Self.split(predicate)
                #expect(try r.objects("M", where: "\(name) \(op) $0", arguments: [.string(text)]).ids.sorted() == ids, "\(predicate) as an argument")
            }
            // A double property meets a decimal by the double's own value, never a rounded one.
            #expect(try r.objects("M", where: "dec == $0", arguments: [.double(1e-128.nextUp)]).ids.isEmpty)
        }
    }

    static func split(_ predicate: String) -> (String, String, String) {
        let parts = predicate.split(separator: " ").map(String.init)
        return (parts[0], parts[1], parts[2])
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
