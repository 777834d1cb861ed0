import BenchSupport
import Foundation

let usage = """
    usage: ObjectBench [N] [--quick] [--engines trove,sqlite,grdb] [--dir PATH] [--nosync]
                       [--shell TROVE_BINARY] [--scale M] [--update-rounds R] [--phases NAME,...] [--typed]
                       [--no-auto-vacuum]
      N          users in the bulk insert (default 1,000,000); --quick means N = 100,000
      --engines  which engines to run, in that order (default: trove,sqlite,grdb)
      --dir      parent of the temporary store directory (default /tmp)
      --nosync   commits that don't wait for the disk (Trove .noSync, SQLite synchronous=OFF)
      --shell    also compare the `trove` shell binary with the sqlite3 CLI (import, one-shot counts and questions)
      --phases   run only these phases (bulkInsert, singleInserts, lookups, equality, range, compound,
                 contains, linkPath, top, update, delete, reinserts, vacuum, countWhere, averageWhere,
                 average, extremes, groupCount, group, sumWhere, page, unindexedGroup; players with
                 --typed); the sales are loaded when a question phase (countWhere to unindexedGroup) runs
      --scale M  instead of the comparison: Trove alone, M users inserted in one transaction,
                 then a scan; reports peak RSS against the file size
      --update-rounds R  instead of the comparison: each engine loads N users, then updates every
                 user's score in R transactions; reports the file size after each round
      --no-auto-vacuum  Trove's stores without the automatic vacuum (compactsAutomatically = false)
      --typed    instead of the comparison: Trove's typed API (@Model, #Predicate, where: closures) against its
                 dynamic API, on two stores of N users each; with --phases, the inserts (bulk
                 and single, which fill the stores) and those of its phases named (lookups,
                 equality, compound, contains, top, page: typed SELECT, update), the inserts left
                 out when players is the only one; players: N Player class instances linking
                 one Team instance, in 1 txn and in background writes of 100, against the
                 dynamic API, SQLite's C API and GRDB
    """

func fail(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("ObjectBench: \(message)\n".utf8))
    exit(status)
}

func log(_ line: String) { FileHandle.standardError.write(Data("  \(line)\n".utf8)) }

let allEngines: [String: any ObjectEngine.Type] = [
    "trove": TroveObjectEngine.self, "sqlite": SQLiteObjectEngine.self, "grdb": GRDBObjectEngine.self,
]
var n = 1_000_000
var engineNames = ["trove", "sqlite", "grdb"]
var parent = "/tmp"
var durable = true
var shellBinary: String?
var scale: Int?
var updateRounds: Int?
/// The phases to run; nil runs them all.
var selectedPhases: Set<Phase>?
var typedOnly = false
/// How many times each query phase runs (its fastest run is reported). Declared before the
/// code that runs: top-level values of main.swift are set in order.
let readRepeats = 3
/// How many statements each questions phase runs: per-region queries, whole-model aggregates
/// and groups, and min/max pairs.
let questionQueries = 200
let questionRepeats = 10
let extremeQueries = 1_000
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--quick": n = 100_000
    case "--engines": engineNames = (arguments.popFirst() ?? "").lowercased().split(separator: ",").map(String.init)
    case "--dir": parent = arguments.popFirst() ?? parent
    case "--nosync": durable = false
    case "--shell": shellBinary = arguments.popFirst()
    case "--phases":
        let names = (arguments.popFirst() ?? "").split(separator: ",").map(String.init)
        let phases = names.compactMap { name in Phase.allCases.first { "\($0)" == name } }
        guard !phases.isEmpty, phases.count == names.count else { fail("unknown phase in \(names)\n\(usage)") }
        selectedPhases = Set(phases)
    case "--scale":
        guard let text = arguments.popFirst(), let value = Int(text.replacingOccurrences(of: "_", with: "")), value > 0 else { fail(usage) }
        scale = value
    case "--update-rounds":
        guard let text = arguments.popFirst(), let value = Int(text), value > 0 else { fail(usage) }
        updateRounds = value
    case "--typed": typedOnly = true
    case "--no-auto-vacuum": TroveObjectEngine.compactsAutomatically = false
    case "-h", "--help": print(usage); exit(0)
    default:
        guard let value = Int(argument.replacingOccurrences(of: "_", with: "")), value >= 1_000 else { fail(usage) }
        n = value
    }
}
if !typedOnly, let typedPhases = selectedPhases?.filter({ !$0.isCompared }), !typedPhases.isEmpty {
    fail("\(typedPhases.map { "\($0)" }) runs with --typed only\n\(usage)")
}
guard !engineNames.isEmpty, engineNames.allSatisfy({ allEngines[$0] != nil }) else { fail("unknown engine in \(engineNames)\n\(usage)") }

