#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import Trove
import TroveModels

// One stored model, `Item`, as successive versions of an app declare it.

@Model("Item") struct ItemV1 {
    @Attribute(.primaryKey) var id: Int
    var name: String
    var price: Int = 0
}

/// Additive changes: a property with a default, an optional one, an index, a new model.
@Model("Item") struct ItemV2 {
    @Attribute(.primaryKey) var id: Int
    @Attribute(.indexed) var name: String
    var price: Int = 0
    var stock: Int = 5
    var note: String?
}

@Model struct Shelf {
    @Attribute(.primaryKey) var code: String
    var items: [ItemV2] = []
}

@Model("Item") struct ItemWithoutPrice {
    @Attribute(.primaryKey) var id: Int
    var name: String
}

@Model("Item") struct ItemWithDoublePrice {
    @Attribute(.primaryKey) var id: Int
    var name: String
    var price: Double = 0
}

@Suite struct ModelMigrationTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trove-models-\(UUID().uuidString)")

    func path() throws -> String {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("items.trove").path
    }

    func cleanup() { try? FileManager.default.removeItem(at: directory) }

    /// A store of a lamp, a desk and `more` other items written with the first version of the model.
    func seeded(more: Int = 0) throws -> String {
        let path = try path()
        let store = try Store(path: path, schema: Schema(ItemV1.self))
        try store.write { tx in
            try tx.insert(ItemV1(id: 1, name: "lamp", price: 30))
            try tx.insert(ItemV1(id: 2, name: "desk", price: 200))
            for id in 3..<(3 + more) { try tx.insert(ItemV1(id: id, name: "item \(id)")) }
        }
        return path
    }

    /// The message of the error opening `path` with `schema` throws.
    func openingError(_ path: String, _ schema: Schema) -> String? {
        do {
            _ = try Store(path: path, schema: schema)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func additiveChangesMigrateAutomatically() throws {
        // Enough items that the planner prefers the index to a scan.
        let path = try seeded(more: 20); defer { cleanup() }
        let store = try Store(path: path, schema: Schema(ItemV2.self, Shelf.self))
        let lamp = try #require(try store.read { try $0.object(ItemV2.self, primaryKey: 1) })
        #expect(lamp.name == "lamp" && lamp.price == 30 && lamp.stock == 5 && lamp.note == nil)
        // The new index holds the objects stored before it existed.
        let name = "desk"
        let plan = try store.read { try $0.explain(FetchDescriptor<ItemV2>(predicate: #Predicate { $0.name == name })) }
        #expect(!plan.isScan && plan.actualRows == 1)
        try store.write { tx in try tx.insert(Shelf(code: "A", items: [lamp])) }
        #expect(try store.read { try $0.object(Shelf.self, primaryKey: "A")?.items.map(\.id) } == [1])
        #expect(store.schema == (try Schema(ItemV2.self, Shelf.self)))
    }

    @Test func aRemovedPropertyIsRefusedAsWithASchemaFile() throws {
        let path = try seeded(); defer { cleanup() }
        let models = try Schema(ItemWithoutPrice.self)
        let fromModels = try #require(openingError(path, models))
        let fromFile = try #require(openingError(path, Schema(jsonData: Array(models.jsonText.utf8))))
        #expect(fromModels == fromFile)
        #expect(fromModels.contains("price"))
        // The refused open left the store as it was.
        let store = try Store(path: path, schema: Schema(ItemV1.self))
        #expect(try store.read { try $0.object(ItemV1.self, primaryKey: 2)?.price } == 200)
    }

    @Test func aRetypedPropertyIsRefusedAsWithASchemaFile() throws {
        let path = try seeded(); defer { cleanup() }
        let models = try Schema(ItemWithDoublePrice.self)
        let fromModels = try #require(openingError(path, models))
        let fromFile = try #require(openingError(path, Schema(jsonData: Array(models.jsonText.utf8))))
        #expect(fromModels == fromFile)
        #expect(fromModels.contains("price"))
    }

    @Test func aHigherSchemaVersionWithAMigrationRetypesAndRemoves() throws {
        let path = try seeded(); defer { cleanup() }
        var configuration = StoreConfiguration(path: path, schema: try Schema(ItemWithDoublePrice.self, schemaVersion: 1))
        configuration.migration = { migration in
            try migration.enumerateObjects("Item") { old, new in
                if case .int(let cents) = old["price"] { new["price"] = .double(Double(cents) / 100) }
            }
        }
        do {
            let store = try Store(configuration: configuration)
            #expect(try store.read { try $0.object(ItemWithDoublePrice.self, primaryKey: 2)?.price } == 2.0)
        }
        // A later version drops the property; its data goes with it.
        let store = try Store(path: path, schema: Schema(ItemWithoutPrice.self, schemaVersion: 2))
        #expect(try store.read { try $0.objects(ItemWithoutPrice.self, sortBy: [.init(\.id)]).map(\.name) } == ["lamp", "desk"])
    }

    @Test func deleteIfMigrationNeededWipesInsteadOfRefusing() throws {
        let path = try seeded(); defer { cleanup() }
        var configuration = StoreConfiguration(path: path, schema: try Schema(ItemWithoutPrice.self))
        configuration.deleteIfMigrationNeeded = true
        let store = try Store(configuration: configuration)
        #expect(try store.read { try $0.objects(ItemWithoutPrice.self).count } == 0)
    }
}
