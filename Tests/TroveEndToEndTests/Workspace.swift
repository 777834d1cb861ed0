import Foundation

/// A temporary directory for one test, with the example schemas at hand and the binary run
/// in it.
struct Workspace {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("trove-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// The repository root, found from this file.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Schemas/NAME.json` of the repository.
    static func schema(_ name: String) -> String {
        root.appendingPathComponent("Schemas/\(name).json").path
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
        return path(name)
    }

    func read(_ name: String) throws -> String { try String(contentsOfFile: path(name), encoding: .utf8) }

    func bytes(_ name: String) throws -> Data { try Data(contentsOf: directory.appendingPathComponent(name)) }

    /// Runs `trove` with the directory as its working directory (killed if it outlasts
    /// `budget`; see ``TroveBinary/run(_:stdin:environment:directory:executable:budget:)``).
    func run(_ arguments: [String], stdin: String = "", budget: DispatchTimeInterval? = nil) throws -> TroveBinary.Outcome {
        try TroveBinary.run(arguments, stdin: stdin, directory: directory, budget: budget)
    }

    /// Runs a bash script in the directory, with the built `trove` first on PATH.
    func bash(_ script: String, stdin: String = "", environment: [String: String] = [:]) throws -> TroveBinary.Outcome {
        let bin = URL(fileURLWithPath: TroveBinary.path).deletingLastPathComponent().path
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return try TroveBinary.run(["-eo", "pipefail", "-c", script], stdin: stdin, environment: environment.merging(["PATH": path]) { $1 },
                                   directory: directory, executable: "/bin/bash")
    }

    /// The non-empty lines of `text`, each parsed as JSON.
    static func jsonLines(_ text: String) throws -> [Any] {
        try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8), options: [.fragmentsAllowed]) }
    }
}
