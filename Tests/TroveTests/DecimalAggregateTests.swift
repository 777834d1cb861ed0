import Foundation
import Testing
@testable import Trove

/// Sums and averages of decimals are exact, rounded once to the digits a `Decimal` holds, on
/// every path that sums: aggregate statements, group aggregates, list aggregates and
/// `Results`. The expected values are Python's `decimal` over the same text, rounded half up
/// to 39 digits where they fit a `Decimal`'s 128-bit significand, else to 38.
@Suite("Decimal sums and averages")
struct DecimalAggregateTests {
    /// Values of mixed magnitudes and fraction lengths: `Decimal`'s `+`, one by one, cut
    /// the fractions to the digits of the running total and lost digits from the tenth place.
    static let mixed = [
        "99757102641179993453.78932879", "831496.217421809679290810", "-220295189131364965.390757938347",
        "0.0174681453840191614610033", "26791553425154417217.66619345", "91377.450612310077283783",
        "-844816578016044794.266166304940", "0.3269910237409546111393095", "76816859856725081864.979",
        "142331.622439332836791601", "-45613994730390931.843646974821", "0.2378991433014673002458921",
        "64980399399147527108.900", "497856.540091714521178502", "-394854212984642535.517160790966",
        "0.9091111465697778188049170", "53680992546370422647.938", "177845.577356436336395322",
        "-405381614116206291.014217743668", "0.7597510490495490267304320", "21606328177322377270.18513374",
        "187365.078023458889263166", "-520394531716744913.730689857531", "0.1336148540581075864703160",
    ]
    /// Values near 1e36 with two fraction digits, 38 in all: the total has 37 integer digits,
    /// so the 38 kept end at the first decimal place (…150.18 is …150.2).
    static let large = [
        "576575441086611118984451767317986373.88", "966698795337195846113000423260711914.67",
        "168924829080833528203910133823034228.20", "235547228006052903757511063257441704.73",
        "388083322668034084830585927394141017.52", "921364789260829440871941907814667095.79",
        "102359187472387582115529699448897662.00", "321295894333331501009621337415611191.37",
        "816750898274230463392390432336606394.86", "497158528680910714128670198275804822.02",
        "541110247406342646834630247133788260.38", "104496957715042300387499015451780484.76",
    ]
    /// group: (values, sum, average).
    static let expected: [Int64: ([String], String, String)] = [
        1: (mixed, "341201879925206353406.56579679417107869", "14216744996883598058.6069081997571282787"),
        2: (large, "5640366119321802130629742152930471150.2", "470030509943483510885811846077539262.52"),
        // What cancels leaves the small value whole; one by one, 1e30 + 1e-20 was 1e30.
        3: (["1e30", "0.00000000000000000001", "-1e30"], "0.00000000000000000001", "3.33333333333333333333333333333333333333e-21"),
        // The average is below the smallest exponent, -128: it rounds there, half up.
        4: (["1e-128", "0"], "1e-128", "1e-128"),
        // 38 nines and a half: rounding up carries into a 39th digit, kept as an exponent.
        5: (["99999999999999999999999999999999999999", "0.5"], "100000000000000000000000000000000000000", "50000000000000000000000000000000000000"),
        // Exponents far apart, above and below 0: each value's significand is scaled to the
        // smallest exponent met, so 1e-60 outlives 1e60 and -1e60.
        6: (["1e60", "1e-60", "-1e60"], "1e-60", "3.33333333333333333333333333333333333333e-61"),
        7: (["123e20", "-6e5", "7", "0.00000000045", "2.5e-3", "-4e-12"], "12299999999999999400007.002500000446",
            "2049999999999999900001.16708333340766667"),
    ]

    /// Values near the ends of a `Decimal`'s range (a significand below 2^128, about 3.4e38,
    /// times 10 to -128...127: up to about 3.4e165), as (significand, exponent):
    /// (values, sum or nil where it is beyond the range, average). Above 1e127 a `Decimal`
    /// holds zeros in its significand; the average is always the values' order of magnitude.
    static let nearTheEnds: [Int64: ([(String, Int)], (String, Int)?, (String, Int))] = [
        1: ([("1", 120), ("1", 120)], ("2", 120), ("1", 120)),
        2: ([("1", 128), ("1", 128)], ("2", 128), ("1", 128)),
        3: ([("1", 165), ("1", 165), ("1", 165)], ("3", 165), ("1", 165)),
        4: ([("3", 165), ("3", 165)], nil, ("3", 165)),
        5: ([("-3", 165), ("-3", 165)], nil, ("-3", 165)),
        6: ([("3.4", 165), ("-1", 165)], ("2.4", 165), ("1.2", 165)),
        7: ([("9.99", 164), ("9.99", 164), ("9.99", 164)], ("2.997", 165), ("9.99", 164)),
        // The largest Decimal and 3.4e165: the average's 40th digit rounds.
        8: ([("340282366920938463463374607431768211455", 127), ("3.4", 165)], nil, ("340141183460469231731687303715884105728", 127)),
        9: ([("1", -120), ("2", -120)], ("3", -120), ("1.5", -120)),
        // Below 1e-120 the digits end at the smallest exponent, -128.
        10: ([("1", -120), ("0", 0), ("0", 0)], ("1", -120), ("3.3333333", -121)),
        11: ([("-1.5", -127), ("0.5", -127), ("0", 0)], ("-1", -127), ("-3", -128)),
    ]

