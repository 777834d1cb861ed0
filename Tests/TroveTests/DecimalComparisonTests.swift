import Foundation
import Testing
@testable import Trove

/// A decimal meets a double or float by value, also where the double is beyond what a decimal
/// holds (above about 3.4e165, or nonzero below 1e-128): there its sign and magnitude decide.
@Suite("Decimals compared with doubles")
struct DecimalComparisonTests {
    /// id: (dec, dbl, flt); `flt` is nil where a float cannot hold `dbl`.
    static let rows: [(Int64, String, Double, Float?)] = [
        (1, "1", 1e200, nil),
        (2, "1", -1e200, nil),
        (3, "0", 1e-200, nil),
        (4, "0", -1e-200, nil),
        (5, "1e100", 1e300, nil),
        (6, "-5", .leastNonzeroMagnitude, 1e-30),
        (7, "3", 3, 3),
        (8, "1e-120", 1e-130, 1e-20),
        (9, "0.1", 0.1, nil),
        (10, "-1e-128", -1e-129, -1e-30),
        (11, "3e127", .greatestFiniteMagnitude, .greatestFiniteMagnitude),
    ]

    static func store() throws -> Store {
        let schema = """
            {"models": [{"name": "M", "primaryKey": "id", "properties": {"id": "int", "dec": "decimal", "dbl": "double", "flt": "float?"}}]}
            """
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(schema)))
        try store.write { tx in
            for (id, dec, dbl, flt) in rows {
                try tx.insert("M", ["id": .int(id), "dec": .decimal(Decimal(string: dec)!), "dbl": .double(dbl),
                                    "flt": flt.map { .float($0) } ?? .null])
            }
        }
        return store
    }

    static func ids(_ predicate: String, _ arguments: [Value] = [], in store: Store) throws -> [Int64] {
        try store.read { try $0.objects("M", where: predicate, arguments: arguments).ids.sorted() }
    }

    @Test func aDecimalPropertyMeetsADoublePropertyBeyondItsRange() throws {
        let store = try Self.store()
        #expect(try Self.ids("dec < dbl", in: store) == [1, 3, 5, 6, 10, 11])
        #expect(try Self.ids("dec > dbl", in: store) == [2, 4, 8])
        #expect(try Self.ids("dec == dbl", in: store) == [7, 9])
        #expect(try Self.ids("dec != dbl", in: store) == [1, 2, 3, 4, 5, 6, 8, 10, 11])
        #expect(try Self.ids("dbl > dec", in: store) == [1, 3, 5, 6, 10, 11])
        #expect(try Self.ids("dbl <= dec", in: store) == [2, 4, 7, 8, 9])
        // Every float is in a decimal's range; they meet as doubles do.
        #expect(try Self.ids("dec < flt", in: store) == [6, 8])
        #expect(try Self.ids("flt < dec", in: store) == [10, 11])
    }

    @Test func aNumberBeyondTheRangeOfDecimalComparesWithADecimalAsADouble() throws {
        let store = try Self.store()
        #expect(try Self.ids("dec < 1e200", in: store) == Self.rows.map(\.0))
        #expect(try Self.ids("dec > -1e200", in: store) == Self.rows.map(\.0))
        #expect(try Self.ids("dec > 1e200", in: store) == [])
        #expect(try Self.ids("dec > 1e-130", in: store) == [1, 2, 5, 7, 8, 9, 11])
        #expect(try Self.ids("dec < -1e-130", in: store) == [6, 10])
        #expect(try Self.ids("dec == 1e-130", in: store) == [])
        #expect(try Self.ids("dec BETWEEN {-1e-300, 1e-300}", in: store) == [3, 4])
        #expect(try Self.ids("dec < $0", [.double(1e200)], in: store) == Self.rows.map(\.0))
        #expect(try Self.ids("dec > $0", [.string("1e-130")], in: store) == [1, 2, 5, 7, 8, 9, 11])
        // In range, a number is a decimal with every digit.
        #expect(try Self.ids("dec == 0.1", in: store) == [9])
        #expect(try Self.ids("dec > 0.09999999999999999999999999", in: store) == [1, 2, 5, 7, 9, 11])
    }
}
