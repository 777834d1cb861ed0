import Testing
@testable import Trove

@Suite struct MigrationPlanTests {
    static let base = #"""
        {"schemaVersion": 1, "models": [
          {"name": "Person", "primaryKey": "id", "properties": {"id": "int", "name": "string", "age": "int?", "dogs": "Dog[]"}},
          {"name": "Dog", "properties": {"name": {"type": "string", "indexed": true}, "age": "int"}}
        ]}
        """#

    func schema(_ text: String) throws -> Schema { try SchemaFixtures.schema(text) }

    /// The base schema with `old` replaced by `new` (and the version set).
    func variant(_ old: String, _ new: String, version: Int = 1) throws -> Schema {
        let text = old.isEmpty ? Self.base : Self.base.replacingOccurrences(of: old, with: new)
        return try schema(text.replacingOccurrences(of: #""schemaVersion": 1"#, with: #""schemaVersion": \#(version)"#))
    }

    func plan(_ new: Schema) throws -> MigrationPlan { new.migrationPlan(from: try schema(Self.base)) }

    @Test func anIdenticalSchemaNeedsNothing() throws {
        let p = try plan(try schema(Self.base))
        #expect(p.changes.isEmpty)
        #expect(p.verdict == .unchanged)
        #expect(throws: Never.self) { try p.check() }
    }

    @Test func aNewModelIsAdditive() throws {
        let p = try plan(try variant(#"{"name": "Dog""#, #"{"name": "Cat", "properties": {"name": "string"}}, {"name": "Dog""#))
        #expect(p.changes == [.addedModel("Cat")])
        #expect(p.verdict == .automatic)
    }

    @Test(arguments: [#""nick": "string?""#, #""nick": {"type": "string", "default": "x"}"#, #""nick": "string[]""#, #""nick": "Dog?""#])
    func aNewOptionalDefaultedOrCollectionPropertyIsAdditive(_ property: String) throws {
        let p = try plan(try variant(#""dogs": "Dog[]""#, #""dogs": "Dog[]", \#(property)"#))
        #expect(p.changes.count == 1)
        #expect(p.changes.allSatisfy { $0.isAdditive })
        #expect(p.verdict == .automatic)
    }

    @Test func aNewLinkingObjectsPropertyIsAdditive() throws {
        let p = try plan(try variant(#""age": "int"}"#, #""age": "int", "owners": {"type": "linkingObjects", "objectType": "Person", "property": "dogs"}}"#))
        #expect(p.verdict == .automatic)
    }

    @Test func aNewRequiredPropertyWithoutDefaultNeedsAHigherVersion() throws {
        let same = try plan(try variant(#""dogs": "Dog[]""#, #""dogs": "Dog[]", "email": "string""#))
        #expect(same.verdict == .needsHigherVersion)
        #expect(throws: MigrationError.self) { try same.check() }
        let bumped = try plan(try variant(#""dogs": "Dog[]""#, #""dogs": "Dog[]", "email": "string""#, version: 2))
        #expect(bumped.verdict == .migration)
        #expect(throws: Never.self) { try bumped.check() }
    }

    @Test func theErrorForANewRequiredPropertySaysHowToAddItWithoutAMigration() throws {
        let p = try plan(try variant(#""dogs": "Dog[]""#, #""dogs": "Dog[]", "score": "double""#))
        do {
            try p.check()
            Issue.record("allowed a required property without a default at the same version")
        } catch {
            #expect(error.message == "the schema changed in ways that need a migration, but schemaVersion is still 1 (raise it to 2 or more): property 'Person.score' (double) added, required and without a default (give it a default or make it optional to add it without a migration)")
        }
    }

    @Test func aRemovedPropertyNeedsAHigherVersionAndIsNamedInTheError() throws {
        let p = try plan(try variant(#", "age": "int?""#, ""))
        #expect(p.changes == [.removedProperty(model: "Person", PropertySchema(name: "age", type: .int, isOptional: true))])
        do {
            try p.check()
            Issue.record("allowed a removal at the same version")
        } catch {
            #expect(error.verdict == .needsHigherVersion)
            #expect(error.message == "the schema changed in ways that need a migration, but schemaVersion is still 1 (raise it to 2 or more): property 'Person.age' removed")
        }
    }

    @Test func aChangedTypeNeedsAHigherVersion() throws {
        let p = try plan(try variant(#""age": "int?""#, #""age": "string?""#))
        #expect(p.changes == [.changedPropertyType(model: "Person", property: "age", from: .int, to: .string)])
        #expect(p.verdict == .needsHigherVersion)
    }

    @Test func intAndInt64AreTheSameStorage() throws {
        let p = try plan(try variant(#""age": "int?""#, #""age": "int64?""#))
        #expect(p.changes.count == 1)
        #expect(p.verdict == .automatic)
    }

    @Test func changedOptionalityNeedsAHigherVersion() throws {
        let p = try plan(try variant(#""age": "int?""#, #""age": "int""#))
        #expect(p.changes == [.changedOptionality(model: "Person", property: "age", isOptional: false)])
        #expect(p.verdict == .needsHigherVersion)
    }

    @Test func addingAndDroppingIndexesIsAdditive() throws {
        let p = try plan(try schema(Self.base
            .replacingOccurrences(of: #""name": "string", "age": "int?""#, with: #""name": {"type": "string", "indexed": true}, "age": "int?""#)
            .replacingOccurrences(of: #""name": {"type": "string", "indexed": true}, "age": "int"}"#, with: #""name": "string", "age": "int"}"#)))
        #expect(p.changes == [.addedIndex(model: "Person", property: "name"), .removedIndex(model: "Dog", property: "name")])
        #expect(p.verdict == .automatic)
    }

    @Test func aChangedPrimaryKeyNeedsAHigherVersion() throws {
        let p = try plan(try variant(#""primaryKey": "id""#, #""primaryKey": "name""#))
        #expect(p.changes == [.removedIndex(model: "Person", property: "id"), .addedIndex(model: "Person", property: "name"),
                              .changedPrimaryKey(model: "Person", from: "id", to: "name")])
        #expect(p.verdict == .needsHigherVersion)
    }

    @Test func aRemovedModelNeedsAHigherVersion() throws {
        let p = try plan(try schema(#"{"schemaVersion": 2, "models": [{"name": "Person", "primaryKey": "id", "properties": {"id": "int", "name": "string", "age": "int?"}}]}"#))
        #expect(p.changes.contains(.removedModel("Dog")))
        #expect(p.verdict == .migration)
    }

    @Test func aRenamedModelKeepsItsDataAndItsLinks() throws {
        let text = Self.base
            .replacingOccurrences(of: #"{"name": "Dog", "properties""#, with: #"{"name": "Hound", "renamed": {"Hound": "Dog"}, "properties""#)
            .replacingOccurrences(of: #""Dog[]""#, with: #""Hound[]""#)
            .replacingOccurrences(of: #""schemaVersion": 1"#, with: #""schemaVersion": 2"#)
        // Person's list now names Hound: not a type change, since Dog became Hound.
        let p = try plan(try schema(text))
        #expect(p.changes == [.renamedModel(from: "Dog", to: "Hound")])
        #expect(p.verdict == .migration)
    }

    @Test func aRenamedPropertyKeepsItsData() throws {
        let p = try plan(try variant(#""age": "int"}"#, #""years": "int"}, "renamed": {"years": "age"}"#, version: 2))
        #expect(p.changes == [.renamedProperty(model: "Dog", from: "age", to: "years")])
        #expect(p.verdict == .migration)
    }

    @Test func aRenameAlreadyAppliedIsIgnored() throws {
        let renamed = try variant(#""age": "int"}"#, #""years": "int"}, "renamed": {"years": "age"}"#, version: 2)
        #expect(renamed.migrationPlan(from: renamed).verdict == .unchanged)
    }

    @Test func aLowerVersionIsAnError() throws {
        let p = try schema(Self.base).migrationPlan(from: try variant("", "", version: 3))
        #expect(p.verdict == .versionTooLow)
        #expect(throws: MigrationError(verdict: .versionTooLow, message: "schemaVersion 1 is lower than the store's schemaVersion 3")) {
            try p.check()
        }
    }

    @Test func aHigherVersionAloneAppliesAutomatically() throws {
        #expect(try plan(try variant("", "", version: 2)).verdict == .automatic)
    }

    @Test func reorderingPropertiesAndChangingDefaultsIsAdditive() throws {
        let p = try plan(try variant(#""name": "string", "age": "int?""#, #""age": "int?", "name": {"type": "string", "default": "?"}"#))
        #expect(p.changes == [.changedDefault(model: "Person", property: "name", from: nil, to: .string("?")), .reorderedProperties(model: "Person")])
        #expect(p.verdict == .automatic)
    }
}
