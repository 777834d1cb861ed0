import Testing
import Trove
import TroveModels

@Suite struct ModelSchemaTests {
    @Test func aModelGivesTheSchemaItsJSONFileGives() throws {
        let derived = try Schema(Person.self)
        let json = """
            {"schemaVersion": 0, "models": [
              {"name": "Person", "primaryKey": "id", "properties": {
                "id": "int", "name": {"type": "string", "indexed": true}, "age": {"type": "int", "default": 0},
                "nickname": "string?", "score": {"type": "double", "default": 0}, "bestFriend": "Dog?",
                "dogs": "Dog[]", "tags": "string[]", "isActive": {"type": "bool", "default": false},
                "verified": "bool?", "scores": "int[]"}},
              {"name": "Dog", "primaryKey": "id", "properties": {
                "id": "int", "name": {"type": "string", "indexed": true, "default": ""}, "age": {"type": "int", "default": 0},
                "isGood": {"type": "bool", "default": true},
                "owners": {"type": "linkingObjects", "objectType": "Person", "property": "dogs"}}}
            ]}
            """
        let file = try Schema(jsonData: Array(json.utf8))
        #expect(derived == file)
        #expect(try Schema(jsonData: Array(derived.jsonText.utf8)) == derived)
    }
}
