/// One storage engine under test. Each workload call is one whole transaction (or, for reads,
/// one read transaction), so the adapters decide nothing about batching.
protocol Engine: AnyObject {
    /// The name in the results table.
    static var name: String { get }
    /// Creates an empty store inside `directory` (which exists and is empty).
    init(directory: String, settings: EngineSettings) throws
    /// Inserts the pairs `indices` of `data` in one durable transaction.
    func insert(_ data: Dataset, _ indices: Range<Int>) throws
    /// Looks up every key in one read transaction, folding each value's bytes into a checksum.
    func read(_ data: Dataset, keys: [Int]) throws -> UInt64
    /// In one read transaction, for each start key seeks to it and reads `length` entries,
    /// folding each value's bytes into a checksum. Returns the checksum and entries read.
    func scan(_ data: Dataset, starts: [Int], length: Int) throws -> (checksum: UInt64, entries: Int)
    /// Removes the keys `indices` in one durable transaction; returns how many were there.
    func remove(_ data: Dataset, _ indices: Range<Int>) throws -> Int
    /// Bytes the store occupies on disk: its data files, without lock files.
    func fileSize() throws -> UInt64
    /// Closes the store.
    func close()
}

/// Non-default knobs for experiments; each adapter reads only its own.
struct EngineSettings {
    /// `StorageOptions.maxDirtyBytes` for Trove, when not the default.
    var troveMaxDirtyBytes: Int?
}

