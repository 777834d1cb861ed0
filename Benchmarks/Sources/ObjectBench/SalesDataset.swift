import BenchSupport

/// The seeded data of the questions workloads: `Sale(id: Int PK, region: String indexed,
/// amount: Int? indexed, price: Double, channel: String)`, one sale per user of the run,
/// 40 regions, a tenth of the amounts null, 10 channels (no index: the key of a GROUP that
/// must read every record). Every engine loads the same rows.
final class SalesDataset: Sendable {
    struct Sale: Sendable {
        let id: Int64
        let region: String
        let amount: Int64?
        let price: Double
        let channel: String
    }

    static let regionCount = 40
    static let channels = ["agent", "catalog", "kiosk", "mail", "market", "mobile", "partner", "phone", "store", "web"]
    let sales: [Sale]
    let regions: [String]

    init(count: Int, seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let regions = (0..<Self.regionCount).map { "region-\($0 < 10 ? "0" : "")\($0)" }
        self.regions = regions
        // The channels from their own generator, so that the other properties are what they
        // are without them.
        var channelRNG = SplitMix64(seed: seed &+ 1)
        sales = (0..<count).map { i in
            let r = rng.next()
            return Sale(id: Int64(i), region: regions[Int(r % UInt64(Self.regionCount))],
                        amount: (r >> 8) % 10 == 0 ? nil : Int64((r >> 16) % 100_000),
                        price: Double((r >> 40) % 10_000) / 100,
                        channel: Self.channels[Int(channelRNG.next() % UInt64(Self.channels.count))])
        }
    }
}

/// What the questions workloads answered, compared between engines: averages rounded to 6
/// decimals (the engines add in different orders).
struct QuestionChecks: Equatable {
    var countWhere = 0
    var averageWhere = ""
    var average = ""
    var extremes: Int64 = 0
    var groups: [String] = []
    var unindexedGroups: [String] = []
    var groupCounts: [String] = []
    var sumWhere = ""
    var page: [String] = []

    static func rounded(_ x: Double) -> String { String(format: "%.6f", x) }
}
