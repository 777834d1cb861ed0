import BenchSupport
import Foundation

/// The `trove` shell against the `sqlite3` CLI, each as a separate process, as a user would
/// run them: `import` of N users (JSON lines vs the same rows as CSV with `.import`), one-shot
/// counts, and one-shot questions (aggregates, groups, a projected page) on the sales, whose
/// answers must match. Skipped, with a note, when the shell has no object store wired in yet.
struct ShellBench {
    let trove: String
    let data: ObjectDataset
    let sales: SalesDataset
    let n: Int
    let directory: String
    let durable: Bool

    struct Outcome { var status: Int32; var stdout: String; var stderr: String; var wall: Double }

    /// Runs `executable` with `arguments` (standard input from `input` when given), its output
    /// going to files read once it exits. `posix_spawn` and `waitpid` rather than `Process`,
    /// which costs tens of milliseconds per launch here: timing a millisecond command through it
    /// would measure mostly the harness.
    static func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> Outcome {
        let outPath = NSTemporaryDirectory() + "objbench-\(getpid())-out", errPath = outPath + "-err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let t0 = Measure.monotonic()
        let rc = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard rc == 0 else { throw BenchError("posix_spawn \(executable): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let wall = Measure.monotonic() - t0
        defer { unlink(outPath); unlink(errPath) }
        let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        // Exit status as the shell reports it: the code, or 128 + the signal.
        let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Outcome(status: exit, stdout: stdout, stderr: stderr, wall: wall)
    }

    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    func write(_ text: String, to name: String) throws -> String {
        let path = "\(directory)/\(name)"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    static let oneShotRuns = 21

    func run() throws {
        print("Shell: `trove` vs `sqlite3`, one process per command")
        print("")
        guard let sqlite3 = Self.which("sqlite3") else { print("skipped: no sqlite3 on PATH"); return }
        let schema = try write(TroveObjectEngine.schemaJSON, to: "schema.json")
        let troveDB = "\(directory)/shell.trove", sqliteDB = "\(directory)/shell.sqlite"

        let probe = try Self.run(trove, ["--schema", schema, troveDB, "count Team"])
        guard probe.status == 0 else {
            print("skipped: `\(trove) --schema schema.json DB 'count Team'` exited \(probe.status): "
                + probe.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
            print("(--shell takes a trove that opens stores: `make -C Benchmarks trove-shell` builds one)")
            return
        }

        let iso = ISO8601DateFormatter()
        var jsonl = "", csv = "", teamsJSONL = "", teamsCSV = ""
        for i in 0..<ObjectDataset.teamCount {
            teamsJSONL += "{\"id\":\"\(data.teamIDs[i])\",\"name\":\"\(data.teamNames[i])\"}\n"
            teamsCSV += "\(data.teamIDs[i]),\(data.teamNames[i])\n"
        }
        for u in data.users.prefix(n) {
            let date = iso.string(from: Date(timeIntervalSinceReferenceDate: u.signedUpAt))
            let email = u.email.map { "\"\($0)\"" } ?? "null"
            jsonl += "{\"uid\":\"\(u.uid)\",\"name\":\"\(u.name)\",\"age\":\(u.age),\"score\":\(u.score),\"signedUpAt\":\"\(date)\",\"email\":\(email),\"team\":\"\(data.teamIDs[u.team])\"}\n"
            csv += "\(u.uid),\(u.name),\(u.age),\(u.score),\(u.signedUpAt),\(u.email ?? ""),\(data.teamIDs[u.team])\n"
        }
        let usersJSONL = try write(jsonl, to: "users.jsonl"), usersCSV = try write(csv, to: "users.csv")
        let teamsJ = try write(teamsJSONL, to: "teams.jsonl"), teamsC = try write(teamsCSV, to: "teams.csv")
        jsonl = ""; csv = ""

        func check(_ o: Outcome, _ what: String) throws -> Outcome {
            guard o.status == 0 else { throw BenchError("\(what) exited \(o.status): \(o.stderr)") }
            return o
        }
        // Setup (not timed): the teams, and SQLite's schema in WAL mode.
        _ = try check(Self.run(trove, ["--schema", schema, troveDB, "import Team \(teamsJ)"]), "trove import Team")
        let pragmas = "PRAGMA foreign_keys=ON;\nPRAGMA synchronous=\(durable ? "FULL" : "OFF");\n"
        let setup = try write("PRAGMA journal_mode=WAL;\n" + sqliteSchema + "\n" + pragmas + ".mode csv\n.import \(teamsC) team\n", to: "setup.sql")
        _ = try check(Self.run(sqlite3, [sqliteDB], input: setup), "sqlite3 setup")

        let troveImport = try check(Self.run(trove, ["--schema", schema, troveDB, "import User \(usersJSONL)"]), "trove import User")
        let importScript = try write(pragmas + ".mode csv\n.import \(usersCSV) user\n", to: "import.sql")
        let sqliteImport = try check(Self.run(sqlite3, [sqliteDB], input: importScript), "sqlite3 .import")

        // Setup of the questions (not timed): the sales, imported the same way, with SQLite's
        // empty amounts (`.import` reads them as '') made null.
        var salesJSONL = "", salesCSV = ""
        for sale in sales.sales {
            salesJSONL += "{\"id\":\(sale.id),\"region\":\"\(sale.region)\",\"amount\":\(sale.amount.map(String.init) ?? "null"),"
                + "\"price\":\(sale.price),\"channel\":\"\(sale.channel)\"}\n"
            salesCSV += "\(sale.id),\(sale.region),\(sale.amount.map(String.init) ?? ""),\(sale.price),\(sale.channel)\n"
        }
        let salesJ = try write(salesJSONL, to: "sales.jsonl"), salesC = try write(salesCSV, to: "sales.csv")
        salesJSONL = ""; salesCSV = ""
        _ = try check(Self.run(trove, ["--schema", schema, troveDB, "import Sale \(salesJ)"]), "trove import Sale")
        let salesScript = try write(pragmas + ".mode csv\n.import \(salesC) sale\nUPDATE sale SET amount = NULL WHERE amount = '';\n", to: "sales.sql")
        _ = try check(Self.run(sqlite3, [sqliteDB], input: salesScript), "sqlite3 .import sale")

        let predicate = "age >= 30 AND age < 40 AND score > 50.0"
        let name = data.users[n / 2].name
        let region = sales.regions[7]
        var rows: [[String]] = [[
            "import \(n.grouped) users (JSON lines / CSV), 1 process",
            formatTime(troveImport.wall), formatTime(sqliteImport.wall), String(format: "%.2fx", troveImport.wall / sqliteImport.wall),
        ]]
        // Counts print a bare integer in both shells' default modes; the questions run in csv
        // mode in both (trove's header line dropped), their numbers compared to 9 digits.
        for (label, troveStatement, sql, csv) in [
            ("one-shot count, scan: \(predicate)", "count User where \(predicate)", "select count(*) from user where \(predicate)", false),
            ("one-shot count, index: name == '\(name)'", "count User where name == '\(name)'", "select count(*) from user where name = '\(name)'", false),
            ("one-shot sum Sale.price where price > 50.0 (scan)", "sum Sale.price where price > 50.0",
             "select sum(price) from sale where price > 50.0", true),
            ("one-shot avg Sale.amount where region == '\(region)' (index)", "avg Sale.amount where region == '\(region)'",
             "select avg(amount) from sale where region = '\(region)'", true),
            ("one-shot GROUP(region) on an index, @count, @sum, @max", "Sale GROUP(region) SELECT(region, @count, @sum.amount, @max.amount)",
             "select region, count(*), sum(amount), max(amount) from sale group by region order by region", true),
            ("one-shot GROUP(channel), no index, @count, @sum, @max", "Sale GROUP(channel) SELECT(channel, @count, @sum.amount, @max.amount)",
             "select channel, count(*), sum(amount), max(amount) from sale group by channel order by channel", true),
            ("one-shot page: SORT(id) OFFSET(500) LIMIT(20) SELECT(region, amount)", "Sale SORT(id) OFFSET(500) LIMIT(20) SELECT(region, amount)",
             "select region, amount from sale order by id limit 20 offset 500", true),
        ] {
            var troveTimes: [Double] = [], sqliteTimes: [Double] = []
            var answers: Set<String> = []
            // One-shot commands take a few milliseconds, so one slow spawn moves a short median:
            // 21 alternating runs of each.
            for _ in 0..<Self.oneShotRuns {
                let t = try check(Self.run(trove, csv ? [troveDB, "--csv", troveStatement] : [troveDB, troveStatement]), "trove \(troveStatement)")
                let s = try check(Self.run(sqlite3, csv ? ["-csv", sqliteDB, sql] : [sqliteDB, sql]), "sqlite3 \(sql)")
                troveTimes.append(t.wall); sqliteTimes.append(s.wall)
                let rows = troveStatement.contains("SELECT(")
                answers.insert(Self.answer(t.stdout, droppingHeader: rows))
                answers.insert(Self.answer(s.stdout, droppingHeader: false))
            }
            guard answers.count == 1 else { throw BenchError("\(label): the shells disagree: \(answers)") }
            let t = troveTimes.sorted()[Self.oneShotRuns / 2], s = sqliteTimes.sorted()[Self.oneShotRuns / 2]
            rows.append([label + " (median of \(Self.oneShotRuns))", formatTime(t), formatTime(s), String(format: "%.2fx", t / s)])
        }
        print(renderTable(["shell workload", "trove", "sqlite3", "trove/sqlite3"], rows))
        print("")
        print("sqlite3 imports CSV (a missing email becomes ''), trove imports JSON lines with ISO 8601 dates; both in one transaction.")
        print("The sales (\(sales.sales.count.grouped)) are imported the same way before the questions; each question's answers match.")
    }

    /// A shell's output as compared between the shells: lines of comma-separated fields, a
    /// fractional number to 9 significant digits (the engines add doubles in different orders
    /// and print them differently).
    static func answer(_ output: String, droppingHeader: Bool) -> String {
        // `whereSeparator`: sqlite3's csv ends its lines with "\r\n", one Character in Swift.
        let lines = output.split(whereSeparator: \.isNewline).dropFirst(droppingHeader ? 1 : 0)
        return lines.map { line in
            line.split(separator: ",", omittingEmptySubsequences: false).map { field -> String in
                if Int(field) == nil, let x = Double(field) { return String(format: "%.9g", x) }
                return String(field)
            }.joined(separator: ",")
        }.joined(separator: "\n")
    }
}

/// Trove alone at a scale beyond the comparison: one transaction inserting `users` objects,
/// generated on the fly (not held in memory), then a scan; peak RSS against the file size.
struct ScaleRun {
    let users: Int
    let directory: String
    let durable: Bool

    func run() throws {
        for line in machineLines(dataDirectory: directory) { print(line) }
        print("")
        let seed: UInt64 = 7
        let (_, generation) = Measure.run("generate \(users.grouped) users (no store)", log: log, sampleRSS: true) {
            var sum = 0
            for i in 0..<users { sum &+= ObjectDataset.user(i, seed: seed).name.utf8.count }
            return sum
        }
        let engine = try TroveObjectEngine(directory: directory, durable: durable)
        let data = ObjectDataset(count: 0, seed: seed)
        try engine.insertTeams(data)
        let (_, insert) = try Measure.run("insert \(users.grouped) users, 1 txn", log: log, sampleRSS: true) {
            try engine.insertGenerated(users, seed: seed, teamIDs: data.teamIDs)
        }
        let fileAfterInsert = try engine.fileSize()
        let (count, scan) = try Measure.run("compound predicate scan", log: log, sampleRSS: true) {
            try engine.countCompound(ageFrom: 30, ageBelow: 40, scoreAbove: 50)
        }
        let (total, countAll) = try Measure.run("count", log: log, sampleRSS: true) { try engine.count() }
        engine.close()
        func row(_ label: String, _ s: Sample, _ size: String) -> [String] {
            [label, formatTime(s.wall), formatTime(s.cpu), formatMiB(s.peakKiB), formatMiB(s.rssDeltaKiB),
             formatMiB(s.anonKiB), formatMiB(s.fileKiB), size]
        }
        print(renderTable(["phase (Trove alone)", "wall", "CPU", "peak RSS (VmHWM)", "RSS change", "max RssAnon", "max RssFile", "file size after"], [
            row("generate \(users.grouped) users in memory (no store; part of the insert's cost)", generation, "-"),
            row("insert \(users.grouped) users, 1 \(durable ? "durable" : "no-sync") txn", insert,
                String(format: "%.1f MiB", Double(fileAfterInsert) / 1_048_576)),
            row("compound predicate scan (\(count.grouped) of \(total.grouped) match)", scan, "-"),
            row("count(User)", countAll, "-"),
        ]))
        print("")
        print("max RssAnon / RssFile: the largest values seen by a 50 ms sampler during the phase. RssFile is mostly")
        print("the store's mmap'd file (page cache pages the process touched: shared with the kernel's cache and")
        print("reclaimable under memory pressure) plus the shared libraries; RssAnon is the process's own memory.")
    }
}
