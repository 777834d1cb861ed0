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

