import Foundation
import Trove
import TrovePostgres

// Trove's PostgreSQL backend against the same SQL sent straight through libpq, in one run on
// one server: what the translation (parsing, SQL generation, binding, reading rows back as
// values) costs on top of the server's own work.
//
//   PostgresBench URL [N] [--shell PATH] [--only TEXT]
//
// Both sides work on identical tables (PostgresStore creates both, in two PostgreSQL schemas
// of their own), in transactions of the same isolation, each workload in pieces that take
// turns on the two sides (see `measure`). With --shell, the `trove`
// shell is also timed against `psql`: an import of the N people from one CSV file (`import`
// against `\copy`), then one-shot processes asking the same questions.

let arguments = CommandLine.arguments.dropFirst()
guard let url = arguments.first, PostgresConnection.isURL(url) else {
    print("usage: PostgresBench postgres://USER@HOST/DB [N] [--shell PATH] [--only TEXT]")
    exit(2)
}
let n = arguments.dropFirst().first.flatMap { Int($0) } ?? 100_000
/// `--only TEXT` runs only the workloads whose names hold TEXT (with the shell's, `--shell`'s).
let only = arguments.firstIndex(of: "--only").flatMap { arguments.index(after: $0) < arguments.endIndex ? arguments[arguments.index(after: $0)] : nil }
let shell = arguments.firstIndex(of: "--shell").flatMap { arguments.index(after: $0) < arguments.endIndex ? arguments[arguments.index(after: $0)] : nil }

