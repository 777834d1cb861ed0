import BenchSupport
import CLMDB

/// LMDB through its C API with default flags: every commit is synced (no MDB_NOSYNC), one
/// unnamed database, a 16 GiB map so no workload runs out of room.
final class LMDBEngine: Engine {
    static let name = "LMDB"
    private let directory: String
    private var env: OpaquePointer?
    private var dbi = MDB_dbi()

    init(directory: String, settings: EngineSettings) throws {
        self.directory = directory
        try LMDBEngine.check(mdb_env_create(&env), "mdb_env_create")
        try LMDBEngine.check(mdb_env_set_mapsize(env, 16 << 30), "mdb_env_set_mapsize")
        try LMDBEngine.check(mdb_env_open(env, directory, 0, 0o644), "mdb_env_open")
        var txn: OpaquePointer?
        try LMDBEngine.check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
        try LMDBEngine.check(mdb_dbi_open(txn, nil, 0, &dbi), "mdb_dbi_open")
        try LMDBEngine.check(mdb_txn_commit(txn), "mdb_txn_commit")
    }

    private static func check(_ rc: Int32, _ call: String) throws {
        if rc != MDB_SUCCESS { throw BenchError("\(call): \(String(cString: mdb_strerror(rc)))") }
    }

    private static func val(_ bytes: UnsafeRawBufferPointer) -> MDB_val {
        MDB_val(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
    }

    /// Runs `body` in a write transaction and commits it; aborts on error.
    private func write<R>(_ body: (OpaquePointer?) throws -> R) throws -> R {
        var txn: OpaquePointer?
        try LMDBEngine.check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
        do {
            let r = try body(txn)
            try LMDBEngine.check(mdb_txn_commit(txn), "mdb_txn_commit")
            return r
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
    }

    private func read<R>(_ body: (OpaquePointer?) throws -> R) throws -> R {
        var txn: OpaquePointer?
        try LMDBEngine.check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin")
        defer { mdb_txn_abort(txn) }
        return try body(txn)
    }

    func insert(_ data: Dataset, _ indices: Range<Int>) throws {
        try write { txn in
            for i in indices {
                var k = LMDBEngine.val(data.key(i))
                var v = LMDBEngine.val(data.value(i))
                try LMDBEngine.check(mdb_put(txn, dbi, &k, &v, 0), "mdb_put")
            }
        }
    }

    func read(_ data: Dataset, keys: [Int]) throws -> UInt64 {
        try read { txn in
            var sum: UInt64 = 0
            var v = MDB_val()
            for i in keys {
                var k = LMDBEngine.val(data.key(i))
                try LMDBEngine.check(mdb_get(txn, dbi, &k, &v), "mdb_get")
                Dataset.fold(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size), into: &sum)
            }
            return sum
        }
    }

    func scan(_ data: Dataset, starts: [Int], length: Int) throws -> (checksum: UInt64, entries: Int) {
        try read { txn in
            var cursor: OpaquePointer?
            try LMDBEngine.check(mdb_cursor_open(txn, dbi, &cursor), "mdb_cursor_open")
            defer { mdb_cursor_close(cursor) }
            var sum: UInt64 = 0
            var entries = 0
            var v = MDB_val()
            for i in starts {
                var k = LMDBEngine.val(data.key(i))
                for n in 0..<length {
                    let rc = mdb_cursor_get(cursor, &k, &v, n == 0 ? MDB_SET_RANGE : MDB_NEXT)
                    if rc == MDB_NOTFOUND { break }
                    try LMDBEngine.check(rc, "mdb_cursor_get")
                    Dataset.fold(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size), into: &sum)
                    entries += 1
                }
            }
            return (sum, entries)
        }
    }

    func remove(_ data: Dataset, _ indices: Range<Int>) throws -> Int {
        try write { txn in
            var removed = 0
            for i in indices {
                var k = LMDBEngine.val(data.key(i))
                let rc = mdb_del(txn, dbi, &k, nil)
                if rc == MDB_NOTFOUND { continue }
                try LMDBEngine.check(rc, "mdb_del")
                removed += 1
            }
            return removed
        }
    }

    func fileSize() throws -> UInt64 {
        try FileSize.of([directory + "/data.mdb"])
    }

    func close() {
        if env != nil { mdb_env_close(env) }
        env = nil
    }

    deinit { close() }
}
