import Foundation
import Testing
@testable import Trove

@Suite struct SchemaErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var json: String
        var kind: SchemaError.Kind
        var path: String
        var reason: String
        var testDescription: String { name }
    }

    /// A schema with one model `M` whose properties are `properties` (JSON object members).
    static func model(_ properties: String, extra: String = "") -> String {
        #"{"models": [{"name": "M"\#(extra), "properties": {\#(properties)}}]}"#
    }

    /// `Person`/`Dog` with `dogProperties` as Dog's properties.
    static func people(dog dogProperties: String) -> String {
        #"""
        {"models": [
          {"name": "Person", "primaryKey": "id", "properties": {"id": "int", "name": "string", "dogs": "Dog[]", "pet": "Dog?"}},
          {"name": "Dog", "properties": {\#(dogProperties)}}
        ]}
        """#
    }

    static let cases: [Case] = [
        // Document structure
        Case(name: "not JSON", json: #"{"models": [}"#, kind: .invalidJSON, path: "", reason: "invalid JSON: line 1, column 13: expected a value"),
        Case(name: "not an object", json: "[]", kind: .invalidStructure, path: "", reason: "a schema is a JSON object"),
        Case(name: "no models", json: #"{"schemaVersion": 1}"#, kind: .invalidStructure, path: "", reason: "missing \"models\""),
        Case(name: "models not an array", json: #"{"models": {}}"#, kind: .invalidStructure, path: "models", reason: "\"models\" must be an array"),
        Case(name: "unknown root key", json: #"{"model": [], "models": []}"#, kind: .invalidStructure, path: "model", reason: "unknown key \"model\" in the schema; did you mean 'models'?"),
        Case(name: "duplicate root key", json: #"{"models": [], "models": []}"#, kind: .invalidStructure, path: "models", reason: "duplicate key \"models\""),
        Case(name: "negative schemaVersion", json: #"{"schemaVersion": -1, "models": []}"#, kind: .invalidSchemaVersion, path: "schemaVersion", reason: "non-negative integer, found -1"),
        Case(name: "fractional schemaVersion", json: #"{"schemaVersion": 1.5, "models": []}"#, kind: .invalidSchemaVersion, path: "schemaVersion", reason: "non-negative integer, found 1.5"),
        Case(name: "string schemaVersion", json: #"{"schemaVersion": "2", "models": []}"#, kind: .invalidSchemaVersion, path: "schemaVersion", reason: "found a string"),
        Case(name: "model not an object", json: #"{"models": ["Person"]}"#, kind: .invalidStructure, path: "models[0]", reason: "a model is a JSON object"),
        Case(name: "model without name", json: #"{"models": [{"properties": {"a": "int"}}]}"#, kind: .invalidStructure, path: "models[0]", reason: "a model needs a \"name\""),
        Case(name: "model without properties", json: #"{"models": [{"name": "A"}]}"#, kind: .invalidStructure, path: "models[0]", reason: "model 'A' needs \"properties\""),
        Case(name: "properties as an array", json: #"{"models": [{"name": "A", "properties": ["a"]}]}"#, kind: .invalidStructure, path: "models[0].properties", reason: "must be an object of property names to types"),
        Case(name: "unknown model key", json: model(#""a": "int""#, extra: #", "primarykey": "a""#), kind: .invalidStructure, path: "models[0].primarykey", reason: "unknown key \"primarykey\" in a model; did you mean 'primaryKey'?"),
        Case(name: "empty model", json: model(""), kind: .emptyModel, path: "models[0].properties", reason: "model 'M' has no properties"),
        // Names
        Case(name: "model name starting with a digit", json: #"{"models": [{"name": "1Dog", "properties": {"a": "int"}}]}"#, kind: .invalidModelName, path: "models[0].name", reason: "invalid model name \"1Dog\": a model name starts with a letter"),
        Case(name: "model name with a space", json: #"{"models": [{"name": "Big Dog", "properties": {"a": "int"}}]}"#, kind: .invalidModelName, path: "models[0].name", reason: "invalid model name \"Big Dog\""),
        Case(name: "model named like a type", json: #"{"models": [{"name": "string", "properties": {"a": "int"}}]}"#, kind: .invalidModelName, path: "models[0].name", reason: "'string' is a type name"),
        Case(name: "duplicate model", json: #"{"models": [{"name": "A", "properties": {"a": "int"}}, {"name": "A", "properties": {"b": "int"}}]}"#, kind: .duplicateModel, path: "models[1].name", reason: "duplicate model name 'A' (first defined at models[0])"),
        Case(name: "duplicate property", json: model(#""a": "int", "b": "string", "a": "string""#), kind: .duplicateProperty, path: "models[0].properties.a", reason: "duplicate property 'a' in model 'M'"),
        Case(name: "invalid property name", json: model(#""first name": "string""#), kind: .invalidPropertyName, path: #"models[0].properties["first name"]"#, reason: "invalid property name \"first name\""),
        Case(name: "property name with a symbol", json: model(#""prix€": "int""#), kind: .invalidPropertyName, path: #"models[0].properties["prix€"]"#, reason: "invalid property name \"prix€\": a property name starts with a letter or '_' and has only letters, digits and '_'"),
        Case(name: "model name starting with a non-ASCII digit", json: #"{"models": [{"name": "٣Dog", "properties": {"a": "int"}}]}"#, kind: .invalidModelName, path: "models[0].name", reason: "invalid model name \"٣Dog\""),
        // Types
        Case(name: "unknown type", json: model(#""a": "integer""#), kind: .unknownType, path: "models[0].properties.a", reason: "unknown type 'integer': neither a built-in type nor a model of this schema; did you mean 'int'?"),
        Case(name: "link to unknown model", json: people(dog: #""name": "string", "owner": "Persn?""#), kind: .unknownType, path: "models[1].properties.owner", reason: "unknown type 'Persn': neither a built-in type nor a model of this schema; did you mean 'Person'?"),
        Case(name: "list of unknown model", json: model(#""a": "Cat[]""#), kind: .unknownType, path: "models[0].properties.a", reason: "unknown type 'Cat'"),
        Case(name: "type in object form unknown", json: model(#""a": {"type": "strin"}"#), kind: .unknownType, path: "models[0].properties.a.type", reason: "did you mean 'string'?"),
        Case(name: "malformed type", json: model(#""a": "int[""#), kind: .invalidType, path: "models[0].properties.a", reason: "\"int[\" is not a type"),
        Case(name: "nullable list", json: model(#""a": "int[]?""#), kind: .invalidType, path: "models[0].properties.a", reason: "a list cannot be null (it is empty instead); for null elements write \"int?[]\""),
        Case(name: "nullable list of links", json: people(dog: #""name": "string", "friends": "Dog[]?""#), kind: .invalidType, path: "models[1].properties.friends", reason: "a list cannot be null (it is empty instead); write \"Dog[]\""),
        Case(name: "nested list", json: model(#""a": "int[][]""#), kind: .invalidType, path: "models[0].properties.a", reason: "lists of lists are not supported"),
        Case(name: "linkingObjects as a string", json: model(#""a": "linkingObjects""#), kind: .invalidType, path: "models[0].properties.a", reason: "linkingObjects needs the object form"),
        Case(name: "property of wrong JSON type", json: model(#""a": 5"#), kind: .invalidStructure, path: "models[0].properties.a", reason: "a property is a type string such as \"int?\" or an object with \"type\", found a number"),
        Case(name: "property object without type", json: model(#""a": {"indexed": true}"#), kind: .invalidStructure, path: "models[0].properties.a", reason: "a property object needs \"type\""),
        Case(name: "unknown property key", json: model(#""a": {"type": "int", "index": true}"#), kind: .invalidStructure, path: "models[0].properties.a.index", reason: "unknown key \"index\" in a property; did you mean 'indexed'?"),
        Case(name: "objectType on a plain type", json: model(#""a": {"type": "int", "objectType": "M"}"#), kind: .invalidStructure, path: "models[0].properties.a.objectType", reason: "\"objectType\" only applies to linkingObjects"),
        // Optionality
        Case(name: "required link", json: people(dog: #""name": "string", "owner": {"type": "Person", "optional": false}"#), kind: .invalidOptionality, path: "models[1].properties.owner.optional", reason: "a to-one link is always optional"),
        Case(name: "list of optional links", json: people(dog: #""name": "string", "friends": "Dog?[]""#), kind: .invalidOptionality, path: "models[1].properties.friends", reason: "a list of links cannot contain null; write \"Dog[]\""),
        Case(name: "contradictory optional", json: model(#""a": {"type": "int?", "optional": false}"#), kind: .invalidOptionality, path: "models[0].properties.a.optional", reason: "\"optional\": false contradicts the type \"int?\""),
        Case(name: "optional not a boolean", json: model(#""a": {"type": "int", "optional": "yes"}"#), kind: .invalidOptionality, path: "models[0].properties.a.optional", reason: "must be true or false, found a string"),
        // Primary keys
        Case(name: "primary key not a property", json: model(#""id": "int""#, extra: #", "primaryKey": "ident""#), kind: .invalidPrimaryKey, path: "models[0].primaryKey", reason: "primary key 'ident' is not a property of 'M'"),
        Case(name: "primary key of type double", json: model(#""id": "double""#, extra: #", "primaryKey": "id""#), kind: .invalidPrimaryKey, path: "models[0].primaryKey", reason: "primary key 'id' has type double; a primary key is int, int8, int16, int32, int64, string or uuid"),
        Case(name: "primary key of type date", json: model(#""id": "date""#, extra: #", "primaryKey": "id""#), kind: .invalidPrimaryKey, path: "models[0].primaryKey", reason: "has type date"),
        Case(name: "primary key that is a list", json: model(#""id": "int[]""#, extra: #", "primaryKey": "id""#), kind: .invalidPrimaryKey, path: "models[0].primaryKey", reason: "has type int[]"),
        Case(name: "primary key that is a link", json: model(#""id": "M?""#, extra: #", "primaryKey": "id""#), kind: .invalidPrimaryKey, path: "models[0].primaryKey", reason: "has type M?"),
        Case(name: "primary key with a default", json: model(#""id": {"type": "int", "default": 1}"#, extra: #", "primaryKey": "id""#), kind: .invalidPrimaryKey, path: "models[0].properties.id.default", reason: "cannot have a default"),
        Case(name: "primary key not a string", json: model(#""id": "int""#, extra: #", "primaryKey": 1"#), kind: .invalidPrimaryKey, path: "models[0].primaryKey", reason: "primaryKey must be the name of a property, found a number"),
        // Indexes
        Case(name: "index on double", json: model(#""a": {"type": "double", "indexed": true}"#), kind: .invalidIndex, path: "models[0].properties.a.indexed", reason: "a double property cannot be indexed"),
        Case(name: "index on a list", json: model(#""a": {"type": "string[]", "indexed": true}"#), kind: .invalidIndex, path: "models[0].properties.a.indexed", reason: "a list cannot be indexed"),
        Case(name: "index on a link", json: model(#""a": {"type": "M", "indexed": true}"#), kind: .invalidIndex, path: "models[0].properties.a.indexed", reason: "a link cannot be indexed"),
        Case(name: "indexed not a boolean", json: model(#""a": {"type": "int", "indexed": 1}"#), kind: .invalidIndex, path: "models[0].properties.a.indexed", reason: "\"indexed\" must be true or false"),
        // Defaults
        Case(name: "string default on int", json: model(#""a": {"type": "int", "default": "0"}"#), kind: .invalidDefault, path: "models[0].properties.a.default", reason: "the default does not fit: property 'a' expects int, not the string \"0\""),
        Case(name: "fractional default on int", json: model(#""a": {"type": "int", "default": 1.5}"#), kind: .invalidDefault, path: "models[0].properties.a.default", reason: "not 1.5, which is not a whole number"),
        Case(name: "default out of range", json: model(#""a": {"type": "int8", "default": 300}"#), kind: .invalidDefault, path: "models[0].properties.a.default", reason: "300, which is out of range (-128...127)"),
        Case(name: "null default on required", json: model(#""a": {"type": "string", "default": null}"#), kind: .invalidDefault, path: "models[0].properties.a.default", reason: "the default is null but 'a' is not optional"),
        Case(name: "bad date default", json: model(#""a": {"type": "date", "default": "yesterday"}"#), kind: .invalidDefault, path: "models[0].properties.a.default", reason: "\"yesterday\", which is not an ISO 8601 date"),
        Case(name: "bad uuid default", json: model(#""a": {"type": "uuid", "default": "123"}"#), kind: .invalidDefault, path: "models[0].properties.a.default", reason: "\"123\", which is not a UUID"),
        Case(name: "bad base64 default", json: model(#""a": {"type": "data", "default": "***"}"#), kind: .invalidDefault, path: "models[0].properties.a.default", reason: "which is not base64"),
        Case(name: "number default on decimal", json: model(#""a": {"type": "decimal", "default": 1}"#), kind: .invalidDefault, path: "models[0].properties.a.default", reason: "not the number 1 (JSON writes a decimal as a string, \"1\", to keep every digit)"),
        Case(name: "bad decimal default", json: model(#""a": {"type": "decimal", "default": "1.2.3"}"#), kind: .invalidDefault, path: "models[0].properties.a.default", reason: "\"1.2.3\", which is not a decimal number"),
        Case(name: "default on a list", json: model(#""a": {"type": "int[]", "default": []}"#), kind: .invalidDefault, path: "models[0].properties.a.default", reason: "a list cannot have a default: it starts empty"),
        Case(name: "default on a link", json: model(#""a": {"type": "M?", "default": null}"#), kind: .invalidDefault, path: "models[0].properties.a.default", reason: "a link cannot have a default"),
        Case(name: "float default out of range", json: model(#""a": {"type": "float", "default": 1e300}"#), kind: .invalidDefault, path: "models[0].properties.a.default", reason: "out of range for float"),
        // linkingObjects
        Case(name: "linkingObjects of unknown model", json: people(dog: #""name": "string", "owners": {"type": "linkingObjects", "objectType": "Persn", "property": "dogs"}"#), kind: .invalidLinkingObjects, path: "models[1].properties.owners.objectType", reason: "linkingObjects: 'Persn' is not a model of this schema; did you mean 'Person'?"),
        Case(name: "linkingObjects of unknown property", json: people(dog: #""name": "string", "owners": {"type": "linkingObjects", "objectType": "Person", "property": "dogz"}"#), kind: .invalidLinkingObjects, path: "models[1].properties.owners.property", reason: "model 'Person' has no property 'dogz'; did you mean 'dogs'?"),
        Case(name: "linkingObjects of a non-link", json: people(dog: #""name": "string", "owners": {"type": "linkingObjects", "objectType": "Person", "property": "name"}"#), kind: .invalidLinkingObjects, path: "models[1].properties.owners.property", reason: "'Person.name' is string, not a link or list of links to 'Dog'"),
        Case(name: "linkingObjects of a link elsewhere", json: #"""
            {"models": [
              {"name": "Person", "properties": {"cat": "Cat?"}},
              {"name": "Cat", "properties": {"name": "string"}},
              {"name": "Dog", "properties": {"owners": {"type": "linkingObjects", "objectType": "Person", "property": "cat"}}}
            ]}
            """#, kind: .invalidLinkingObjects, path: "models[2].properties.owners.property", reason: "'Person.cat' links to 'Cat', not to 'Dog'"),
        Case(name: "linkingObjects without property", json: people(dog: #""owners": {"type": "linkingObjects", "objectType": "Person"}"#), kind: .invalidLinkingObjects, path: "models[1].properties.owners", reason: "linkingObjects needs \"property\""),
        Case(name: "indexed linkingObjects", json: people(dog: #""owners": {"type": "linkingObjects", "objectType": "Person", "property": "dogs", "indexed": true}"#), kind: .invalidLinkingObjects, path: "models[1].properties.owners.indexed", reason: "they take no \"indexed\""),
        // Renames
        Case(name: "rename of an unknown property", json: model(#""a": "int""#, extra: #", "renamed": {"b": "c"}"#), kind: .invalidRename, path: "models[0].renamed.b", reason: "'b' is neither the model's name nor one of its properties"),
        Case(name: "rename from a current property", json: model(#""a": "int", "b": "int""#, extra: #", "renamed": {"a": "b"}"#), kind: .invalidRename, path: "models[0].renamed.a", reason: "old name 'b' is still a property of 'M'"),
        Case(name: "rename from a current model", json: #"{"models": [{"name": "A", "properties": {"a": "int"}, "renamed": {"A": "B"}}, {"name": "B", "properties": {"b": "int"}}]}"#, kind: .invalidRename, path: "models[0].renamed.A", reason: "old name 'B' is still a model of this schema"),
        Case(name: "two renames from one name", json: model(#""a": "int", "b": "int""#, extra: #", "renamed": {"a": "x", "b": "x"}"#), kind: .invalidRename, path: "models[0].renamed.b", reason: "'a' and 'b' are both renamed from 'x'"),
        Case(name: "rename to a non-string", json: model(#""a": "int""#, extra: #", "renamed": {"a": 1}"#), kind: .invalidRename, path: "models[0].renamed.a", reason: "the old name must be a string"),
    ]

    @Test(arguments: cases)
    func refusesABadSchemaNamingFilePathAndReason(_ c: Case) {
        do {
            let schema = try SchemaFixtures.schema(c.json)
            Issue.record("accepted: \(schema)")
        } catch {
            #expect(error.kind == c.kind)
            #expect(error.fileName == "test.json")
            #expect(error.path == c.path)
            #expect(error.message.contains(c.reason), "\(error.message)")
            let prefix = c.path.isEmpty ? "test.json: " : "test.json: \(c.path): "
            #expect(error.description.hasPrefix(prefix), "\(error.description)")
        }
    }

    @Test func namesTheFileOfAnUnreadableSchema() {
        let url = URL(fileURLWithPath: "/nonexistent/Missing.json")
        #expect {
            try Schema(contentsOf: url)
        } throws: { error in
            guard let error = error as? SchemaError else { return false }
            return error.kind == .unreadableFile && error.description.hasPrefix("/nonexistent/Missing.json: cannot read the schema file")
        }
    }

    @Test func namesTheFileOnDiskInErrors() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("Broken-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(Self.people(dog: #""owner": "Persn?""#).utf8).write(to: url)
        do {
            _ = try Schema(contentsOf: url)
            Issue.record("accepted a broken schema")
        } catch {
            #expect(error.description.hasPrefix(url.path + ": models[1].properties.owner: unknown type 'Persn'"))
        }
    }

    @Test func checksSchemasBuiltInCode() {
        #expect(throws: SchemaError.self) {
            try Schema(models: [ModelSchema(name: "A", properties: [PropertySchema(name: "b", type: .link("B"))])])
        }
        #expect(throws: SchemaError.self) {
            try Schema(models: [ModelSchema(name: "A", properties: [PropertySchema(name: "x", type: .int8, defaultValue: .int(1000))])])
        }
        #expect(throws: SchemaError.self) {
            try Schema(models: [ModelSchema(name: "A", properties: [PropertySchema(name: "x", type: .string, defaultValue: .int(1))])])
        }
        #expect(throws: SchemaError.self) { try Schema(schemaVersion: -1, models: []) }
        do {
            _ = try Schema(models: [ModelSchema(name: "A", properties: [PropertySchema(name: "x", type: .list(.list(.int)))])])
            Issue.record("accepted a nested list")
        } catch {
            #expect(error.description == "models[0].properties.x: lists of lists are not supported")
        }
    }

    @Test func acceptsOptionalPrimaryKeysWhenDeclared() throws {
        let schema = try SchemaFixtures.schema(Self.model(#""id": "string?""#, extra: #", "primaryKey": "id""#))
        #expect(schema["M"]?.primaryKeyProperty?.isOptional == true)
    }
}
