/// One object store under test. Each call is one transaction (a write transaction that commits
/// with the run's durability, or one read transaction), so adapters decide nothing about batching.
///
/// Every engine stores the same model: `Team(id: String PK, name: String)` and
/// `User(uid: String PK, name: String indexed, age: Int, score: Double, signedUpAt: Date,
/// email: String?, team: Team?)`, with an index (or Trove's backlink index) on the link.
protocol ObjectEngine: AnyObject {
    static var name: String { get }
    init(directory: String, durable: Bool) throws
    /// Inserts all teams in one transaction (setup, not timed).
    func insertTeams(_ data: ObjectDataset) throws
    /// Inserts users `range` in one transaction.
    func insertUsers(_ data: ObjectDataset, _ range: Range<Int>) throws
    /// Looks up each user by primary key in one read transaction, reading name, age and score.
    func lookup(_ data: ObjectDataset, _ indices: [Int]) throws -> UInt64
    /// Counts users whose name equals each of `names` (the indexed property); returns the total.
    func countByName(_ names: [String]) throws -> Int
    /// Counts users whose name lies in each range `lower ..< upper` (the indexed property);
    /// returns the total.
    func countByNameRange(_ ranges: [(lower: String, upper: String)]) throws -> Int
    /// Counts `age >= lo AND age < hi AND score > minScore` (no index applies: a scan).
    func countCompound(ageFrom lo: Int64, ageBelow hi: Int64, scoreAbove minScore: Double) throws -> Int
    /// Counts users whose name contains `needle`, ASCII case-insensitively.
    func countNameContains(_ needle: String) throws -> Int
    /// Counts users whose team's name equals each of `teamNames`: a key path through the link.
    func countByTeamName(_ teamNames: [String]) throws -> Int
    /// The uids of the `k` users with the highest scores, best first.
    func topByScore(_ k: Int) throws -> [String]
    /// Sets `score` of each user (by primary key) to `newScore(i)`, in one transaction.
    func updateScores(_ data: ObjectDataset, _ indices: [Int], _ newScore: (Int) -> Double) throws
    /// Deletes each user by primary key in one transaction; returns how many were deleted.
    func delete(_ data: ObjectDataset, _ indices: [Int]) throws -> Int
    /// Shrinks the store's files as an app would ask explicitly: Trove's `Store.vacuum()`;
    /// SQLite's `VACUUM`, then a truncating WAL checkpoint (the `-wal` would hold the whole
    /// rewritten database until the next one).
    func vacuum() throws
    /// Inserts every sale in one transaction (setup of the questions workloads, not timed).
    func insertSales(_ data: SalesDataset) throws
    /// Counts the sales of each region (the indexed property); returns the total.
    func countSalesByRegion(_ regions: [String]) throws -> Int
    /// The average amount of the sales of each region (an indexed equality); returns their sum.
    func averageAmountByRegion(_ regions: [String]) throws -> Double
    /// The average amount of all sales (the indexed property), `times` times; returns the last.
    func averageAmount(times: Int) throws -> Double
    /// The least and the greatest amount (the indexed property), `times` times each; returns
    /// the sum of all.
    func amountExtremes(times: Int) throws -> Int64
    /// The sum of the prices over 50 (no index on price: a filter over every sale), `times`
    /// times; returns the last.
    func sumOfPricesOver50(times: Int) throws -> Double
    /// The 20 sales after the first 500 in key order, region and amount of each, `times` times;
    /// returns the last page, a line per sale.
    func salePage(times: Int) throws -> [String]
    /// One row per region in region order, "region count sum max" (GROUP on the indexed
    /// property, three aggregates).
    func salesByRegion() throws -> [String]
    /// One row per channel in channel order, "channel count sum max" (GROUP on a property no
    /// index holds, three aggregates).
    func salesByChannel() throws -> [String]
    /// One row per region in region order, "region count" (GROUP on the indexed property,
    /// counts only).
    func salesCountByRegion() throws -> [String]
    /// The user count.
    func count() throws -> Int
    /// Bytes of the store's data files.
    func fileSize() throws -> UInt64
    func close()
}

