import Foundation
import Testing
@testable import Trove

@Suite final class StoreMigrationTests {
    /// A folder of the test's own, removed after it.
    let dir = StoreTempDir()
    deinit { dir.cleanup() }

    static let v1 = """
    {"schemaVersion": 1, "models": [{"name": "Person", "primaryKey": "id", "properties": {
      "id": "int", "firstName": "string", "lastName": "string", "age": "int", "dog": "Dog?"}},
      {"name": "Dog", "primaryKey": "name", "properties": {"name": "string"}}]}
    """

    func open(_ path: String, _ schema: String, migration: (@Sendable (Migration) throws -> Void)? = nil, reset: Bool = false) throws -> Store {
        var c = StoreConfiguration(path: path, schema: try schemaFromJSON(schema))
        c.migration = migration
        c.deleteIfMigrationNeeded = reset
        return try Store(configuration: c)
    }

    /// A store of `v1` with Ada (and her dog Rex) and Alan: its path.
    func seeded() throws -> String {
        let path = dir.file("m.trove")
        try open(path, Self.v1).write { tx in
            try tx.insert("Dog", ["name": "Rex"])
            try tx.insert("Person", ["id": 1, "firstName": "Ada", "lastName": "Lovelace", "age": 36, "dog": "Rex"])
            try tx.insert("Person", ["id": 2, "firstName": "Alan", "lastName": "Turing", "age": 41])
        }
        return path
    }

    @Test func additiveChangesApplyWithoutAVersionBump() throws {
        let path = try seeded()
        let v1b = """
        {"schemaVersion": 1, "models": [{"name": "Person", "primaryKey": "id", "properties": {
          "id": "int", "firstName": "string", "lastName": {"type": "string", "indexed": true}, "age": "int", "dog": "Dog?",
          "email": "string?", "score": {"type": "double", "default": 1.5}}},
          {"name": "Dog", "primaryKey": "name", "properties": {"name": "string"}},
          {"name": "Cat", "properties": {"name": "string"}}]}
        """
        let s = try open(path, v1b)
        try s.read { (r) throws in
            let ada = try #require(try r.object("Person", primaryKey: 1))
            #expect(try ada["email"] == .null)
            #expect(try ada.double("score") == 1.5)
            #expect(try ada.object("dog")?.string("name") == "Rex")
            #expect(try r.count("Cat") == 0)
        }
        // The new index exists and holds every object.
        try s.read { (r) throws in
            let t = try #require(try r.tree("i:1:2"))
            #expect(t.count == 2)
        }
    }

    @Test func breakingChangesNeedAHigherVersion() throws {
        let path = try seeded()
        let removed = """
        {"schemaVersion": 1, "models": [{"name": "Person", "primaryKey": "id", "properties": {"id": "int", "firstName": "string"}},
          {"name": "Dog", "primaryKey": "name", "properties": {"name": "string"}}]}
        """
        #expect(throws: StoreError.self) { _ = try open(path, removed) }
        // The failed open left everything as it was.
        let s = try open(path, Self.v1)
        #expect(try s.read { try $0.object("Person", primaryKey: 1)?.string("lastName") } == "Lovelace")
    }

    @Test func aMigrationSeesOldAndNewObjects() throws {
        let path = try seeded()
        let v2 = """
        {"schemaVersion": 2, "models": [{"name": "Person", "primaryKey": "id", "properties": {
          "id": "int", "fullName": "string", "age": "string", "dog": "Dog?"}},
          {"name": "Dog", "primaryKey": "name", "properties": {"name": "string"}}]}
        """
        let s = try open(path, v2) { migration in
            #expect(migration.oldSchemaVersion == 1)
            try migration.enumerateObjects("Person") { old, new in
                guard case .string(let f) = old["firstName"], case .string(let l) = old["lastName"], case .int(let a) = old["age"] else { return }
                new["fullName"] = .string("\(f) \(l)")
                new["age"] = .string("\(a) years")
            }
        }
        try s.read { (r) throws in
            let ada = try #require(try r.object("Person", primaryKey: 1))
            #expect(try ada.string("fullName") == "Ada Lovelace")
            #expect(try ada.string("age") == "36 years")
            #expect(try ada.object("dog")?.string("name") == "Rex")
            #expect(throws: StoreError.self) { _ = try ada["firstName"] }
        }
        #expect(try s.verify().isEmpty)
    }

    @Test func aFailingMigrationLeavesTheStoreAsItWas() throws {
        let path = try seeded()
        struct Nope: Error {}
        let v2 = Self.v1.replacingOccurrences(of: "\"schemaVersion\": 1", with: "\"schemaVersion\": 2")
            .replacingOccurrences(of: "\"age\": \"int\",", with: "")
        #expect(throws: Nope.self) { _ = try open(path, v2) { _ in throw Nope() } }
        let s = try open(path, Self.v1)
        #expect(try s.read { try $0.object("Person", primaryKey: 2)?.int("age") } == 41)
        #expect(s.schema.schemaVersion == 1)
    }

