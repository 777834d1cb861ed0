import BenchSupport
import Foundation
import Trove
import TroveModels

@Model("Team") struct TypedTeam {
    @Attribute(.primaryKey) var id: String
    var name: String
}

/// The benchmark's `User` as an app declares it with `@Model`: the same schema as
/// ``TroveObjectEngine/schemaJSON`` gives `User` and `Team`.
@Model("User") struct TypedUser {
    @Attribute(.primaryKey) var uid: String
    @Attribute(.indexed) var name: String
    var age: Int64
    var score: Double
    var signedUpAt: Date
    var email: String?
    var team: TypedTeam?
}

/// The typed API (`@Model` values, `#Predicate` and the `where:` closure, key-path sorts, partial updates) against the
/// dynamic API (property dictionaries, query strings) on the main workloads, in one process:
/// two stores of the same schema, each workload run on the dynamic store and then on the typed
/// one, query phases best of ``readRepeats``. What it prints is the cost of the typed layer.
struct TypedPhases {
    let n: Int
    let data: ObjectDataset
    let lookupKeys: [Int]
    let equalityNames: [String]
    let updateKeys: [Int]
    let directory: String
    let durable: Bool
    /// The workloads to run besides the inserts, which fill both stores (unless `players`,
    /// which has stores of its own, is the only one); nil runs them all.
    let phases: Set<Phase>?

    /// A workload through both APIs; each returns a checksum the other must match.
    struct Workload {
        var phase: Phase
        var label: String
        var repeats = 1
        var dynamic: (Store) throws -> Int
        var typed: (Store) throws -> Int
        /// The same workload through the Realm-style `where: { $0.name == x }`, where it has a
        /// condition to build.
        var built: ((Store) throws -> Int)? = nil
    }

    func open(_ name: String) throws -> Store {
        var configuration = StoreConfiguration(path: "\(directory)/\(name).trove", schema: try Schema(TypedUser.self, schemaVersion: 1))
        configuration.durability = durable ? .durable : .noSync
        return try Store(configuration: configuration)
    }

    func user(_ i: Int) -> TypedUser {
        let u = data.users[i]
        return TypedUser(uid: u.uid, name: u.name, age: u.age, score: u.score, signedUpAt: Date(timeIntervalSinceReferenceDate: u.signedUpAt),
                         email: u.email, team: TypedTeam(id: data.teamIDs[u.team], name: data.teamNames[u.team]))
    }

