/// The storage engine's file format and commit protocol, stated once. The code that writes
/// each structure points here; what holds here holds everywhere.
///
/// # Files
///
/// A store at `PATH` is three files:
/// - `PATH`, the data file: fixed-size pages (4 KiB to 64 KiB, a power of two, fixed at
///   creation), read through `mmap` and written with `pwritev`.
/// - `PATH-lock`, the lock file: shared memory for every process that has the store open
///   (`LockFile`). Nothing in it needs to survive a reboot except the record of the last
///   commit known whole, which is only trusted within the boot that wrote it.
/// - `PATH-log`, the commit log: where a small durable commit becomes durable (`CommitLog`).
///
/// # The data file
///
/// Pages 0 and 1 are the two meta slots; every other page, or run of pages, belongs to a tree
/// (branch, leaf, overflow) or to the free list (index run, bitmap chunks).
///
/// Meta (one per slot; `Meta`). Metas are never encrypted: they hold no user data, and open
/// must read them before it has a key.
/// ```
/// 0   magic "TROVEDB\0"        8   format u32, pageSize u32   16  flags u32 (1: encrypted,
///                                                                   2: a durable commit)
/// 24  txnid u64                32  pageCount u64 (pages in use, metas included)
/// 40  lastSyncedTxnid u64      48  catalog TreeInfo (48)
/// 96  freeList pgno u64, pages u32, pad u32, checksum u64     120 nonceEpoch u64
/// 128 key salt (32)            160 key check: nonce 12, sealed 16, tag 16
/// 208 store id u64 (random, set when the file is created; 0 in files made before it existed)
/// 504 checksum u64: XXH64 of bytes 0..<504
/// ```
/// TreeInfo (the catalog's value for each named tree, and the meta's for the catalog):
/// `root u64, rootChecksum u64, entries u64, depth u32, flags u32, pages u64, reserved u64`.
///
/// Every other page or run (`PageLayout`, `PageHeader`):
/// ```
/// 0   pgno     u64   the page's own number: catches misdirected writes
/// 8   txnid    u64   the transaction that wrote it
/// 16  type     u8    PageType
/// 17  flags    u8    flagGapUnchecked, flagNarrowEntries
/// 18  count    u16   entries (branch, leaf)
/// 20  upper    u32   start of the entry heap (branch, leaf)
/// 24  pages    u32   pages in this run (1 for branch and leaf)
/// 28  reserved u32
/// 32  body ...
/// end-32 trailer: checksum u64 (`Checksum.run`: XXH64 of everything before the trailer, the
///        free space of a page flagged `flagGapUnchecked` left out), or, when encrypted, nonce
///        (12) and AES-GCM tag (16)
/// ```
/// Branch and leaf pages are slotted: a `u16` offset per entry after the header, sorted by
/// key, and the entries packed at the end of the body, growing down (entry encoding:
/// `Node.swift`). A value longer than a quarter page lives in an overflow run. The free list's
/// index run and bitmap chunks are laid out in `FreeList`.
///
/// The Merkle chain: a branch entry records its child's page number and checksum, the catalog
/// each tree's root checksum, the free list's index each chunk's, the meta the catalog's and
/// the index's. The meta's own checksum so covers every page its commit can reach.
///
/// Format versions (the meta's `format`, `Meta.formatVersion`): each holds what the one below
/// it does, plus: from 2, a tree page's checksum may leave out its free space; from 3, the
/// meta carries the store id and the commit log may hold page deltas (builds that cannot
/// replay them refuse the file); from 4, the free pages are bitmap chunks behind an index;
/// from 5, leaves flagged `flagNarrowEntries` (every leaf a commit writes) give their entries'
/// lengths in one or two bytes (`NodeView`), and the records of the layers above may use
/// their narrower encodings; from 6, the layers above may write integers and object keys in
/// fewer than eight bytes (pages are as in 5). Files of older versions open, and become the
/// current version at their first commit (their leaves are rewritten narrow as commits copy
/// them); a file of a newer version is refused.
///
/// # The commit protocol
///
/// One writer at a time (across threads and processes: the writer lock). A commit
/// (`WriteTransaction.commit()`) takes these steps, each a method of its own:
/// 1. `sealTrees`: every changed page was written to a page no live snapshot uses: copied on
///    write, and a freed page is reused only once no reader, nor the meta a crash falls back
///    to, can see it. Each changed tree is sealed bottom-up (children's checksums into their
///    parents), its root recorded in the catalog, then the catalog sealed.
/// 2. `sealFreeList`: the pages the transaction stopped using become pending under its txnid,
///    and the free list's changed chunks and its index are built and sealed: last, because
///    everything before allocates and frees pages.
/// 3. `placeRecord`: whether the commit goes to the commit log (below), and where; a no-sync
///    commit first empties a log that may hold records.
/// 4. `writePages`: the pages go to the data file in page order, runs of consecutive pages in
///    one call of at most 64 KiB; `logWrites` adds them to the record (whole, or as deltas).
/// 5. `extendFile`: the file grows to the page count the meta will name.
/// 6. `nextMeta`, `Storage.writeMeta`: the meta goes to the slot that does not hold the last
///    durable state (so a torn meta write, or a crash, falls back to that state).
/// 7. `makeDurable`: one `fdatasync` of the data file (which also empties the log), or one
///    durable append of the record to the log. Pages and meta reach the disk together, in
///    whatever order the disk likes; the meta's checksum chain tells a whole commit from a
///    torn one. A no-sync commit skips this step, and its meta says it is not durable.
/// 8. `publish`: new readers see the commit (the lock file's current txnid), watchers are told.
///
/// A failed commit leaves the `Storage` unusable: every later transaction throws, until the
/// store is opened again. An error in steps 1 and 2 has written nothing; a failed write or
/// sync after them has left the file in a state this object no longer knows: part of the
/// commit, perhaps its meta, may sit in the page cache where other processes read it; the log
/// position is unknown; the writer's free list (changed in place) no longer matches any
/// commit; and a failed `fdatasync` may have dropped dirty pages and cleared the error, so a
/// retry that succeeds would prove nothing. A new `Storage` starts from what the metas and the
/// lock file say, and a first opener checks the newest commit as recovery does.
///
/// # Recovery
///
/// Only a machine crash can tear a commit: within one boot the page cache holds every write a
/// process made, even one killed mid-commit, and the meta is written last. So the lock file
/// records the last commit known whole with the boot id, and the first opener in the same
/// boot that finds that commit newest trusts it. Otherwise the first opener replays the
/// commit log (after a reboot), then checks the newest meta's pages against the checksum
/// chain; a commit that fails falls back to the other slot, which it did not touch
/// (`Storage.rollback` reports it).
///
/// A meta that fails its checksum is never chosen. When the slot not chosen fails it and the
/// txnid it names (read without trusting it) is newer than the chosen commit's, a commit may
/// be lost, and the open reports it as one whose pages failed (`Storage.rollback`, with the
/// slot). Once the log is replayed, a machine crash can still leave such a meta: a large
/// durable commit and a no-sync commit write their meta in place and are not in the log, and
/// a small commit's meta is in place before its record is whole (a record that is not whole
/// is not replayed). None of those commits was durable (a run of no-sync commits rewrites one
/// slot, so a torn one takes the ones before it too, as the no-sync contract allows). Damage
/// looks the same, so after a reboot such a slot is reported as a commit that may be lost, not
/// as damage to the store (it opens at the chosen commit, and a check of the file passes). It
/// is damage when no crash can explain it: within the boot the lock file's record shows a
/// commit newer than the chosen one published, or the slot lacks what a torn write of this
/// store's meta keeps (a meta is one sector: its magic, format version, page size and store
/// id); the latter names no version, since the txnid in it means nothing. The next commit
/// rewrites that slot (a commit goes to the slot not holding the last durable state, and the
/// first write of a `Storage` syncs first).
///
/// Opening never syncs: a writer that died in its `fdatasync` leaves a meta that claims
/// durability, so each `Storage` syncs once before its first write transaction builds on that
/// claim. No-sync commits never overwrite the slot holding the last durable state.
///
/// # Compaction
///
/// `Storage.vacuum()` shrinks the file online, in rounds (`Vacuum.swift`), each an ordinary
/// write transaction under the commit protocol above, so a crash at any point leaves what the
/// last commit left, and readers in every process go on meanwhile:
/// 1. The ready pages that end the file are taken off it: the transaction's page count (the
///    meta's `pageCount`) ends before them. They were ready, so no snapshot a reader holds,
///    nor the meta a crash falls back to, reaches them.
/// 2. Every live page at or past the point where the file could end (its pages less the ready
///    ones) is copied on write to the lowest ready page when that lies before it: a tree's
///    page with the path above it, an overflow run, a free-list chunk (written again). The
///    old pages become pending under the round's txnid, as any copy's source does. The walk
///    that finds those pages reads every page of every tree, so the round also repairs each
///    tree's shape (`Tree`) where an older writer left it broken (a leaf with no entries
///    below the root, a branch with one child), as a delete through the place would, and in
///    each branch it rewrites merges a child under a quarter full with its sibling when both
///    fit. Underfull pages under branches it does not rewrite stay: merging them would copy
///    their paths only to save a page. The repairs are edits of the same transaction, as
///    safe as its moves.
/// 3. After the commit, the file is cut (`ftruncate`) to the page count the newest commit
///    names, once no reader slot holds an older snapshot (an older meta may count more
///    pages, and `verify()` reads every page its meta counts), and only after a checkpoint
///    and a copy of the newest meta written over the other slot, synced: the commit is then
///    on disk in the data file and in both slots, so no crash or replay can fall back to a
///    commit that needs the pages cut (no-sync commits after it, which a crash undoes,
///    overwrite one slot only). A reader that holds an older snapshot leaves the file
///    as it is; a later vacuum cuts it. A cut that a crash loses leaves a file longer than
///    its meta counts, which is allowed.
///
/// A round's commit goes through the commit log, as any small durable commit does, only when
/// its record fits in the room the log's file already has after its last record; otherwise it
/// writes in place and syncs the data file, as a large commit does, which also empties the
/// log. A log grown for a round (up to twice `CommitLog.largestRecord`) would leave the store's
/// files larger after the vacuum than before, above all when a reader keeps the data file from
/// being cut. A round written in place costs a sync of the data file's scattered pages on
/// the thread that runs the vacuum (for the automatic one, the commit that triggered it): the
/// cut checkpoints too, but only when it cuts, which a round that takes nothing off the end
/// (usually the first that moves pages) or one whose end a reader holds does not.
///
/// The next round reclaims the pages the one before freed, takes them off the end, and moves
/// what is left; a vacuum stops when a round neither moves nor takes off anything. A writer's
/// cached file size is trusted only while it is no more than the base commit counts: a
/// process that finds its commit counting fewer pages than the size it saw asks the file
/// again before it extends it. `StorageOptions.compactsAutomatically` runs a vacuum after a
/// commit that leaves a file of 1 MiB or more over 40% free (ready or pending).
///
/// # The commit log
///
/// A commit's pages are scattered over the data file, and on a virtual disk each separate run
/// costs a request of its own at `fdatasync` (`Benchmarks/RESULTS.md`, "Small durable
/// commits: the commit log"). So a small durable commit (at most
/// `CommitLog.largestRecord`, on a durable base, nothing written early; a vacuum's round only
/// when the log need not grow for it) still writes its pages and meta in place, where every
/// reader finds them through the page cache, but makes durable only the log, to which it
/// appends the same writes as one record in one direct write (`O_DIRECT | O_DSYNC`) where the
/// file system allows. The data file is synced when the log fills (a checkpoint), and pages
/// that many commits rewrote go out once.
///
/// Only a machine crash loses page-cache writes, so only the first open after a reboot replays
/// the log: it rewrites every whole record into the data file, in order, syncs it, and starts
/// a new generation. Replaying repeats exactly the writes the commits made, so pages a later
/// commit reused end with their newest bytes. A record whose data tore replays garbage only
/// into pages its commit allocated (free before it) and into its own meta slot: recovery's
/// check then rejects that commit.
///
/// The invariant that makes replay safe: the log only ever holds commits made on top of the
/// data file as last synced. Whatever else syncs the data file (a large durable commit,
/// `Storage.sync()`, a writer's first sync, an encryption epoch bump) is a checkpoint that
/// restarts the log before the writer lock is released, and a no-sync commit empties a log
/// that holds records before it writes. The log's header names the data file (its store id)
/// and the commit its generation follows: replay refuses records for another file put at the
/// store's path (a compacted copy, an older or newer copy), and a writer restarts any
/// generation whose header does not name its store before it appends. A `Storage` that
/// appended checkpoints when it is released, so a clean shutdown leaves the log empty.
///
/// A page copied from one that an earlier record of the same generation wrote is logged as a
/// `PageDelta` (the byte runs in which it differs): replay goes in order, so it has rewritten
/// the source by then, and nothing changes the source before this commit frees it. Pages
/// older than the generation are logged whole: a later commit may reuse them in place before a
/// crash, and no record could put them back (the crash simulations fail if older sources
/// are allowed). Encrypted stores log whole pages.
///
/// ```
/// header (page 0):  0 magic "TROVELOG"   8 version u32, pad u32   16 generation u64 (random)
///                   24 store id u64 (the data file's meta's)
///                   32 base txnid u64 (the data file held this commit, synced, at the restart)
///                   40 checksum u64: XXH64 of bytes 0..<40
///                   (version 1 had its checksum at 24, and no store id or base; version 2,
///                   the same layout as 3, had no deltas)
/// record:           0 magic u32 "RCRD"    4 extent count u32      8 generation u64
///                   16 txnid u64          24 data bytes u64
///                   32 data file size the commit needs u64 (replay grows the file that far)
///                   40 checksum u64: XXH64 of bytes 0..<40 seeded with the generation, xor
///                      XXH64 of the extent table seeded with its complement
///                   48 extent table: (file offset u64, length u64) per extent; then the data
/// ```
/// An extent whose length has its top bit set is a `PageDelta`. Records start at 4096 and
/// follow each other back to back; the first one that fails its checksum, or belongs to
/// another generation, ends the log.
///
/// The log is sized by use: a new one is 64 KiB (`CommitLog.initialSize`); a record that would
/// run past its end first doubles it (zeros written ahead of the record, so that appends
/// rarely grow the file, which makes their sync write the inode too), up to 4 MiB
/// (`CommitLog.capacity`), and a record that would run past that is a checkpoint. The last
/// process to close the store cleanly (the one that can take the lock file's init lock
/// exclusively, without waiting: every other opener holds it shared) checkpoints and cuts the
/// log back to 64 KiB, holding that lock until it has closed, so no process opens the store
/// meanwhile. A store that commits little so never carries a large log; a crash leaves the log
/// as it was, and the next open in a new boot replays it as always.
///
/// # Changing the key
///
/// `Storage.changeEncryptionKey(path:options:to:)` replaces the data file by a copy with the
/// new key (or none), in steps (`KeyChangeStep`) after each of which the path opens with
/// exactly one of the two keys and verifies:
/// 1. With the old key, it takes the init lock exclusively without waiting (so no other
///    process has the store open, and none opens it until this one closes), then the writer
///    lock, and checkpoints: the data file is synced and the log holds no records.
/// 2. It writes a compacted copy with the new key to `PATH-rekey` (every page, then both
///    metas, synced), and verifies every page of it with the new key.
/// 3. It cuts the log back and restarts it naming the copy's store id and commit. The log
///    has no records, so either file may meet it: replay checks only records.
/// 4. It renames the copy over `PATH` (atomic), updates the lock file's current txnid and
///    complete-commit record for the copy, and
/// 5. syncs the directory, which makes the rename durable.
/// A crash before step 4 leaves the old file (and perhaps a `PATH-rekey`, which the next
/// change removes); after it, the new one. An opener that opened the old file and then waited
/// for the init lock finds that the path names another file, and opens that one.
///
/// # The lock file
///
/// ```
/// 0  magic u64 "TROVELK4"     8  version u32, slots u32     16 current txnid (atomic)
/// 24 complete txnid u64     32 its commit digest u64     40 announcement u64
/// 48 boot id of the processes that wrote the complete txnid (16 bytes)
/// 64 commit log generation u64     72 commit log end u64 (0: the log must restart first)
/// 80 pid of the process holding the writer lock u64 (0: none; for waiting writers' messages)
/// 128 + 64*i: slot i: txnid (atomic; 0 = idle) u64, pid u64, start time (ns) u64
/// ```
/// A reader publishes the snapshot it reads in a slot; the writer never reuses a page the
/// oldest published snapshot can see. Liveness comes from open-file-description byte locks
/// past the end of the file, which the kernel drops when a process dies: `initLock`
/// (exclusive while the first opener resets the table and runs recovery, shared by every
/// opener afterwards), `writerLock`, `liveLock` (shared by every opener that has finished
/// opening, taken before the first opener lets the init lock go), and one per reader slot. An
/// opener that waited for the init lock trusts the table only if some other opener holds
/// `liveLock`: a first opener that failed, or was killed, before or after it reset the table,
/// holds none, and the opener that waited tries to be first in its place (backing off, 50 µs
/// doubling to 10 ms, while other such openers hold the init lock shared). A writer waits for
/// `writerLock` in the kernel (`F_OFD_SETLKW`), or, with a busy timeout or a notice to give,
/// polls it with back-off (50 µs doubling to 4 ms) until its deadline; it records its pid at
/// offset 80 once it holds the lock and clears it before letting go. An opener unlocks every
/// byte before it closes the lock file: a process forked meanwhile shares the open file
/// description, and with it the locks, until it execs. The log's generation and end are
/// set to 0 while a record or a restart is under way, so a writer killed mid-append makes the
/// next one restart the log. Commits are announced by a `pwrite` of the txnid at offset 40,
/// which other processes watch with inotify.
enum StorageProtocol {}