/// The workloads, in the order they run on each engine (each on the state the previous left).
enum Phase: Int, CaseIterable {
    case bulkInsert, singleInserts, lookups, equality, range, compound, contains, linkPath, top, update, delete, reinserts, vacuum
    case countWhere, averageWhere, average, extremes, groupCount, group, sumWhere, page, unindexedGroup
    /// `--typed` alone: class instances linking one team (``PlayerWrites``).
    case players

    /// Whether the engine comparison runs it (the others are `--typed` phases of their own).
    var isCompared: Bool { self != .players }

    func label(n: Int, ops: Int) -> String {
        switch self {
        case .bulkInsert: "insert \(n.grouped) objects, 1 txn"
        case .singleInserts: "insert 1,000 objects, 1 txn each"
        case .lookups: "\(n.grouped) primary-key lookups, 3 properties read"
        case .equality: "10,000 indexed equality queries (name == x)"
        case .range: "1,000 indexed range queries (name >= x AND name < y)"
        case .compound: "compound predicate, scans all (age, age, score)"
        case .contains: "name CONTAINS[c] 'ari', scans all"
        case .linkPath: "10 link key-path queries (team.name == x)"
        case .top: "top 100 by score (SORT(score DESC) LIMIT(100))"
        case .update: "update score of \(ops.grouped) objects by key, 1 txn"
        case .delete: "delete \(ops.grouped) objects by key, 1 txn"
        case .reinserts: "insert 1,000 deleted objects again, 1 txn each"
        case .vacuum: "explicit vacuum (Trove vacuum(); SQLite VACUUM)"
        case .countWhere: "\(questionQueries) indexed counts (count Sale where region == x)"
        case .averageWhere: "\(questionQueries) avg on an indexed equality (avg Sale.amount where region == x)"
        case .average: "\(questionRepeats) avg of an indexed property (avg Sale.amount)"
        case .extremes: "\(extremeQueries.grouped) min and \(extremeQueries.grouped) max of an indexed property"
        case .groupCount: "\(questionRepeats) GROUP(region) on an index, @count"
        case .group: "\(questionRepeats) GROUP(region) on an index, 3 aggregates"
        case .sumWhere: "\(questionRepeats) sum Sale.price where price > 50.0 (no index)"
        case .page: "\(extremeQueries.grouped) pages: SORT(id) OFFSET(500) LIMIT(20) SELECT(region, amount)"
        case .unindexedGroup: "\(questionRepeats) GROUP(channel), no index, 3 aggregates"
        case .players: "players linking one team, 1 txn and batches of \(PlayerWrites.batch)"
        }
    }
}

/// What one engine returned, compared between engines.
struct Checks: Equatable {
    var lookup: UInt64 = 0
    var equality = 0, range = 0, compound = 0, contains = 0, linkPath = 0
    var top: [String] = []
    var deleted = 0, finalCount = 0
    var questions = QuestionChecks()
}

struct EngineRun {
    var samples: [Sample] = []
    var sizeAfterInsert: UInt64 = 0
    var sizeAfterUpdate: UInt64 = 0
    var sizeAfterDelete: UInt64 = 0
    var sizeAfterVacuum: UInt64 = 0
    var baselineKiB = 0
    var checks = Checks()
}

