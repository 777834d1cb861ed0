import Foundation
import Testing
@testable import Trove

/// A schema whose default is NaN (`"default": "NaN"`) is the same schema when it is opened
/// again: Swift's `==` finds a NaN unequal to itself, and the migration diff must not.
@Suite final class NaNDefaultSchemaTests {
    let dir = StoreTempDir()
    deinit { dir.cleanup() }

    static let text = #"""
        {"models": [{"name": "M", "primaryKey": "id", "properties": {"id": "int",
          "d": {"type": "double", "default": "NaN"}, "f": {"type": "float", "default": "NaN"}}}]}
        """#

    @Test func aNaNDefaultIsNoChange() throws {
        let a = try schemaFromJSON(Self.text), b = try schemaFromJSON(Self.text)
        #expect(a == b)
        #expect(b.migrationPlan(from: a).verdict == .unchanged)
        #expect(b.migrationPlan(from: a).changes.isEmpty)
        let other = try schemaFromJSON(Self.text.replacingOccurrences(of: #""default": "NaN"}, "f""#, with: #""default": 1}, "f""#))
        #expect(other != a)
        #expect(other.migrationPlan(from: a).changes.count == 1)
    }

    @Test func aSecondOpenWritesNothing() throws {
        let path = dir.file("nan.trove")
        let configuration = StoreConfiguration(path: path, schema: try schemaFromJSON(Self.text))
        do {
            let store = try Store(configuration: configuration)
            try store.write { tx in _ = try tx.insert("M", ["id": 1]) }
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            let store = try Store(configuration: configuration)
            try store.read { r in
                let object = try #require(try r.object("M", primaryKey: 1))
                #expect(try object.double("d")?.isNaN == true)
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