    /// `significand` times 10^`exponent`, in digits: `Decimal(string:)` refuses `3e165`.
    static func plain(_ value: (String, Int)) -> String {
        var (text, exponent) = value
        let sign = text.hasPrefix("-") ? "-" : ""
        text = String(text.drop { $0 == "-" })
        if let point = text.firstIndex(of: ".") {
            exponent -= text.distance(from: point, to: text.endIndex) - 1
            text.remove(at: point)
        }
        if exponent >= 0 { return sign + text + String(repeating: "0", count: exponent) }
        let padded = String(repeating: "0", count: max(0, -exponent - text.count + 1)) + text
        return sign + padded.dropLast(-exponent) + "." + padded.suffix(-exponent)
    }

    static func store(_ values: [Int64: [String]] = expected.mapValues(\.0)) throws -> Store {
        let schema = """
            {"models": [{"name": "M", "properties": {"k": "int", "dec": "decimal?", "decs": "decimal[]"}}]}
            """
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(schema)))
        try store.write { tx in
            for (k, values) in values.sorted(by: { $0.key < $1.key }) {
                let decimals = values.map { Value.decimal(Decimal(string: $0)!) }
                for value in decimals { try tx.insert("M", ["k": .int(k), "dec": value, "decs": .list([])]) }
                try tx.insert("M", ["k": .int(k), "dec": .null, "decs": .list(decimals)])
            }
        }
        return store
    }

    static func decimal(_ text: String) -> Value { .decimal(Decimal(string: text)!) }

    @Test(arguments: expected.keys.sorted())
    func aSumOfDecimalsIsExactToTheDigitsADecimalHolds(_ k: Int64) throws {
        let (_, sum, average) = Self.expected[k]!
        let store = try Self.store()
        try store.read { snapshot in
            #expect(try snapshot.aggregate("sum M.dec where k == \(k)") == Self.decimal(sum))
            #expect(try snapshot.aggregate("avg M.dec where k == \(k)") == Self.decimal(average))
            let results = try snapshot.objects("M", where: "k == \(k)")
            #expect(try results.sum(of: "dec") == Self.decimal(sum))
            #expect(try results.average(of: "dec") == Self.decimal(average))
            let groups = try snapshot.rows("M where k == \(k) GROUP(k) SELECT(@sum.dec, @avg.dec)")
            #expect(groups.map { $0.values } == [[Self.decimal(sum), Self.decimal(average)]])
            let lists = try snapshot.rows("M where k == \(k) AND decs.@count > 0 SELECT(decs.@sum, decs.@avg)")
            #expect(lists.map { $0.values } == [[Self.decimal(sum), Self.decimal(average)]])
            #expect(try snapshot.aggregate("count M where k == \(k) AND decs.@sum == \(sum)") == .int(1))
        }
    }

    @Test(arguments: nearTheEnds.keys.sorted())
    func sumsAndAveragesNearTheEndsOfTheRangeOfDecimalAreValues(_ k: Int64) throws {
        let (values, sum, average) = Self.nearTheEnds[k]!
        let store = try Self.store([k: values.map(Self.plain)])
        let avg = Self.decimal(Self.plain(average))
        try store.read { snapshot in
            #expect(try snapshot.aggregate("avg M.dec") == avg)
            let results = try snapshot.objects("M", where: "decs.@count == 0")
            #expect(try results.average(of: "dec") == avg)
            #expect(try snapshot.rows("M where decs.@count == 0 GROUP(k) SELECT(@avg.dec)").map { $0.values } == [[avg]])
            #expect(try snapshot.rows("M where decs.@count > 0 SELECT(decs.@avg)").map { $0.values } == [[avg]])
            if let sum {
                let total = Self.decimal(Self.plain(sum))
                #expect(try snapshot.aggregate("sum M.dec") == total)
                #expect(try results.sum(of: "dec") == total)
                #expect(try snapshot.rows("M where decs.@count == 0 GROUP(k) SELECT(@sum.dec)").map { $0.values } == [[total]])
                #expect(try snapshot.rows("M where decs.@count > 0 SELECT(decs.@sum)").map { $0.values } == [[total]])
            }
        }
        if sum == nil {
            try QuestionTests.expectRefusals([("sum M.dec", 7)], by: store, saying: "is out of the range of decimal")
        }
    }

    @Test func aDecimalSumBeyondTheRangeOfDecimalIsAnError() throws {
        let schema = """
            {"models": [{"name": "M", "properties": {"k": "int", "dec": "decimal", "decs": "decimal[]"}}]}
            """
        let store = try Store(configuration: .inMemory(schema: try schemaFromJSON(schema)))
        let big = Value.decimal(.greatestFiniteMagnitude)
        try store.write { tx in
            for _ in 0..<2 { try tx.insert("M", ["k": 1, "dec": big, "decs": .list([big, big])]) }
        }
        try QuestionTests.expectRefusals([("sum M.dec", 7), ("M GROUP(k) SELECT(@sum.dec)", 24), ("M SELECT(decs.@sum)", 10)],
                                         by: store, saying: "is out of the range of decimal")
        // The average of values in range is in range, whatever the sum.
        #expect(try store.read { try $0.aggregate("avg M.dec") } == big)
    }
}