    @Test func renamedModelsKeepTheirObjects() throws {
        let path = try seeded()
        let v2 = """
        {"schemaVersion": 2, "models": [{"name": "Human", "renamed": {"Human": "Person"}, "primaryKey": "id", "properties": {
          "id": "int", "firstName": "string", "lastName": "string", "age": "int", "dog": "Dog?"}},
          {"name": "Dog", "primaryKey": "name", "properties": {"name": "string"}}]}
        """
        let s = try open(path, v2)
        #expect(try s.read { try $0.object("Human", primaryKey: 2)?.string("firstName") } == "Alan")
    }

    @Test func aLowerVersionIsAnErrorUnlessResetIsAllowed() throws {
        let path = try seeded()
        let v0 = Self.v1.replacingOccurrences(of: "\"schemaVersion\": 1", with: "\"schemaVersion\": 0")
        #expect(throws: StoreError.self) { _ = try open(path, v0) }
        let s = try open(path, v0, reset: true)
        #expect(try s.read { try $0.count("Person") } == 0)
        #expect(s.schema.schemaVersion == 0)
    }

    /// `deleteIfMigrationNeeded` wipes only where the open would fail: a migration that the
    /// higher `schemaVersion` allows runs and keeps the data (Realm's option would wipe it).
    @Test func resetKeepsTheDataOfAnAllowedMigration() throws {
        let path = try seeded()
        let v2 = Self.v1.replacingOccurrences(of: "\"schemaVersion\": 1", with: "\"schemaVersion\": 2")
            .replacingOccurrences(of: "\"age\": \"int\",", with: "")
        let s = try open(path, v2, reset: true)
        try s.read { (r) throws in
            #expect(try r.count("Person") == 2)
            #expect(try r.object("Person", primaryKey: 1)?.string("lastName") == "Lovelace")
            #expect(try r.object("Person", primaryKey: 1)?.object("dog")?.string("name") == "Rex")
        }
        #expect(s.migrationLosses == MigrationLosses(cause: .migration(toSchemaVersion: 2), losses: [.property(model: "Person", property: "age")]))
    }

    /// A migration that is not allowed (a type changed at the same `schemaVersion`) wipes the
    /// store under `deleteIfMigrationNeeded`, which says what it deleted and why.
    @Test func resetWipesWhereTheMigrationIsNotAllowedAndSaysWhat() throws {
        let path = try seeded()
        let retyped = Self.v1.replacingOccurrences(of: "\"age\": \"int\"", with: "\"age\": \"string\"")
        #expect(throws: StoreError.self) { _ = try open(path, retyped) }
        let s = try open(path, retyped, reset: true)
        #expect(try s.read { try $0.count("Person") + $0.count("Dog") } == 0)
        let losses = try #require(s.migrationLosses)
        #expect(losses.losses == [.model("Person", objects: 2), .model("Dog", objects: 1)])
        guard case .reset(let reason) = losses.cause else { Issue.record("\(losses.cause)"); return }
        #expect(reason.contains("schemaVersion is still 1") && reason.contains("age"), "\(reason)")
        // The store keeps the new schema: opening it again with it discards nothing.
        #expect(try open(path, retyped, reset: true).migrationLosses == nil)
    }

