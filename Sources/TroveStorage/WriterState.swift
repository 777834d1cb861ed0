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
    /// The txnid of the last commit made through this object (0: none yet; no page carries
    /// txnid 0, the first commit is 1). A page whose header names it holds what that commit
    /// wrote: this process built it, so `WriteTransaction.touch` need not validate it.
    var lastCommit: UInt64 = 0
    /// The first chunk of the last write transaction's `PageArena`, kept so that the next one
    /// starts on memory already faulted in.
    var spareChunk: UnsafeMutableRawPointer?
}