let schema = try Schema(jsonData: Array(#"""
    {"models": [{"name": "Person", "primaryKey": "id", "properties": {
      "id": "int", "name": {"type": "string", "indexed": true}, "age": {"type": "int", "indexed": true}, "score": "double"}}]}
    """#.utf8), fileName: "bench")

/// A URL whose connections work in a fresh PostgreSQL schema `name`.
func schemaURL(_ name: String) throws -> String {
    let admin = try PostgresConnection(url: url)
    try admin.execute("DROP SCHEMA IF EXISTS \(name) CASCADE")
    try admin.execute("CREATE SCHEMA \(name)")
    return PostgresConnection.url(url, options: "-csearch_path=\(name)")
}

let troveURL = try schemaURL("bench_trove"), rawURL = try schemaURL("bench_raw")
let store = try PostgresStore(url: troveURL, schema: schema)
// The raw side's tables are made the same way (same columns, indexes and NOTIFY triggers).
let raw = try PostgresStore(url: rawURL, schema: schema).connection

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func time(_ body: () throws -> Void) rethrows -> Double {
    let start = now()
    try body()
    return now() - start
}

func person(_ i: Int) -> (id: Int64, name: String, age: Int64, score: Double) {
    (Int64(i), "name\(i % 5_000)", Int64(i % 90), Double(i % 1_000) / 8)
}

/// What a libpq program does with the rows it asked for: each column read as the value it
/// holds, as Trove reads each into a `Value`.
@discardableResult
func people(_ rows: PostgresRows) -> [(id: Int64, name: String, age: Int64, score: Double)] {
    rows.rows.map { (Int64($0[0]!)!, $0[1]!, Int64($0[2]!)!, Double($0[3]!)!) }
}

struct Row {
    var workload: String
    var trove: Double
    var raw: Double
}
var rows: [Row] = []

/// Times both sides of a workload made of `pieces` pieces (`trove(i)` and `raw(i)` each do
/// piece i): the sides take turns piece by piece, each going first in every other pair, so
/// that both run under the same load of the shared machine and the same state of the server;
/// each side's time is the sum of its pieces'. `start` and `end` (a transaction's `BEGIN` and
/// `COMMIT`) are timed on their side too; `prepare` runs, untimed, before each pair.
@MainActor func measure(_ workload: String, pieces: Int,
                        trove: (Int) throws -> Void, raw: (Int) throws -> Void,
                        start: (trove: () throws -> Void, raw: () throws -> Void)? = nil,
                        end: (trove: () throws -> Void, raw: () throws -> Void)? = nil,
                        eachPair prepare: (() throws -> Void)? = nil) throws {
    if let only, !workload.contains(only) { return }
    var t = 0.0, r = 0.0
    if let start {
        t += try time(start.trove)
        r += try time(start.raw)
    }
    for piece in 0..<pieces {
        try prepare?()
        if piece % 2 == 0 {
            t += try time { try trove(piece) }
            r += try time { try raw(piece) }
        } else {
            r += try time { try raw(piece) }
            t += try time { try trove(piece) }
        }
    }
    if let end {
        t += try time(end.trove)
        r += try time(end.raw)
    }
    rows.append(Row(workload: workload, trove: t, raw: r))
    print(String(format: "%-58@ %9.3f s %9.3f s %6.2fx", workload as NSString, t, r, t / r))
}

/// The pieces of a transaction of N objects on both sides, open at once: Trove's is
/// `begin()` with each piece an `atomically` unit (a savepoint), the libpq side's the same
/// isolation (serializable, as a store's transactions are) with a savepoint per piece.
@MainActor func measureTransaction(_ workload: String, trove troveSide: (ClosedRange<Int>) throws -> Void,
                                   raw rawSide: (ClosedRange<Int>) throws -> Void) throws {
    let pieces = 10
    func range(_ piece: Int) -> ClosedRange<Int> { (piece * n / pieces + 1)...((piece + 1) * n / pieces) }
    try measure(workload, pieces: pieces, trove: { piece in
        try store.atomically { try troveSide(range(piece)) }
    }, raw: { piece in
        try raw.execute("SAVEPOINT piece")
        try rawSide(range(piece))
        try raw.execute("RELEASE SAVEPOINT piece")
    }, start: ({ try store.begin() }, { try raw.execute("BEGIN ISOLATION LEVEL SERIALIZABLE") }),
       end: ({ try store.commit() }, { try raw.execute("COMMIT") }))
}

print("PostgresBench: N = \(n)")
print(String(format: "%-58@ %11@ %11@ %7@", "workload" as NSString, "trove" as NSString, "libpq" as NSString, "ratio" as NSString))

try measureTransaction("insert N objects, one transaction (insert/import's unit)", trove: { range in
    for i in range {
        let p = person(i)
        try store.insert("Person", ["id": .int(p.id), "name": .string(p.name), "age": .int(p.age), "score": .double(p.score)])
    }
}, raw: { range in
    for i in range {
        let p = person(i)
        try raw.execute(#"INSERT INTO "Person" ("id", "name", "age", "score") VALUES ($1::bigint, $2::text, $3::bigint, $4::double precision)"#,
                        [String(p.id), p.name, String(p.age), String(p.score)])
    }
})
try store.connection.execute(#"ANALYZE "Person""#)
try raw.execute(#"ANALYZE "Person""#)

// The repeated workloads: 20 pieces a side.
let pieces = 20
let lookups = min(n, 20_000)
try measure("get by primary key x\(lookups)", pieces: pieces, trove: { piece in
    for i in stride(from: piece, to: lookups, by: pieces) {
        _ = try store.objects("Person where id == $0", arguments: [.int(Int64(i * 7919 % n + 1))])
    }
}, raw: { piece in
    for i in stride(from: piece, to: lookups, by: pieces) {
        people(try raw.execute(#"SELECT "id", "name", "age", "score" FROM "Person" WHERE "id" = $1::bigint"#, [String(i * 7919 % n + 1)]))
    }
})

let pages = 2_000
try measure("indexed equality, SORT, LIMIT(20) x\(pages)", pieces: pieces, trove: { piece in
    for i in stride(from: piece, to: pages, by: pieces) {
        _ = try store.objects("Person where age == $0 SORT(id) LIMIT(20)", arguments: [.int(Int64(i % 90))])
    }
}, raw: { piece in
    for i in stride(from: piece, to: pages, by: pieces) {
        people(try raw.execute(#"SELECT "id", "name", "age", "score" FROM "Person" WHERE "age" = $1::bigint ORDER BY "id" LIMIT 20"#, [String(i % 90)]))
    }
})

let counts = 200
try measure("count on an indexed range x\(counts)", pieces: pieces, trove: { piece in
    for i in stride(from: piece, to: counts, by: pieces) {
        _ = try store.count("Person", where: "age > $0", arguments: [.int(Int64(i % 90))])
    }
}, raw: { piece in
    for i in stride(from: piece, to: counts, by: pieces) {
        _ = try raw.execute(#"SELECT count(*) FROM "Person" WHERE "age" > $1::bigint"#, [String(i % 90)])
    }
})

let scans = 20
try measure("no index: score > x SORT(score DESC) LIMIT(100) x\(scans)", pieces: scans, trove: { i in
    _ = try store.objects("Person where score > $0 SORT(score DESC) LIMIT(100)", arguments: [.double(Double(i))])
}, raw: { i in
    // The store's answer: NaN above no number (PostgreSQL orders it above all), equal
    // scores in the order the objects were saved.
    people(try raw.execute(#"SELECT "id", "name", "age", "score" FROM "Person" WHERE "score" > $1::double precision AND "score" <> 'NaN' ORDER BY "score" DESC, "@key" LIMIT 100"#,
                           [String(Double(i))]))
})

try measure("GROUP(age) SELECT(age, @count, @avg.score) x\(scans)", pieces: scans, trove: { _ in
    _ = try store.run("Person GROUP(age) SELECT(age, @count, @avg.score)")
}, raw: { _ in
    _ = try raw.execute(#"SELECT "age", count(*), avg("score") FROM "Person" GROUP BY "age" ORDER BY "age" ASC NULLS FIRST"#)
})

try measure("sum Person.score where age < 45 x\(scans)", pieces: scans, trove: { _ in
    _ = try store.run("sum Person.score where age < 45")
}, raw: { _ in
    // 45 bound, as Trove binds every value of a query's text.
    _ = try raw.execute(#"SELECT COALESCE(sum("score"), 0) FROM "Person" WHERE "age" < $1::bigint"#, ["45"])
})

let updates = 90
try measure("update where age == x set score (~N/90 each) x\(updates)", pieces: updates, trove: { i in
    try store.update("Person", where: "age == $0", arguments: [.int(Int64(i))], set: ["score": .double(1.5)])
}, raw: { i in
    try raw.execute(#"UPDATE "Person" SET "score" = $1::double precision WHERE "age" = $2::bigint"#, ["1.5", String(i)])
})

try measureTransaction("delete N objects by primary key, one transaction", trove: { range in
    _ = try store.delete("Person", primaryKeys: range.map { .int(Int64($0)) })
}, raw: { range in
    for i in range { try raw.execute(#"DELETE FROM "Person" WHERE "id" = $1::bigint"#, [String(i)]) }
})

try measureTransaction("import N objects by COPY, one transaction (import's path)", trove: { range in
    let bulk = try PostgresBulkInsert(store: store, model: "Person")
    for i in range {
        let p = person(i)
        _ = try bulk.add(["id": .int(p.id), "name": .string(p.name), "age": .int(p.age), "score": .double(p.score)], at: .record(i))
    }
    try bulk.flush()
}, raw: { range in
    var data: [UInt8] = []
    for i in range {
        let p = person(i)
        data += Array("\(p.id),\"\(p.name)\",\(p.age),\(p.score)\n".utf8)
    }
    try raw.copy(#"COPY "Person" ("id", "name", "age", "score") FROM STDIN (FORMAT csv)"#, data: data)
})
try store.delete("Person", where: nil)
try raw.execute(#"DELETE FROM "Person""#)

if let shell {
    // One-shot processes: the shell's start, connection and statement against psql's.
    func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PostgresError("\(executable) exited with \(process.terminationStatus)") }
    }
    let psql = ["/usr/bin/psql", "/usr/lib/postgresql/15/bin/psql"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "psql"
    // The same N people as CSV for both shells: `import ... AS CSV` (COPY) against psql's `\copy`.
    let csv = FileManager.default.temporaryDirectory.appendingPathComponent("postgresbench-\(getpid()).csv").path
    defer { try? FileManager.default.removeItem(atPath: csv) }
    var text = "id,name,age,score\n"
    for i in 1...n {
        let p = person(i)
        text += "\(p.id),\(p.name),\(p.age),\(p.score)\n"
    }
    try text.write(toFile: csv, atomically: false, encoding: .utf8)
    let imports = 5
    try measure("shell: import N people from CSV, 1 process (trove vs psql \\copy) x\(imports)", pieces: imports, trove: { _ in
        try run(shell, [troveURL, "import Person \(csv) AS CSV"])
    }, raw: { _ in
        try run(psql, [rawURL, "-qc", #"\copy "Person" ("id", "name", "age", "score") FROM '"# + csv + "' (FORMAT csv, HEADER true)"])
    }, eachPair: {
        try store.connection.execute(#"TRUNCATE "Person""#)
        try raw.execute(#"TRUNCATE "Person""#)
    })
    if try store.count("Person") == 0 {
        // `--only` left the import out: the one-shots' rows go in by COPY.
        let copy = #"COPY "Person" ("id", "name", "age", "score") FROM STDIN (FORMAT csv, HEADER true)"#
        _ = try store.connection.copy(copy, data: Array(text.utf8))
        _ = try raw.copy(copy, data: Array(text.utf8))
    }
    guard try store.count("Person") == n, try raw.execute(#"SELECT count(*) FROM "Person""#).rows == [[String(n)]] else {
        throw PostgresError("the shells imported other rows than the \(n) people")
    }
    try store.connection.execute(#"ANALYZE "Person""#)
    try raw.execute(#"ANALYZE "Person""#)
    // One-shot processes: the shell's start, connection and statement against psql's.
    let processes = 50
    let oneShots: [(String, String, String)] = [
        // Strings compare by their NFC forms, as on a store: the SQL Trove sends, on the index it makes.
        ("count, index: name == x", "count Person where name == 'name42'", #"SELECT count(*) FROM "Person" WHERE normalize("name", NFC) = 'name42'"#),
        ("count, index range: age > 30", "count Person where age > 30", #"SELECT count(*) FROM "Person" WHERE "age" > 30"#),
        ("page: age == 30 SORT(id) LIMIT(20)", "Person where age == 30 SORT(id) LIMIT(20)",
         #"SELECT "id", "name", "age", "score" FROM "Person" WHERE "age" = 30 ORDER BY "id" LIMIT 20"#),
    ]
    for (name, statement, sql) in oneShots {
        try measure("shell one-shot \(name), x\(processes)", pieces: processes, trove: { _ in
            try run(shell, [troveURL, statement])
        }, raw: { _ in
            try run(psql, [rawURL, "-Atc", sql])
        })
    }
}

let apiRows = rows.filter { !$0.workload.hasPrefix("shell") }
if !apiRows.isEmpty {
    let geometric = exp(apiRows.map { log($0.trove / $0.raw) }.reduce(0, +) / Double(apiRows.count))
    print(String(format: "geometric mean of the API ratios: %.2fx", geometric))
}
