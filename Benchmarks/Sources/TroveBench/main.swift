import Foundation

// Usage: TroveBench [N] [--quick] [--engines trove,lmdb,sqlite] [--dir PATH]
//   N         keys in the bulk load (default 1,000,000); --quick means N = 100,000
//   --engines which engines to run, in that order (default: all three)
//   --dir     parent of the temporary store directory (default /tmp)

let usage = "usage: TroveBench [N] [--quick] [--engines trove,lmdb,sqlite] [--dir PATH]"
let allEngines: [String: any Engine.Type] = ["trove": TroveEngine.self, "lmdb": LMDBEngine.self, "sqlite": SQLiteEngine.self]

var n = 1_000_000
var engineNames = ["trove", "lmdb", "sqlite"]
var parent = "/tmp"
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--quick": n = 100_000
    case "--engines":
        engineNames = (arguments.popFirst() ?? "").lowercased().split(separator: ",").map(String.init)
    case "--dir": parent = arguments.popFirst() ?? parent
    case "-h", "--help": print(usage); exit(0)
    default:
        guard let value = Int(argument.replacingOccurrences(of: "_", with: "")), value >= 2 else {
            FileHandle.standardError.write(Data("\(usage)\n".utf8)); exit(2)
        }
        n = value
    }
}
guard !engineNames.isEmpty, engineNames.allSatisfy({ allEngines[$0] != nil }) else {
    FileHandle.standardError.write(Data("unknown engine in \(engineNames); \(usage)\n".utf8)); exit(2)
}

func log(_ line: String) { FileHandle.standardError.write(Data("  \(line)\n".utf8)) }

/// Runs one engine in a fresh directory, deleted afterwards.
func run(_ engine: any Engine.Type, _ workloads: Workloads, _ data: Dataset, _ readKeys: [Int], _ scanStarts: [Int],
         in root: String) throws -> Workloads.Result {
    let directory = "\(root)/\(engine.name)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    return try workloads.run(engine, data: data, readKeys: readKeys, scanStarts: scanStarts, directory: directory, log: log)
}

do {
    let workloads = Workloads(n: n)
    var template = Array("\(parent)/trove-bench-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        throw EngineError("cannot create a temporary directory in \(parent)")
    }
    let root = String(cString: made)
    defer { try? FileManager.default.removeItem(atPath: root) }

    for line in Machine.describe(dataDirectory: root) { print(line) }
    print("workload: redb's lmdb_benchmark; 24-byte random keys, 150-byte random values (seed 3), durable commits")
    print("")

    log("generating \(workloads.totalPairs.grouped) pairs")
    let data = Dataset(count: workloads.totalPairs, seed: 3)
    var rng = SplitMix64(seed: 4)
    let readKeys = (0..<workloads.reads).map { _ in Int.random(in: 0..<workloads.totalPairs, using: &rng) }
    let scanStarts = (0..<workloads.scans).map { _ in Int.random(in: 0..<workloads.totalPairs, using: &rng) }
    let expected = workloads.expectedReadChecksum(data, readKeys: readKeys)

    var columns: [(name: String, values: [Double])] = []
    var cpuColumns: [(name: String, values: [Double])] = []
    var scanChecks: [(name: String, checksum: UInt64, entries: Int)] = []
    for name in engineNames {
        let engine = allEngines[name]!
        log("\(engine.name): running")
        let result = try run(engine, workloads, data, readKeys, scanStarts, in: root)
        guard result.readChecksum == expected else {
            throw EngineError("\(engine.name) read wrong values (checksum \(result.readChecksum), expected \(expected))")
        }
        columns.append((engine.name, result.values))
        cpuColumns.append((engine.name, result.cpuTimes))
        scanChecks.append((engine.name, result.scanChecksum, result.scanEntries))
    }
    if let first = scanChecks.first, scanChecks.contains(where: { $0.checksum != first.checksum || $0.entries != first.entries }) {
        throw EngineError("range scans disagree between engines: \(scanChecks)")
    }

    print("Wall time (and file sizes):")
    print("")
    print(Table(phases: workloads.phases, columns: columns).render())
    print("")
    print("CPU time of the process (user + system) in the same phases; it leaves out time spent waiting for fsync and for other processes:")
    print("")
    print(Table(phases: workloads.phases.filter { $0.kind == .time }, columns: cpuColumns).render())
    print("")
    print("checks: every engine's random reads returned the expected values; range scans read the same \(scanChecks.first?.entries.grouped ?? "0") entries in all engines")
} catch {
    FileHandle.standardError.write(Data("TroveBench: \(error)\n".utf8))
    exit(1)
}
