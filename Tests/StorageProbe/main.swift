// A helper process for TroveStorage's multi-process tests. Not installed.
//   StorageProbe count-writer PATH N      commit N transactions; print each acknowledged number
//   StorageProbe transfer PATH N ACCOUNTS  N transactions moving money between accounts
//   StorageProbe check-sum PATH N SUM      N read transactions, each checking the total
//   StorageProbe rekey PATH OLD NEW STEP   change the key, killed after STEP (below)
//   StorageProbe churn-vacuum PATH N       N rounds of: fill, commit, empty with the next count,
//                                          commit, print it, vacuum
//   StorageProbe hold-writer PATH          begin a write transaction, print `holding`, wait to
//                                          be killed
//   StorageProbe print-into PATH           (started with 0, 1 and 2 closed) commit n = 1, write
//                                          to descriptors 0, 1 and 2, commit n = 2
import Foundation
import TroveStorage

func key(_ s: String) -> [UInt8] { Array(s.utf8) }
func encode(_ v: Int64) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }
func decode(_ b: [UInt8]) -> Int64 { b.withUnsafeBytes { Int64(bigEndian: $0.loadUnaligned(as: Int64.self)) } }

let args = CommandLine.arguments

if args.count == 3, args[1] == "hold-writer" {
    do {
        let storage = try Storage(path: args[2])
        let tx = try storage.beginWrite()
        FileHandle.standardOutput.write("holding\n".data(using: .utf8)!)
        withExtendedLifetime((storage, tx)) { while true { pause() } }
    } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
}

if args.count == 3, args[1] == "print-into" {
    do {
        let storage = try Storage(path: args[2])
        for n: Int64 in 1...2 {
            try storage.write { tx in try tx.put(try tx.createTree(named: "log"), key("n"), encode(n)) }
            // What an embedding program's `print` would do: it must never reach the store.
            let text = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 16)
            for fd: Int32 in 0...2 { _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
        }
        exit(0)
    } catch {
        exit(1)
    }
}

/// `StorageProbe rekey PATH OLD NEW STEP`: changes the key (OLD and NEW: a byte value the
/// 64-byte key repeats, or `-` for none), and kills itself with SIGKILL after STEP
/// (`KeyChangeStep`) as a crash would; prints `done` if it got through.
if args.count == 6, args[1] == "rekey" {
    func key(_ s: String) -> [UInt8]? { UInt8(s).map { [UInt8](repeating: $0, count: 64) } }
    var options = StorageOptions()
    options.encryptionKey = key(args[3])
    do {
        try Storage.changeEncryptionKey(path: args[2], options: options, to: key(args[4])) { step in
            if step.rawValue == args[5] { kill(getpid(), SIGKILL) }
        }
        print("done")
        exit(0)
    } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
}
guard args.count >= 4 else {
    FileHandle.standardError.write("usage: StorageProbe count-writer|transfer|check-sum PATH N [X]\n".data(using: .utf8)!)
    exit(2)
}
let path = args[2]
let n = Int(args[3])!

do {
    let storage = try Storage(path: path)
    switch args[1] {
    case "count-writer":
        var start = try storage.read { tx in try tx.tree(named: "log").flatMap { try tx.get($0, key("n")) }.map(decode) ?? 0 }
        for _ in 0..<n {
            start += 1
            let i = start
            try storage.write { tx in
                let t = try tx.createTree(named: "log")
                // Several keys per transaction, so a partial one would show.
                try tx.put(t, key("n"), encode(i))
                try tx.put(t, key("rec-\(i)"), [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: Int(i % 3000)))
                try tx.put(t, key("sum"), encode(i * (i + 1) / 2))
            }
            FileHandle.standardOutput.write("\(i)\n".data(using: .utf8)!)
        }
    case "transfer":
        let accounts = Int(args[4])!
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<n {
            try storage.write { tx in
                let t = try tx.createTree(named: "accounts")
                let a = Int.random(in: 0..<accounts, using: &rng), b = Int.random(in: 0..<accounts, using: &rng)
                let amount = Int64.random(in: 1...100, using: &rng)
                let va = try tx.get(t, key("acct-\(a)")).map(decode) ?? 0
                try tx.put(t, key("acct-\(a)"), encode(va - amount))
                let vb = try tx.get(t, key("acct-\(b)")).map(decode) ?? 0
                try tx.put(t, key("acct-\(b)"), encode(vb + amount))
            }
        }
    case "churn-vacuum":
        var i = try storage.read { tx in try tx.tree(named: "log").flatMap { try tx.get($0, key("n")) }.map(decode) ?? 0 }
        for _ in 0..<n {
            i += 1
            let round = i
            try storage.write { tx in
                let t = try tx.createTree(named: "churn")
                for k in 0..<3000 { try tx.put(t, key("c-\(round)-\(k)"), [UInt8](repeating: UInt8(truncatingIfNeeded: k), count: 40 + k % 200)) }
                // A few overflow values, so that runs move too.
                for k in 0..<20 { try tx.put(t, key("big-\(round)-\(k)"), [UInt8](repeating: 7, count: 5000 + k)) }
            }
            try storage.write { tx in
                try tx.clear(try tx.createTree(named: "churn"))
                let t = try tx.createTree(named: "log")
                try tx.put(t, key("n"), encode(round))
                try tx.put(t, key("rec-\(round)"), [UInt8](repeating: UInt8(truncatingIfNeeded: round), count: Int(round % 3000)))
                try tx.put(t, key("sum"), encode(round * (round + 1) / 2))
            }
            FileHandle.standardOutput.write("\(round)\n".data(using: .utf8)!)
            try storage.vacuum()
        }
    case "check-sum":
        let expected = Int64(args[4])!
        for _ in 0..<n {
            let total = try storage.read { tx -> Int64 in
                guard let t = try tx.tree(named: "accounts") else { return 0 }
                let c = try tx.cursor(t)
                var sum: Int64 = 0
                var ok = try c.first()
                while ok { sum += decode(try c.value()); ok = try c.next() }
                return sum
            }
            if total != expected {
                FileHandle.standardError.write("sum \(total) != \(expected)\n".data(using: .utf8)!)
                exit(1)
            }
        }
    default:
        exit(2)
    }
} catch {
    FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
    exit(1)
}
