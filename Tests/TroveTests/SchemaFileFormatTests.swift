import Foundation
import Testing
@testable import Trove

/// `Schemas/trove-schema.json` describes the schema format for editors; these tests keep it
/// and the example files in agreement.
@Suite struct SchemaFileFormatTests {
    func validator() throws -> JSONSchemaValidator {
        JSONSchemaValidator(root: try SchemaFixtures.json("trove-schema.json"))
    }

    @Test func theFormatSchemaIsADraft2020_12Schema() throws {
        let root = try SchemaFixtures.json("trove-schema.json")
        #expect(root.objectValue?["$schema"] == "https://json-schema.org/draft/2020-12/schema")
        #expect(try validator().errors(in: [:]) == [#"$: missing required "models""#])
    }

    @Test(arguments: SchemaFixtures.exampleNames)
    func everyExampleValidatesAgainstTheFormatSchema(_ name: String) throws {
        #expect(try validator().errors(in: try SchemaFixtures.json(name)) == [])
    }

    @Test(arguments: SchemaFixtures.exampleNames)
    func theCanonicalFormOfEveryExampleValidatesToo(_ name: String) throws {
        let schema = try Schema(contentsOf: SchemaFixtures.url(name))
        #expect(try validator().errors(in: schema.jsonValue) == [])
    }

    static let broken: [(name: String, json: String)] = [
        ("unknown root key", #"{"models": [], "version": 1}"#),
        ("negative schemaVersion", #"{"schemaVersion": -1, "models": []}"#),
        ("fractional schemaVersion", #"{"schemaVersion": 1.5, "models": []}"#),
        ("models not an array", #"{"models": {}}"#),
        ("model without properties", #"{"models": [{"name": "A"}]}"#),
        ("model name starting with a digit", #"{"models": [{"name": "1A", "properties": {"a": "int"}}]}"#),
        ("unknown model key", #"{"models": [{"name": "A", "properties": {"a": "int"}, "embedded": true}]}"#),
        ("type with two question marks", #"{"models": [{"name": "A", "properties": {"a": "int??"}}]}"#),
        ("nullable list", #"{"models": [{"name": "A", "properties": {"a": "int[]?"}}]}"#),
        ("linkingObjects as a string", #"{"models": [{"name": "A", "properties": {"a": "linkingObjects"}}]}"#),
        ("linkingObjects without property", #"{"models": [{"name": "A", "properties": {"a": {"type": "linkingObjects", "objectType": "A"}}}]}"#),
        ("indexed not a boolean", #"{"models": [{"name": "A", "properties": {"a": {"type": "int", "indexed": "yes"}}}]}"#),
        ("unknown property key", #"{"models": [{"name": "A", "properties": {"a": {"type": "int", "index": true}}}]}"#),
        ("property name with a space", #"{"models": [{"name": "A", "properties": {"a b": "int"}}]}"#),
        ("property as a number", #"{"models": [{"name": "A", "properties": {"a": 1}}]}"#),
        ("default as an object", #"{"models": [{"name": "A", "properties": {"a": {"type": "int", "default": {}}}}]}"#),
        ("renamed to a number", #"{"models": [{"name": "A", "properties": {"a": "int"}, "renamed": {"a": 1}}]}"#),
    ]

    @Test(arguments: broken.map(\.name))
    func brokenFilesFailTheFormatSchema(_ name: String) throws {
        let json = try JSONParser().parse(Self.broken.first { $0.name == name }!.json)
        #expect(try !validator().errors(in: json).isEmpty)
        // Trove refuses them too.
        #expect(throws: SchemaError.self) { try Schema(json: json) }
    }

    @Test func theValidatorRefusesKeywordsItDoesNotImplement() {
        let validator = JSONSchemaValidator(root: ["type": "object", "minProperties": 1])
        #expect(validator.errors(in: ["a": 1]) == ["$: unsupported keyword minProperties"])
    }
}
