import Foundation
@testable import Trove

/// The repository's Schemas/ folder.
func schemaURL(_ name: String) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Schemas").appendingPathComponent(name)
}

func loadSchema(_ name: String) throws -> Schema { try Schema(contentsOf: schemaURL(name)) }

func memoryStore(_ schemaFile: String) throws -> Store {
    try Store(configuration: .inMemory(schema: try loadSchema(schemaFile)))
}

struct StoreTempDir {
    let path: String
    init() {
        path = NSTemporaryDirectory() + "trove-store-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { path + "/" + name }
    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

func schemaFromJSON(_ text: String) throws -> Schema { try Schema(jsonData: Array(text.utf8), fileName: "test.json") }

/// SplitMix64: a tiny deterministic generator, so a failing seed reproduces.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func chance(_ percent: Int) -> Bool { int(100) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[int(items.count)] }
}