    /// What a migration reports dropped is what it did not keep: a type its values are stored
    /// as (int to int64) and a rename keep them, a type they cannot be read as does not, nor
    /// does a removed property or model.
    @Test func migrationLossesAreWhatTheMigrationDidNotKeep() throws {
        let path = try seeded()
        let v2 = """
        {"schemaVersion": 2, "models": [{"name": "Human", "renamed": {"Human": "Person", "surname": "lastName", "years": "age"},
          "primaryKey": "id", "properties": {"id": "int64", "surname": "string", "years": "string"}}]}
        """
        let s = try open(path, v2)
        #expect(s.migrationLosses == MigrationLosses(cause: .migration(toSchemaVersion: 2), losses: [
            .values(model: "Human", property: "years", from: .int, to: .string),
            .property(model: "Human", property: "firstName"),
            .property(model: "Human", property: "dog"),
            .model("Dog", objects: 1)]))
        try s.read { (r) throws in
            let ada = try #require(try r.object("Human", primaryKey: 1))
            #expect(try ada["id"] == .int(1))
            #expect(try ada.string("surname") == "Lovelace")
            #expect(try ada.string("years") == "")
        }
        // A migration that keeps every value (a rename) reports nothing.
        let v3 = """
        {"schemaVersion": 3, "models": [{"name": "Human", "renamed": {"familyName": "surname"},
          "primaryKey": "id", "properties": {"id": "int64", "familyName": "string", "years": "string"}}]}
        """
        let renamed = try open(path, v3)
        #expect(renamed.migrationLosses == nil)
        #expect(try renamed.read { try $0.object("Human", primaryKey: 1)?.string("familyName") } == "Lovelace")
    }

    /// Making an optional property required keeps its values, but not its nulls: each object
    /// that held null has the default, and the losses say how many.
    @Test func aPropertyMadeRequiredReportsItsNullsAsLost() throws {
        let path = dir.file("m.trove")
        try open(path, #"{"schemaVersion": 0, "models": [{"name": "M", "properties": {"a": "int?"}}]}"#).write { tx in
            try tx.insert("M", ["a": .null])
            try tx.insert("M", ["a": 7])
        }
        let s = try open(path, #"{"schemaVersion": 1, "models": [{"name": "M", "properties": {"a": "int"}}]}"#)
        #expect(try s.read { r in try r.objects("M").map { try $0.int("a") ?? -1 }.sorted() } == [0, 7])
        #expect(s.migrationLosses == MigrationLosses(cause: .migration(toSchemaVersion: 1), losses: [
            .nulls(model: "M", property: "a", objects: 1)]))
        // With no null to lose, nothing is reported.
        let path2 = dir.file("n.trove")
        try open(path2, #"{"schemaVersion": 0, "models": [{"name": "M", "properties": {"a": "int?"}}]}"#).write { tx in
            try tx.insert("M", ["a": 7])
        }
        #expect(try open(path2, #"{"schemaVersion": 1, "models": [{"name": "M", "properties": {"a": "int"}}]}"#).migrationLosses == nil)
    }

    /// A rename whose new name the old schema still has is no rename, for the migration as for
    /// its plan: each model and property keeps its own objects and values, and the old one
    /// named as renamed is removed.
    @Test func aRenameToANameTheStoreHasIsNoRename() throws {
        let path = dir.file("m.trove")
        let v1 = """
            {"schemaVersion": 1, "models": [{"name": "A", "primaryKey": "id", "properties": {"id": "int"}},
              {"name": "B", "primaryKey": "id", "properties": {"id": "int", "x": "int", "y": "int"}}]}
            """
        try open(path, v1).write { tx in
            try tx.insert("A", ["id": 1])
            try tx.insert("B", ["id": 2, "x": 3, "y": 4])
        }
        let v2 = """
            {"schemaVersion": 2, "models": [{"name": "B", "renamed": {"B": "A", "y": "x"}, "primaryKey": "id",
              "properties": {"id": "int", "y": "int"}}]}
            """
        let plan = try schemaFromJSON(v2).migrationPlan(from: try schemaFromJSON(v1))
        #expect(plan.changes.contains(.removedModel("A")) && !plan.changes.contains { if case .renamedModel = $0 { true } else { false } })
        let s = try open(path, v2)
        #expect(try s.read { try $0.objects("B").map { try $0["y"] } } == [.int(4)])
        #expect(s.migrationLosses?.losses == [.property(model: "B", property: "x"), .model("A", objects: 1)])
    }

    /// A link to a renamed model keeps its objects' links: its type names the new model.
    @Test func linksToARenamedModelAreKept() throws {
        let path = try seeded()
        let v2 = """
        {"schemaVersion": 2, "models": [{"name": "Person", "primaryKey": "id", "properties": {
          "id": "int", "firstName": "string", "lastName": "string", "age": "int", "dog": "Hound?"}},
          {"name": "Hound", "renamed": {"Hound": "Dog"}, "primaryKey": "name", "properties": {"name": "string"}}]}
        """
        let s = try open(path, v2)
        #expect(s.migrationLosses == nil)
        #expect(try s.read { try $0.object("Person", primaryKey: 1)?.object("dog")?.string("name") } == "Rex")
    }

    /// A property whose type changed, or a new one in place of a removed one, starts from its
    /// default in a migration, though its fresh id may be one an old property had: old values
    /// are never read as the new type.
    @Test(arguments: [false, true])
    func aChangedTypeStartsFromItsDefaultInAMigration(reset: Bool) throws {
        let path = dir.file("m.trove")
        let v1 = """
            {"schemaVersion": 1, "models": [{"name": "P", "primaryKey": "id", "properties": {"id": "int", "n": "int", "a": "int"}}]}
            """
        try open(path, v1).write { tx in try tx.insert("P", ["id": 1, "n": 3, "a": 4]) }
        // `n` becomes a string and `a` is removed for `b`, a string: both took the id of an
        // old int (`trove --schema v2 --reset-on-migration` failed: "property 'n' expects
        // string, not the number 3").
        let v2 = """
            {"schemaVersion": 2, "models": [{"name": "P", "primaryKey": "id", "properties": {"id": "int", "n": "string", "b": "string?"}}]}
            """
        let s = try open(path, v2, reset: reset)
        try s.read { r in
            let p = try #require(try r.object("P", primaryKey: 1))
            #expect(try p["n"] == .string(""))
            #expect(try p["b"] == .null)
            #expect(try r.objects("P", where: "n == ''").count == 1)
        }
    }
}
