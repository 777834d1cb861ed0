/// What a `Storage`'s write transactions hand on to the next one. Read and written only by the
/// writer, under `Storage.writerGate`.
struct WriterState {
    /// The last nonce counter a write transaction of this `Storage` sealed with (see `PageCipher`).
    var nonceCounter: UInt32 = 0
    /// A size the data file is known to reach (see `WriteTransaction.extendFile`).
    var fileSize: UInt64 = 0
    /// The first txnid whose commit may start the automatic vacuum (see
    /// `Storage.wantsCompaction`).
    var nextAutomaticCompaction: UInt64 = 0
    /// The txnids of the commits made through this object, as ranges of consecutive txnids
    /// (another writer's commits start a new range), the newest last, at most
    /// `maxOwnCommitRanges` (the oldest go first). A page whose header names one holds what
    /// that commit wrote: this process built it, so `WriteTransaction.touch` need not validate
    /// it. No page carries txnid 0; the first commit is 1.
    private(set) var ownCommits: [ClosedRange<UInt64>] = []
    static let maxOwnCommitRanges = 64

    /// Records that commit `txnid` was made through this object.
    mutating func committed(_ txnid: UInt64) {
        if let last = ownCommits.last, last.upperBound &+ 1 == txnid {
            ownCommits[ownCommits.count - 1] = last.lowerBound...txnid
            return
        }
        if ownCommits.count == WriterState.maxOwnCommitRanges { ownCommits.removeFirst() }
        ownCommits.append(txnid...txnid)
    }

    /// Whether commit `txnid` was made through this object.
    @inline(__always)
    func wrote(_ txnid: UInt64) -> Bool {
        // Newest first: a single writer has one range, and recent pages are touched most.
        var i = ownCommits.count
        while i > 0 {
            i -= 1
            if ownCommits[i].contains(txnid) { return true }
            if ownCommits[i].upperBound < txnid { return false }
        }
        return false
    }
    /// The first chunk of the last write transaction's `PageArena`, kept so that the next one
    /// starts on memory already faulted in.
    var spareChunk: UnsafeMutableRawPointer?
}