func machineLines(dataDirectory: String) -> [String] {
    func firstValue(_ file: String, _ key: String) -> String? {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            if let colon = line.firstIndex(of: ":") { return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }
    var uts = utsname()
    uname(&uts)
    let kernel = withUnsafeBytes(of: &uts.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    let memKiB = firstValue("/proc/meminfo", "MemTotal").flatMap { Double($0.split(separator: " ")[0]) } ?? 0
    let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
    return [
        "date:    \(ISO8601DateFormatter().string(from: Date()))",
        "command: \(CommandLine.arguments.joined(separator: " "))",
        "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores (nproc), \(firstValue("/proc/cpuinfo", "model name") ?? "?"), "
            + "\(String(format: "%.1f", memKiB / 1_048_576)) GiB RAM, Linux \(kernel), load average at start \(load)",
        "data:    \(dataDirectory)",
        "peers:   SQLite \(SQLiteObjectEngine.version) (C API and GRDB 7.10.0 both link the system library)",
    ]
}

func makeTemporaryDirectory(in parent: String) throws -> String {
    var template = Array("\(parent)/trove-objbench-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        throw BenchError("cannot create a temporary directory in \(parent)")
    }
    return String(cString: made)
}

do {
    let root = try makeTemporaryDirectory(in: parent)
    defer { try? FileManager.default.removeItem(atPath: root) }
    if let scale {
        try ScaleRun(users: scale, directory: root, durable: durable).run()
    } else if let updateRounds {
        try UpdateRounds(users: n, rounds: updateRounds, engines: engineNames.map { allEngines[$0]! }, directory: root, durable: durable).run()
    } else {
        try runComparison(in: root)
    }
} catch {
    fail("\(error)", status: 1)
}

/// The three engines on every workload, then the tables (and the shell comparison if asked).
@MainActor func runComparison(in root: String) throws {
    for line in machineLines(dataDirectory: root) { print(line) }
    print("durability: \(durable ? "durable commits (Trove .durable, SQLite synchronous=FULL, WAL)" : "no-sync commits (Trove .noSync, SQLite synchronous=OFF, WAL)")")
    print("query phases (equality to top 100): best of \(readRepeats) runs, wall and CPU each; the others run once")
    print("peak RSS: \(Measure.canResetPeak ? "VmHWM per phase, reset at each phase's start (clear_refs 5)" : "VmHWM cannot be reset here: process-wide peak")")
    print("")

    let ops = max(1, n / 10)
    let total = n + 1_000
    log("generating \(total.grouped) users")
    let data = ObjectDataset(count: total, seed: 7)
    var rng = SplitMix64(seed: 11)
    let lookupKeys = (0..<n).map { _ in Int.random(in: 0..<total, using: &rng) }
    let equalityNames = (0..<10_000).map { _ in data.users[Int.random(in: 0..<total, using: &rng)].name }
    // Users whose first name is that of a random user and whose last name starts with the same
    // letter: "Kariba M" ..< "Kariba N", a handful of users each.
    // (Their own generator, so that the other workloads draw what they drew before.)
    var rangeRNG = SplitMix64(seed: 13)
    let nameRanges = (0..<1_000).map { _ -> (lower: String, upper: String) in
        let name = data.users[Int.random(in: 0..<total, using: &rangeRNG)].name
        let space = name.firstIndex(of: " ")!
        let lower = String(name[...name.index(after: space)])
        var upper = Array(lower.utf8)
        upper[upper.count - 1] += 1
        return (lower, String(decoding: upper, as: UTF8.self))
    }
    let teamNames = (0..<10).map { _ in data.teamNames[Int.random(in: 0..<ObjectDataset.teamCount, using: &rng)] }
    var permutation = Array(0..<total)
    permutation.shuffle(using: &rng)
    let updateKeys = Array(permutation[0..<ops])
    let deleteKeys = Array(permutation[ops..<(2 * ops)])
    let reinsertCount = min(1_000, ops)
    let newScore: (Int) -> Double = { Double($0 % 1000) + 0.5 }
    if typedOnly {
        try TypedPhases(n: n, data: data, lookupKeys: lookupKeys, equalityNames: equalityNames, updateKeys: updateKeys,
                        directory: root, durable: durable, phases: selectedPhases).run()
        return
    }
    let questionsRun = shellBinary != nil || selectedPhases?.contains { $0.isCompared && $0.rawValue >= Phase.countWhere.rawValue } ?? true
    if questionsRun { log("generating \(n.grouped) sales") }
    let sales = SalesDataset(count: questionsRun ? n : 0, seed: 17)
    let questionRegions = (0..<questionQueries).map { sales.regions[$0 % SalesDataset.regionCount] }

    var runs: [(name: String, run: EngineRun)] = []
    for name in engineNames {
        let type = allEngines[name]!
        let directory = "\(root)/\(type.name)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        log("\(type.name)")
        var run = EngineRun()
        run.baselineKiB = Measure.status("VmRSS")
        let engine = try type.init(directory: directory, durable: durable)
        try engine.insertTeams(data)
        /// The phase's result, or nil when `--phases` leaves it out.
        @discardableResult
        func phase<R>(_ p: Phase, repeats: Int = 1, _ body: () throws -> R) throws -> R? {
            guard selectedPhases?.contains(p) ?? true else {
                run.samples.append(Sample(wall: 0, cpu: 0, peakKiB: 0, rssDeltaKiB: 0))
                return nil
            }
            var (r, best) = try Measure.run("\(type.name) \(p.label(n: n, ops: ops))", log: log, body)
            // Query phases run again and keep their fastest run: the machine is shared, and a
            // phase of a few milliseconds is easily slowed by someone else's build.
            for _ in 1..<max(1, repeats) {
                let (again, sample) = try Measure.run("\(type.name) \(p.label(n: n, ops: ops)) (again)", log: log, body)
                r = again
                best.wall = min(best.wall, sample.wall)
                best.cpu = min(best.cpu, sample.cpu)
                best.peakKiB = max(best.peakKiB, sample.peakKiB)
                best.anonKiB = max(best.anonKiB, sample.anonKiB)
                best.fileKiB = max(best.fileKiB, sample.fileKiB)
            }
            run.samples.append(best)
            return r
        }
        try phase(.bulkInsert) { try engine.insertUsers(data, 0..<n) }
        run.sizeAfterInsert = try engine.fileSize()
        try phase(.singleInserts) { for i in n..<total { try engine.insertUsers(data, i..<(i + 1)) } }
        run.checks.lookup = try phase(.lookups) { try engine.lookup(data, lookupKeys) } ?? 0
        run.checks.equality = try phase(.equality, repeats: readRepeats) { try engine.countByName(equalityNames) } ?? 0
        run.checks.range = try phase(.range, repeats: readRepeats) { try engine.countByNameRange(nameRanges) } ?? 0
        run.checks.compound = try phase(.compound, repeats: readRepeats) { try engine.countCompound(ageFrom: 30, ageBelow: 40, scoreAbove: 50) } ?? 0
        run.checks.contains = try phase(.contains, repeats: readRepeats) { try engine.countNameContains("ari") } ?? 0
        run.checks.linkPath = try phase(.linkPath, repeats: readRepeats) { try engine.countByTeamName(teamNames) } ?? 0
        run.checks.top = try phase(.top, repeats: readRepeats) { try engine.topByScore(100) } ?? []
        try phase(.update) { try engine.updateScores(data, updateKeys, newScore) }
        run.sizeAfterUpdate = try engine.fileSize()
        run.checks.deleted = try phase(.delete) { try engine.delete(data, deleteKeys) } ?? 0
        run.sizeAfterDelete = try engine.fileSize()
        // Small commits again, now into a store with free space (Trove: thousands of free pages).
        try phase(.reinserts) { for i in deleteKeys.prefix(reinsertCount) { try engine.insertUsers(data, i..<(i + 1)) } }
        run.checks.finalCount = try engine.count()
        // Each engine's explicit compaction, after the reinserts so that they run on the store
        // the deletes and the automatic policy left (`--phases` without reinserts: right after
        // the deletes).
        try phase(.vacuum) { try engine.vacuum() }
        run.sizeAfterVacuum = try engine.fileSize()
        // The questions: sales loaded (not timed), then counts, aggregates and groups on them.
        if questionsRun { try engine.insertSales(sales) }
        run.checks.questions.countWhere = try phase(.countWhere, repeats: readRepeats) { try engine.countSalesByRegion(questionRegions) } ?? 0
        run.checks.questions.averageWhere = QuestionChecks.rounded(
            try phase(.averageWhere, repeats: readRepeats) { try engine.averageAmountByRegion(questionRegions) } ?? 0)
        run.checks.questions.average = QuestionChecks.rounded(try phase(.average, repeats: readRepeats) { try engine.averageAmount(times: questionRepeats) } ?? 0)
        run.checks.questions.extremes = try phase(.extremes, repeats: readRepeats) { try engine.amountExtremes(times: extremeQueries) } ?? 0
        run.checks.questions.groupCounts = try phase(.groupCount, repeats: readRepeats) {
            var rows: [String] = []
            for _ in 0..<questionRepeats { rows = try engine.salesCountByRegion() }
            return rows
        } ?? []
        run.checks.questions.groups = try phase(.group, repeats: readRepeats) {
            var rows: [String] = []
            for _ in 0..<questionRepeats { rows = try engine.salesByRegion() }
            return rows
        } ?? []
        // Seven significant digits: the engines add half a million doubles in different orders.
        run.checks.questions.sumWhere = String(format: "%.6e",
            try phase(.sumWhere, repeats: readRepeats) { try engine.sumOfPricesOver50(times: questionRepeats) } ?? 0)
        run.checks.questions.page = try phase(.page, repeats: readRepeats) { try engine.salePage(times: extremeQueries) } ?? []
        run.checks.questions.unindexedGroups = try phase(.unindexedGroup, repeats: readRepeats) {
            var rows: [String] = []
            for _ in 0..<questionRepeats { rows = try engine.salesByChannel() }
            return rows
        } ?? []
        if let trove = engine as? TroveObjectEngine {
            for query in ["User where name == '\(equalityNames[0])'",
                          "User where name >= '\(nameRanges[0].lower)' AND name < '\(nameRanges[0].upper)'", "User where age >= 30 AND age < 40 AND score > 50.0",
                          "User where team.name == '\(teamNames[0])'", "User SORT(score DESC) LIMIT(100)",
                          "count Sale where region == '\(sales.regions[0])'", "avg Sale.amount where region == '\(sales.regions[0])'",
                          "avg Sale.amount", "min Sale.amount", "Sale GROUP(region) SELECT(region, @count)",
                          "Sale GROUP(region) SELECT(region, @count, @sum.amount, @max.amount)",
                          "sum Sale.price where price > 50.0", "Sale SORT(id) OFFSET(500) LIMIT(20) SELECT(region, amount)",
                          "Sale GROUP(channel) SELECT(channel, @count, @sum.amount, @max.amount)"] {
                log("explain \(query):\n" + (try trove.explain(query)).split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
            }
        }
        engine.close()
        runs.append((type.name, run))
    }

    // Every engine must have computed the same answers.
    for other in runs.dropFirst() where other.run.checks != runs[0].run.checks {
        throw BenchError("\(other.name) disagrees with \(runs[0].name):\n  \(other.run.checks)\n  \(runs[0].run.checks)")
    }
    guard selectedPhases != nil || (runs[0].run.checks.deleted == ops && runs[0].run.checks.finalCount == total - ops + reinsertCount) else {
        throw BenchError("unexpected counts: \(runs[0].run.checks.deleted) deleted, \(runs[0].run.checks.finalCount) left")
    }

    let peers = runs.filter { $0.name != "Trove" }
    let trove = runs.first { $0.name == "Trove" }
    func table(_ title: String, _ value: (Sample) -> Double, _ format: (Double) -> String, ratios: Bool = true) {
        print(title)
        print("")
        var header = ["workload"] + runs.map(\.name)
        if ratios, trove != nil { header += peers.map { "Trove/\($0.name)" } }
        var rows: [[String]] = []
        for p in Phase.allCases where p.isCompared && selectedPhases?.contains(p) ?? true {
            var row = [p.label(n: n, ops: ops)]
            for r in runs { row.append(format(value(r.run.samples[p.rawValue]))) }
            if ratios, let trove {
                for peer in peers {
                    row.append(String(format: "%.2fx", value(trove.run.samples[p.rawValue]) / value(peer.run.samples[p.rawValue])))
                }
            }
            rows.append(row)
        }
        print(renderTable(header, rows))
        print("")
    }
    table("Wall time:", \.wall, formatTime)
    print("Ratios are Trove's time divided by the peer's: below 1.00x Trove is faster, above 1.00x slower. Lower is better.")
    print("")
    table("CPU time of the process (user + system); leaves out waiting for fsync and for other processes:", \.cpu, formatTime)
    table("Peak RSS during each phase (VmHWM, reset at the phase's start; includes the ~\(formatMiB(runs[0].run.baselineKiB)) of test data and runtime):",
          { Double($0.peakKiB) }, { formatMiB(Int($0)) })
    let sizes = [("file size after the bulk insert", \EngineRun.sizeAfterInsert), ("file size after the updates", \EngineRun.sizeAfterUpdate),
                 ("file size after the deletes", \EngineRun.sizeAfterDelete),
                 ("file size after the explicit vacuum", \EngineRun.sizeAfterVacuum)]
    print(renderTable(["", ] + runs.map(\.name), sizes.map { label, key in
        [label] + runs.map { String(format: "%.1f MiB", Double($0.run[keyPath: key]) / 1_048_576) }
    }))
    print("")
    let c = runs[0].run.checks
    print("checks: all engines agree: lookup checksum \(c.lookup), \(c.equality.grouped) equality matches, \(c.range.grouped) in name ranges, \(c.compound.grouped) compound, "
        + "\(c.contains.grouped) CONTAINS, \(c.linkPath.grouped) via the link, the same top 100, \(c.deleted.grouped) deleted, \(c.finalCount.grouped) left, "
        + "\(c.questions.countWhere.grouped) sales counted, average amount \(c.questions.average), the same \(c.questions.groups.count) and \(c.questions.unindexedGroups.count) groups, sum of prices over 50 \(c.questions.sumWhere), the same page")

    if let shellBinary {
        print("")
        try ShellBench(trove: shellBinary, data: data, sales: sales, n: n, directory: root, durable: durable).run()
    }
}
