import BenchSupport
import Foundation

/// Issue 28's bar on repeated updates: each engine loads N users in one transaction, then sets
/// the score of every user in each of `rounds` transactions. The file sizes after each round,
/// and the last over the first: a copy-on-write file must reuse what the last round freed
/// rather than grow by a copy of the objects each time.
struct UpdateRounds {
    let users: Int
    let rounds: Int
    let engines: [any ObjectEngine.Type]
    let directory: String
    let durable: Bool

    func run() throws {
        for line in machineLines(dataDirectory: directory) { print(line) }
        print("durability: \(durable ? "durable commits" : "no-sync commits"); each round is one transaction of \(users.grouped) updates by primary key")
        print("")
        log("generating \(users.grouped) users")
        let data = ObjectDataset(count: users, seed: 7)
        let all = Array(0..<users)
        var sizes: [[UInt64]] = []
        var times: [[Sample]] = []
        for type in engines {
            let dir = "\(directory)/\(type.name)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let engine = try type.init(directory: dir, durable: durable)
            try engine.insertTeams(data)
            let (_, load) = try Measure.run("\(type.name) insert \(users.grouped) users, 1 txn", log: log) { try engine.insertUsers(data, 0..<users) }
            var engineSizes = [try engine.fileSize()], engineTimes = [load]
            for round in 1...rounds {
                let (_, sample) = try Measure.run("\(type.name) update round \(round)", log: log) {
                    try engine.updateScores(data, all) { Double(($0 &* 31 &+ round) % 1000) + 0.5 }
                }
                engineSizes.append(try engine.fileSize())
                engineTimes.append(sample)
            }
            engine.close()
            sizes.append(engineSizes)
            times.append(engineTimes)
        }
        func mib(_ bytes: UInt64) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
        var rows: [[String]] = []
        for step in 0...rounds {
            let label = step == 0 ? "after the load" : "after update round \(step)"
            rows.append([label] + engines.indices.flatMap { [mib(sizes[$0][step]), formatTime(times[$0][step].wall)] })
        }
        rows.append(["round \(rounds) / round 1"] + engines.indices.flatMap {
            [String(format: "%.2fx", Double(sizes[$0][rounds]) / Double(sizes[$0][1])), "-"]
        })
        print(renderTable(["file size"] + engines.flatMap { ["\($0.name)", "\($0.name) wall"] }, rows))
    }
}
