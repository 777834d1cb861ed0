import Foundation
@testable import Trove

/// The example schemas in `Schemas/` at the package root.
enum SchemaFixtures {
    static let schemasDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Schemas")

    static let exampleNames = ["User.json", "Comics.json", "Tasks.json", "People.json", "AllTypes.json"]

    static func url(_ name: String) -> URL { schemasDirectory.appendingPathComponent(name) }

    static func json(_ name: String) throws -> JSONValue {
        try JSONParser().parse(Data(contentsOf: url(name)))
    }

    /// A schema from text, as if read from `test.json`.
    static func schema(_ text: String) throws(SchemaError) -> Schema {
        try Schema(jsonData: Array(text.utf8), fileName: "test.json")
    }
}