    func workloads() -> [Workload] {
        let singles = n..<min(n + 1_000, data.users.count)
        // The values an app holds before it updates them (built before the phase, untimed).
        let held = updateKeys.map(user)
        return [
            Workload(phase: .bulkInsert, label: "insert \(n.grouped) objects, 1 txn", dynamic: { s in
                try s.write { tx in for i in 0..<n { try tx.insert("User", TroveObjectEngine.values(data.users[i], data)) } }
                return n
            }, typed: { s in
                try s.write { tx in for i in 0..<n { try tx.insert(user(i)) } }
                return n
            }),
            Workload(phase: .singleInserts, label: "insert \(singles.count.grouped) objects, 1 txn each", dynamic: { s in
                for i in singles { try s.write { tx in _ = try tx.insert("User", TroveObjectEngine.values(data.users[i], data)) } }
                return singles.count
            }, typed: { s in
                for i in singles { try s.write { tx in try tx.insert(user(i)) } }
                return singles.count
            }),
            Workload(phase: .lookups, label: "\(lookupKeys.count.grouped) primary-key lookups", dynamic: { s in
                try s.read { snapshot in
                    var sum: UInt64 = 0
                    for i in lookupKeys {
                        _ = try snapshot.withObject("User", primaryKey: .string(data.users[i].uid)) { o in
                            foldUser(&sum, name: try o.string("name") ?? "", age: try o.int("age") ?? 0, score: try o.double("score") ?? 0)
                        }
                    }
                    return Int(truncatingIfNeeded: sum)
                }
            }, typed: { s in
                try s.read { snapshot in
                    var sum: UInt64 = 0
                    for i in lookupKeys {
                        guard let u = try snapshot.object(TypedUser.self, primaryKey: data.users[i].uid) else { throw BenchError("no user \(i)") }
                        foldUser(&sum, name: u.name, age: u.age, score: u.score)
                    }
                    return Int(truncatingIfNeeded: sum)
                }
            }),
            Workload(phase: .equality, label: "\(equalityNames.count.grouped) indexed equality queries (name == x)", repeats: readRepeats, dynamic: { s in
                try s.read { snapshot in
                    try equalityNames.reduce(0) { $0 + (try snapshot.objects("User", where: "name == $0", .string($1)).count) }
                }
            }, typed: { s in
                try s.read { snapshot in
                    try equalityNames.reduce(0) { count, name in
                        count + (try snapshot.objects(TypedUser.self, where: #Predicate { $0.name == name }).count)
                    }
                }
            }, built: { s in
                try s.read { snapshot in
                    try equalityNames.reduce(0) { count, name in
                        count + (try snapshot.objects(TypedUser.self, where: { $0.name == name }).count)
                    }
                }
            }),
            Workload(phase: .compound, label: "compound predicate, scans all (age, age, score)", repeats: readRepeats, dynamic: { s in
                try s.read { snapshot in
                    try snapshot.objects("User", where: "age >= $0 AND age < $1 AND score > $2", .int(30), .int(40), .double(50)).count
                }
            }, typed: { s in
                try s.read { snapshot in
                    let (from, below, above): (Int64, Int64, Double) = (30, 40, 50)
                    return try snapshot.objects(TypedUser.self, where: #Predicate { $0.age >= from && $0.age < below && $0.score > above }).count
                }
            }, built: { s in
                try s.read { snapshot in
                    let (from, below, above): (Int64, Int64, Double) = (30, 40, 50)
                    return try snapshot.objects(TypedUser.self, where: { $0.age >= from && $0.age < below && $0.score > above }).count
                }
            }),
            Workload(phase: .contains, label: "name CONTAINS 'ari', scans all", repeats: readRepeats, dynamic: { s in
                try s.read { snapshot in try snapshot.objects("User", where: "name CONTAINS $0", .string("ari")).count }
            }, typed: { s in
                try s.read { snapshot in
                    let needle = "ari"
                    return try snapshot.objects(TypedUser.self, where: #Predicate { $0.name.contains(needle) }).count
                }
            }, built: { s in
                try s.read { snapshot in
                    let needle = "ari"
                    return try snapshot.objects(TypedUser.self, where: { $0.name.contains(needle) }).count
                }
            }),
            Workload(phase: .top, label: "top 100 by score, values read", repeats: readRepeats, dynamic: { s in
                try s.read { snapshot in
                    try snapshot.query("User SORT(score DESC) LIMIT(100)").map { try $0.string("uid") ?? "" }.joined().hashValue
                }
            }, typed: { s in
                try s.read { snapshot in
                    try snapshot.objects(TypedUser.self, sortBy: [.init(\.score, order: .reverse)], limit: 100).map(\.uid).joined().hashValue
                }
            }),
            // SELECT's typed form: a repeated statement text, so its binding is reused.
            Workload(phase: .page, label: "\(equalityNames.count.grouped) selects of (name, score), users by name", repeats: readRepeats, dynamic: { s in
                try s.read { snapshot in
                    try equalityNames.reduce(0) { $0 + (try snapshot.objects("User", where: "name == $0", .string($1)).select("name", "score").count) }
                }
            }, typed: { s in
                try s.read { snapshot in
                    try equalityNames.reduce(0) { count, name in
                        count + (try snapshot.objects(TypedUser.self, where: { $0.name == name }).select(\.name, \.score).count)
                    }
                }
            }),
            Workload(phase: .update, label: "update score of \(held.count.grouped) objects, 1 txn", dynamic: { s in
                try s.write { tx in
                    for (i, u) in zip(updateKeys, held) { try tx.update("User", primaryKey: .string(u.uid), ["score": .double(Double(i % 1000) + 0.5)]) }
                }
                return held.count
            }, typed: { s in
                try s.write { tx in
                    for (i, u) in zip(updateKeys, held) { try tx.update(u) { $0.score = Double(i % 1000) + 0.5 } }
                }
                return held.count
            }),
        ]
    }

    @MainActor func run() throws {
        if phases != [.players] { try runUsers() }
        if phases?.contains(.players) ?? true {
            if phases != [.players] { print("") }
            try PlayerWrites(count: n, data: data, directory: directory, durable: durable).run()
        }
    }

    @MainActor func runUsers() throws {
        let dynamicStore = try open("dynamic")
        let typedStore = try open("typed")
        try dynamicStore.write { tx in
            for i in 0..<ObjectDataset.teamCount { try tx.insert("Team", ["id": .string(data.teamIDs[i]), "name": .string(data.teamNames[i])]) }
        }
        try typedStore.write { tx in
            for i in 0..<ObjectDataset.teamCount { try tx.insert(TypedTeam(id: data.teamIDs[i], name: data.teamNames[i])) }
        }
        var rows: [[String]] = []
        for workload in workloads() where workload.phase == .bulkInsert || workload.phase == .singleInserts || phases?.contains(workload.phase) ?? true {
            func measure(_ api: String, _ store: Store, _ body: (Store) throws -> Int) throws -> (Int, Sample) {
                var (result, best) = try Measure.run("\(api) \(workload.label)", log: log) { try body(store) }
                for _ in 1..<max(1, workload.repeats) {
                    let (again, sample) = try Measure.run("\(api) \(workload.label) (again)", log: log) { try body(store) }
                    result = again
                    best.wall = min(best.wall, sample.wall)
                    best.cpu = min(best.cpu, sample.cpu)
                }
                return (result, best)
            }
            let (expected, dynamic) = try measure("dynamic API", dynamicStore, workload.dynamic)
            let (found, typed) = try measure("typed API", typedStore, workload.typed)
            guard found == expected else { throw BenchError("typed API: \(workload.label) gave \(found), the dynamic API \(expected)") }
            var row = [workload.label, formatTime(dynamic.wall), formatTime(typed.wall), String(format: "%.2fx", typed.wall / dynamic.wall),
                       formatTime(dynamic.cpu), formatTime(typed.cpu), String(format: "%.2fx", typed.cpu / dynamic.cpu)]
            if let built = workload.built {
                let (foundBuilt, closure) = try measure("typed API, where: closure,", typedStore, built)
                guard foundBuilt == expected else { throw BenchError("where: closure: \(workload.label) gave \(foundBuilt), the dynamic API \(expected)") }
                row += [formatTime(closure.wall), String(format: "%.2fx", closure.wall / dynamic.wall),
                        formatTime(closure.cpu), String(format: "%.2fx", closure.cpu / dynamic.cpu)]
            } else {
                row += ["-", "-", "-", "-"]
            }
            rows.append(row)
        }
        // Of the typed equality queries, what the caller's own code spends building each
        // `#Predicate` value (Foundation's work, no query run), best of the same repeats.
        var building: Sample?
        if phases?.contains(.equality) ?? true {
            for _ in 0..<readRepeats {
                let (_, sample) = Measure.run("typed API: building \(equalityNames.count.grouped) #Predicate values alone", log: log) {
                    equalityNames.reduce(0) { count, name in
                        let predicate = #Predicate<TypedUser> { $0.name == name }
                        return count + withExtendedLifetime(predicate) { 1 }
                    }
                }
                var best = building ?? sample
                best.wall = min(best.wall, sample.wall)
                best.cpu = min(best.cpu, sample.cpu)
                building = best
            }
        }
        // The writes, checked: both stores hold the same users with the same scores.
        let stored = try [dynamicStore, typedStore].map { store in
            try store.read { snapshot in "\(try snapshot.count("User")) users, scores summing to \(try snapshot.aggregate("sum User.score"))" }
        }
        guard stored[0] == stored[1] else { throw BenchError("typed API: the typed store has \(stored[1]), the dynamic one \(stored[0])") }
        print("Typed API (@Model; #Predicate, and the where: closure) against the dynamic API, Trove alone, same schema, same run:")
        print("")
        print(renderTable(["workload", "dynamic wall", "typed wall", "typed/dynamic", "dynamic CPU", "typed CPU", "typed/dynamic CPU",
                           "where: wall", "where:/dynamic", "where: CPU", "where:/dynamic CPU"], rows))
        print("")
        print("checks: the typed API gave each workload's answer the dynamic API gave; both stores hold \(stored[0])")
        if let building {
            print("of the typed equality queries, building the \(equalityNames.count.grouped) #Predicate values alone (no query): \(formatTime(building.wall)) wall, \(formatTime(building.cpu)) CPU")
        }
    }
}
