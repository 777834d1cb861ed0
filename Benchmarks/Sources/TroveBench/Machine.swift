import CLMDB
import CSQLite
import Foundation

/// What the run happened on, printed with the results so numbers are never quoted without it.
enum Machine {
    static func describe(dataDirectory: String) -> [String] {
        let cpu = firstValue(in: "/proc/cpuinfo", key: "model name") ?? "unknown"
        let memKiB = firstValue(in: "/proc/meminfo", key: "MemTotal").flatMap { Double($0.split(separator: " ")[0]) } ?? 0
        var uts = utsname()
        uname(&uts)
        let kernel = withUnsafeBytes(of: &uts.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let date = ISO8601DateFormatter().string(from: Date())
        let lmdb = String(cString: mdb_version(nil, nil, nil))
        let sqlite = String(cString: sqlite3_libversion())
        return [
            "date:    \(date)",
            "command: \(CommandLine.arguments.joined(separator: " "))",
            "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores (nproc), \(cpu), \(String(format: "%.1f", memKiB / 1_048_576)) GiB RAM, Linux \(kernel)",
            "data:    \(dataDirectory) (\(filesystem(of: dataDirectory)))",
            "peers:   \(lmdb), SQLite \(sqlite)",
        ]
    }

    private static func firstValue(in file: String, key: String) -> String? {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// The type of the filesystem holding `path`, from the longest matching mount point.
    private static func filesystem(of path: String) -> String {
        guard let mounts = try? String(contentsOfFile: "/proc/mounts", encoding: .utf8) else { return "unknown filesystem" }
        var best = ("", "unknown filesystem")
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            let mountPoint = String(fields[1])
            let prefix = mountPoint.hasSuffix("/") ? mountPoint : mountPoint + "/"
            if (path == mountPoint || path.hasPrefix(prefix)) && mountPoint.count >= best.0.count {
                best = (mountPoint, "\(fields[2]) on \(mountPoint)")
            }
        }
        return best.1
    }
}
