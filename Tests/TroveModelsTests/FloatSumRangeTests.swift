import Testing
import Trove
import TroveModels

@Model struct FloatMeter {
    @Attribute(.primaryKey) var id: Int
    var group: Int = 0
    var level: Float = 0
    var spare: Float? = nil
}

/// A sum of `Float`s read as `Float` follows the rule of `DoubleSum` for `Float`'s range: an
/// infinity among the values makes the sum that infinity, and finite values adding up past
/// `Float`'s range are an error naming the property and the type, whatever infinities are
/// beside them (the infinity would otherwise hide the overflow).
@Suite struct FloatSumRangeTests {
    static func store(_ levels: [Float?]) throws -> Store {
        let store = try Store(configuration: .inMemory(schema: try Schema(FloatMeter.self)))
        try store.write { tx in
            for (i, level) in levels.enumerated() {
                try tx.insert(FloatMeter(id: i, group: i % 2, level: level ?? 0, spare: level))
            }
        }
        return store
    }

    static func isFloatOverflow(_ error: any Error, _ property: String) -> Bool {
        error is ModelQueryError && "\(error)".contains("the sum of FloatMeter.\(property)") && "\(error)".contains("is out of the range of Float")
    }

    @Test(arguments: [Float.infinity, -.infinity])
    func anInfinityDoesNotHideFiniteValuesAddingUpPastFloatsRange(_ infinity: Float) throws {
        let big = Float.greatestFiniteMagnitude
        // Both groups: group 0 holds big, big and the infinity; group 1 holds 1 and 2.
        let store = try Self.store([big, 1, big, 2, infinity])
        try store.read { s in
            let all = try s.objects(FloatMeter.self)
            #expect(performing: { try all.sum(\.level) }, throws: { Self.isFloatOverflow($0, "level") })
            #expect(performing: { try all.sum(\.spare) }, throws: { Self.isFloatOverflow($0, "spare") })
            #expect(performing: { try all.grouped(by: \.group, aggregating: .sum(\.level)) }, throws: { Self.isFloatOverflow($0, "level") })
            #expect(performing: { try all.grouped(by: \.group, aggregating: .count, .sum(\.spare)) }, throws: { Self.isFloatOverflow($0, "spare") })
            // The dynamic API's sum of floats is a double, held to double's range.
            #expect(try s.objects("FloatMeter").sum(of: "level") == .double(Double(infinity)))
            // Without the overflow the infinity is the sum.
            let some = try s.objects(FloatMeter.self, where: { $0.id != 0 })
            #expect(try some.sum(\.level) == infinity)
            let groups: [(Int, Float)] = try some.grouped(by: \.group, aggregating: .sum(\.spare))
            #expect(groups.map(\.1) == [infinity, 3])
        }
    }

    @Test func finiteValuesAddingUpPastFloatsRangeAreAnErrorAndWithinItASum() throws {
        let store = try Self.store([.greatestFiniteMagnitude, 1, .greatestFiniteMagnitude, 2, -.greatestFiniteMagnitude, nil])
        try store.read { s in
            let all = try s.objects(FloatMeter.self)
            // Added as doubles, big + big - big is back within the range.
            #expect(try all.sum(\.spare) == .greatestFiniteMagnitude + 3)
            #expect(performing: { try s.objects(FloatMeter.self, where: { $0.id < 3 }).sum(\.spare) },
                    throws: { Self.isFloatOverflow($0, "spare") })
            let groups: [(Int, Float)] = try all.grouped(by: \.group, aggregating: .sum(\.spare))
            #expect(groups.map(\.1) == [.greatestFiniteMagnitude, 3])
        }
    }
}
