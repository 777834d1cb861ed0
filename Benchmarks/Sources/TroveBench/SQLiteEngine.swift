import BenchSupport
import CSQLite

/// SQLite through its C API: a `WITHOUT ROWID` key-value table, prepared statements,
/// `journal_mode=WAL` with `synchronous=FULL` (every commit is fsynced, as in the other two),
/// and a 1 GiB page cache so that, like the mmap-based engines, it reads from memory.
final class SQLiteEngine: Engine {
    static let name = "SQLite"
    private let path: String
    private var db: OpaquePointer?
    private var insertStatement: OpaquePointer?
    private var selectStatement: OpaquePointer?
    private var scanStatement: OpaquePointer?
    private var deleteStatement: OpaquePointer?

    init(directory: String, settings: EngineSettings) throws {
        path = directory + "/bench.sqlite"
        try check(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil), "open")
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
        try execute("PRAGMA cache_size=-1048576")
        try execute("CREATE TABLE kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID")
        insertStatement = try prepare("INSERT INTO kv(k, v) VALUES (?1, ?2)")
        selectStatement = try prepare("SELECT v FROM kv WHERE k = ?1")
        scanStatement = try prepare("SELECT k, v FROM kv WHERE k >= ?1 ORDER BY k LIMIT ?2")
        deleteStatement = try prepare("DELETE FROM kv WHERE k = ?1")
    }

    private func check(_ rc: Int32, _ what: String) throws { try SQLiteCalls.check(db, rc, what) }

    private func execute(_ sql: String) throws { try SQLiteCalls.execute(db, sql) }

    private func prepare(_ sql: String) throws -> OpaquePointer? {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil), sql)
        return statement
    }

    /// Binds a blob without copying (SQLITE_STATIC: the dataset outlives the statement's use).
    private func bind(_ statement: OpaquePointer?, _ index: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        try check(sqlite3_bind_blob(statement, index, bytes.baseAddress, Int32(bytes.count), nil), "bind")
    }

    private func transaction<R>(_ begin: String, _ body: () throws -> R) throws -> R {
        try SQLiteCalls.transaction(db, begin, body)
    }

    func insert(_ data: Dataset, _ indices: Range<Int>) throws {
        try transaction("BEGIN IMMEDIATE") {
            for i in indices {
                try bind(insertStatement, 1, data.key(i))
                try bind(insertStatement, 2, data.value(i))
                try check(sqlite3_step(insertStatement), "insert")
                sqlite3_reset(insertStatement)
            }
        }
    }

    func read(_ data: Dataset, keys: [Int]) throws -> UInt64 {
        try transaction("BEGIN") {
            var sum: UInt64 = 0
            for i in keys {
                try bind(selectStatement, 1, data.key(i))
                guard sqlite3_step(selectStatement) == SQLITE_ROW else {
                    sqlite3_reset(selectStatement)
                    throw BenchError("SQLite: key \(i) not found")
                }
                let value = UnsafeRawBufferPointer(start: sqlite3_column_blob(selectStatement, 0),
                                                   count: Int(sqlite3_column_bytes(selectStatement, 0)))
                Dataset.fold(value, into: &sum)
                sqlite3_reset(selectStatement)
            }
            return sum
        }
    }

    func scan(_ data: Dataset, starts: [Int], length: Int) throws -> (checksum: UInt64, entries: Int) {
        try transaction("BEGIN") {
            var sum: UInt64 = 0
            var entries = 0
            try check(sqlite3_bind_int(scanStatement, 2, Int32(length)), "bind")
            for i in starts {
                try bind(scanStatement, 1, data.key(i))
                while sqlite3_step(scanStatement) == SQLITE_ROW {
                    let value = UnsafeRawBufferPointer(start: sqlite3_column_blob(scanStatement, 1),
                                                       count: Int(sqlite3_column_bytes(scanStatement, 1)))
                    Dataset.fold(value, into: &sum)
                    entries += 1
                }
                sqlite3_reset(scanStatement)
            }
            return (sum, entries)
        }
    }

    func remove(_ data: Dataset, _ indices: Range<Int>) throws -> Int {
        try transaction("BEGIN IMMEDIATE") {
            var removed = 0
            for i in indices {
                try bind(deleteStatement, 1, data.key(i))
                try check(sqlite3_step(deleteStatement), "delete")
                removed += Int(sqlite3_changes(db))
                sqlite3_reset(deleteStatement)
            }
            return removed
        }
    }

    func fileSize() throws -> UInt64 {
        try FileSize.of([path, path + "-wal"])
    }

    func close() {
        for statement in [insertStatement, selectStatement, scanStatement, deleteStatement] {
            sqlite3_finalize(statement)
        }
        insertStatement = nil; selectStatement = nil; scanStatement = nil; deleteStatement = nil
        if db != nil { sqlite3_close_v2(db) }
        db = nil
    }

    deinit { close() }
}
