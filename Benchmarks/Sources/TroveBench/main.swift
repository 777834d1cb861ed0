import BenchSupport
import Foundation

let usage = """
    usage: TroveBench [N] [--quick] [--runs R] [--engines trove,lmdb,sqlite] [--dir PATH] [--trove-max-dirty-mib M]
      N          keys in the bulk load (default 1,000,000); --quick means N = 100,000
      --runs     runs of every engine, interleaved; the table shows each cell's median (default 1)
      --engines  which engines to run, in that order (default: all three)
      --dir      parent of the temporary store directory (default /tmp)
      --trove-max-dirty-mib  Trove's StorageOptions.maxDirtyBytes, for experiments (default: the engine's)
    """
let allEngines: [String: any Engine.Type] = ["trove": TroveEngine.self, "lmdb": LMDBEngine.self, "sqlite": SQLiteEngine.self]

func fail(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("TroveBench: \(message)\n".utf8))
    exit(status)
}

var n = 1_000_000
var runs = 1
var engineNames = ["trove", "lmdb", "sqlite"]
var parent = "/tmp"
var settings = EngineSettings()
var arguments = CommandLine.arguments.dropFirst()
@MainActor func intArgument(_ name: String) -> Int {
    guard let text = arguments.popFirst(), let value = Int(text), value >= 1 else { fail("\(name) needs a positive number\n\(usage)") }
    return value
}
while let argument = arguments.popFirst() {
    switch argument {
    case "--quick": n = 100_000
    case "--runs": runs = intArgument("--runs")
    case "--engines": engineNames = (arguments.popFirst() ?? "").lowercased().split(separator: ",").map(String.init)
    case "--dir": parent = arguments.popFirst() ?? parent
    case "--trove-max-dirty-mib": settings.troveMaxDirtyBytes = intArgument("--trove-max-dirty-mib") << 20
    case "-h", "--help": print(usage); exit(0)
    default:
        guard let value = Int(argument.replacingOccurrences(of: "_", with: "")), value >= 2 else { fail(usage) }
        n = value
    }
}
guard !engineNames.isEmpty, engineNames.allSatisfy({ allEngines[$0] != nil }) else {
    fail("unknown engine in \(engineNames)\n\(usage)")
}
let engines = engineNames.map { allEngines[$0]! }

func log(_ line: String) { FileHandle.standardError.write(Data("  \(line)\n".utf8)) }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

do {
    let workloads = Workloads(n: n)
    var template = Array("\(parent)/trove-bench-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        throw BenchError("cannot create a temporary directory in \(parent)")
    }
    let root = String(cString: made)
    defer { try? FileManager.default.removeItem(atPath: root) }

    for line in Machine.describe(dataDirectory: root) { print(line) }
    print("workload: redb's lmdb_benchmark; 24-byte random keys, 150-byte random values (seed 3), durable commits; "
        + "\(runs) run\(runs == 1 ? "" : "s") per engine, interleaved\(runs > 1 ? ", median shown" : "")")
    if let bytes = settings.troveMaxDirtyBytes { print("experiment: Trove maxDirtyBytes = \(bytes >> 20) MiB") }
    print("")

    log("generating \(workloads.totalPairs.grouped) pairs")
    let data = Dataset(count: workloads.totalPairs, seed: 3)
    var rng = SplitMix64(seed: 4)
    let readKeys = (0..<workloads.reads).map { _ in Int.random(in: 0..<workloads.totalPairs, using: &rng) }
    let scanStarts = (0..<workloads.scans).map { _ in Int.random(in: 0..<workloads.totalPairs, using: &rng) }
    let expected = workloads.expectedReadChecksum(data, readKeys: readKeys)

    var results: [[Workloads.Result]] = Array(repeating: [], count: engines.count)
    for round in 1...runs {
        for (e, engine) in engines.enumerated() {
            log("\(engine.name): run \(round) of \(runs)")
            let directory = "\(root)/\(engine.name)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let result = try workloads.run(engine, settings: settings, data: data, readKeys: readKeys,
                                           scanStarts: scanStarts, directory: directory, log: log)
            guard result.readChecksum == expected else {
                throw BenchError("\(engine.name) read wrong values (checksum \(result.readChecksum), expected \(expected))")
            }
            results[e].append(result)
        }
    }
    let scanChecks = results.flatMap { $0.map { ($0.scanChecksum, $0.scanEntries) } }
    if let first = scanChecks.first, scanChecks.contains(where: { $0 != first }) {
        throw BenchError("range scans disagree between engines: \(scanChecks)")
    }

    func column(_ e: Int, _ values: (Workloads.Result) -> [Double], _ reduce: ([Double]) -> Double) -> (name: String, values: [Double]) {
        let perRun = results[e].map(values)
        return (engines[e].name, (0..<perRun[0].count).map { i in reduce(perRun.map { $0[i] }) })
    }
    let timePhases = workloads.phases.filter { $0.kind == .time }
    print("Wall time (and file sizes)\(runs > 1 ? ", median of \(runs) runs" : ""):")
    print("")
    print(Table(phases: workloads.phases, columns: engines.indices.map { column($0, \.values, median) }).render())
    print("")
    print("CPU time of the process (user + system) in the same phases\(runs > 1 ? ", median" : ""); "
        + "it leaves out time spent waiting for fsync and for other processes:")
    print("")
    print(Table(phases: timePhases, columns: engines.indices.map { column($0, \.cpuTimes, median) }).render())
    print("")
    if runs > 1 {
        print("Spread of wall times over the \(runs) runs (fastest / slowest):")
        print("")
        print(Table(phases: timePhases, columns: engines.indices.flatMap { e in
            [(engines[e].name + " min", column(e, \.values, { $0.min()! }).values),
             (engines[e].name + " max", column(e, \.values, { $0.max()! }).values)]
        }).render())
        print("")
    }
    print("checks: every engine's random reads returned the expected values; range scans read the same "
        + "\(scanChecks.first?.1.grouped ?? "0") entries in every engine and run")
} catch {
    fail("\(error)", status: 1)
}
