import Foundation

/// Finds the built `trove` executable and runs it.
///
/// SwiftPM puts executables next to the test bundle in the build products directory, so
/// the binary is looked for beside the running test executable (argv[0] and
/// /proc/self/exe, which differ when a runner wraps the bundle), then in the package's
/// `.build*` directories; `TROVE_BINARY` overrides it all.
enum TroveBinary {
    static let path: String = locate()

    private static func locate() -> String {
        let fm = FileManager.default
        if let explicit = ProcessInfo.processInfo.environment["TROVE_BINARY"], fm.isExecutableFile(atPath: explicit) {
            return explicit
        }
        var directories: [URL] = []
        for start in [CommandLine.arguments.first.map { URL(fileURLWithPath: $0) },
                      (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map { URL(fileURLWithPath: $0) },
                      Bundle.main.executableURL].compactMap({ $0 }) {
            // Walk up: the executable may sit inside `X.xctest/Contents/MacOS` or similar.
            var dir = start.deletingLastPathComponent()
            for _ in 0..<4 {
                directories.append(dir)
                dir = dir.deletingLastPathComponent()
            }
        }
        for dir in directories {
            let candidate = dir.appendingPathComponent("trove").path
            if fm.isExecutableFile(atPath: candidate), !isDirectory(candidate) { return candidate }
        }
        // Last resort: the newest `trove` under the package's build directories.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let builds = ((try? fm.contentsOfDirectory(atPath: root.path)) ?? []).filter { $0.hasPrefix(".build") }
        var best: (path: String, date: Date)?
        for build in builds {
            for configuration in ["debug", "release"] {
                let candidate = root.appendingPathComponent(build).appendingPathComponent(configuration).appendingPathComponent("trove").path
                if fm.isExecutableFile(atPath: candidate),
                   let date = (try? fm.attributesOfItem(atPath: candidate))?[.modificationDate] as? Date,
                   best == nil || date > best!.date {
                    best = (candidate, date)
                }
            }
        }
        return best?.path ?? "trove"
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    struct Outcome {
        var status: Int32
        var out: String
        var err: String
        /// Whether the run outlasted its budget and was killed.
        var timedOut = false
    }

    /// SIGPIPE ignored in the test process, once: a write to a pipe whose reader is gone
    /// returns EPIPE instead.
    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Runs the binary with pipes for its standard streams. A run still going when `budget`
    /// is spent is killed (`timedOut`): a test that waits on another process fails, rather
    /// than hangs, when what it waits for never comes.
    static func run(_ arguments: [String], stdin: String = "", environment: [String: String] = [:],
                    directory: URL? = nil, executable: String = path, budget: DispatchTimeInterval? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var env = ProcessInfo.processInfo.environment
        env["COLUMNS"] = nil
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        let exited = DispatchSemaphore(value: 0)
        if budget != nil { process.terminationHandler = { _ in exited.signal() } }
        try process.run()
        // Read both pipes while the process runs, so a full pipe cannot block it.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        DispatchQueue.global().async(group: group) { outData = output.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData = errors.fileHandleForReading.readDataToEndOfFile() }
        // A binary that exits before reading all of its input closes the pipe: the write then
        // fails with EPIPE, which must not raise SIGPIPE and take the whole test run down.
        _ = ignoreBrokenPipes
        try? input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        var timedOut = false
        if let budget, exited.wait(timeout: .now() + budget) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
        }
        group.wait()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self),
                       err: String(decoding: errData, as: UTF8.self), timedOut: timedOut)
    }
}
