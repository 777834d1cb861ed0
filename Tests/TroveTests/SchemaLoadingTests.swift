import Foundation
import Testing
@testable import Trove

@Suite struct SchemaLoadingTests {
    @Test(arguments: SchemaFixtures.exampleNames)
    func everyExampleSchemaLoads(_ name: String) throws {
        let schema = try Schema(contentsOf: SchemaFixtures.url(name))
        #expect(!schema.models.isEmpty)
    }

    @Test(arguments: SchemaFixtures.exampleNames)
    func everyExampleRoundTripsThroughItsJSONForm(_ name: String) throws {
        let schema = try Schema(contentsOf: SchemaFixtures.url(name))
        let reloaded = try Schema(json: schema.jsonValue)
        #expect(reloaded == schema)
        #expect(reloaded.jsonValue == schema.jsonValue)
        for style in [JSONWriter.Style.compact, .pretty] {
            #expect(try Schema(jsonData: Array(schema.jsonText(style: style).utf8)) == schema)
        }
    }

    @Test func everyScalarTypeIsReadByItsNameAndNothingElseIs() throws {
        for type in PropertyType.scalarTypes {
            #expect(PropertyType(scalarName: try #require(type.scalarName)) == type)
        }
        for name in ["Int", "int?", "int[]", "integer", "", "linkingObjects", "Dog"] {
            #expect(PropertyType(scalarName: name) == nil)
        }
        for (text, type, optional) in [("int", PropertyType.int, false), ("int?", .int, true), ("int[]", .list(.int), false),
                                       ("int?[]", .list(.int), true), ("Dog", .link("Dog"), true), ("Dog[]", .list(.link("Dog")), false)] {
            let schema = try Schema(jsonData: Array(#"{"models": [{"name": "Dog", "properties": {"p": "\#(text)"}}]}"#.utf8))
            #expect(schema["Dog"]?[property: "p"]?.type == type)
            #expect(schema["Dog"]?[property: "p"]?.isOptional == optional)
        }
    }

    @Test func propertiesKeepTheirDeclaredOrder() throws {
        let schema = try Schema(contentsOf: SchemaFixtures.url("People.json"))
        #expect(schema.models.map(\.name) == ["Person", "Dog"])
        #expect(schema["Person"]?.properties.map(\.name) == ["id", "name", "birthdate", "age", "dogs", "nicknames", "bestFriend"])
        #expect(schema["Dog"]?.properties.map(\.name) == ["name", "age", "owners"])
        let text = schema.jsonText(style: .compact)
        #expect(text.contains(#""properties":{"id":"int","name":{"type":"string","indexed":true},"birthdate":"date?","age":"int?","dogs":"Dog[]","nicknames":"string[]","bestFriend":"Person?"}"#))
    }

    @Test func readsEveryKindOfProperty() throws {
        let schema = try Schema(contentsOf: SchemaFixtures.url("People.json"))
        #expect(schema.schemaVersion == 1)
        let person = try #require(schema["Person"])
        #expect(person.primaryKey == "id")
        #expect(person.primaryKeyProperty == PropertySchema(name: "id", type: .int))
        #expect(person[property: "name"] == PropertySchema(name: "name", type: .string, isIndexed: true))
        #expect(person[property: "birthdate"] == PropertySchema(name: "birthdate", type: .date, isOptional: true))
        #expect(person[property: "dogs"]?.type == .list(.link("Dog")))
        #expect(person[property: "dogs"]?.objectType == "Dog")
        #expect(person[property: "nicknames"]?.type == .list(.string))
        #expect(person[property: "bestFriend"] == PropertySchema(name: "bestFriend", type: .link("Person"), isOptional: true))
        #expect(person.isIndexed(person[property: "id"]!))
        let dog = try #require(schema["Dog"])
        #expect(dog.primaryKey == nil)
        #expect(dog[property: "age"]?.defaultValue == .int(0))
        let owners = try #require(dog[property: "owners"])
        #expect(owners.type == .linkingObjects("Person", property: "dogs"))
        #expect(owners.objectType == "Person")
        #expect(owners.originProperty == "dogs")
        #expect(!owners.isStored)
    }

    @Test func readsDefaultsAsTypedValues() throws {
        let model = try #require(try Schema(contentsOf: SchemaFixtures.url("AllTypes.json"))["AllTypes"])
        func value(_ name: String) -> Value? { model[property: name]?.defaultValue }
        #expect(value("boolValue") == .bool(true))
        #expect(value("int8Value") == .int(-128))
        #expect(value("int64Value") == .int(.min))
        #expect(value("floatValue") == .float(0.1))
        #expect(value("doubleValue") == .double(2.718281828459045))
        #expect(value("stringValue") == .string("héllo \"wörld\""))
        #expect(value("dataValue") == .data(Data([0, 1, 2, 255])))
        #expect(value("decimalValue") == .decimal(Decimal(string: "123456789.000000001")!))
        #expect(value("uuidValue") == .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        #expect(value("optInt") == .null)
        #expect(value("optDouble") == .double(1.5))
        guard case .date(let date)? = value("dateValue") else {
            Issue.record("dateValue has no date default")
            return
        }
        #expect(abs(date.timeIntervalSince1970 - 1_714_564_800.123456) < 1e-6)
        #expect(Value.date(date).jsonValue == "2024-05-01T12:00:00.123456Z")
        #expect(model[property: "optIntList"] == PropertySchema(name: "optIntList", type: .list(.int), isOptional: true))
        #expect(model[property: "optStringList"]?.typeString == "string?[]")
    }

    /// Stores hold the double this parse gave when they were written, and equality on dates
    /// is exact: a text must keep giving the same double, or stored dates stop matching it.
    @Test func aFractionalDateParsesToTheDoubleStoresHold() throws {
        for (text, since1970) in [("2024-05-01T12:00:00.123Z", 1_714_564_800.123), ("2024-05-01T12:00:00.000001Z", 1_714_564_800.000001),
                                  ("1999-12-31T23:59:59.999Z", 946_684_799.999)] {
            #expect(ISO8601Timestamp.parse(text) == Date(timeIntervalSince1970: since1970), "\(text)")
        }
    }

    @Test func readsDatesWithOffsetsAndFractions() throws {
        #expect(ISO8601Timestamp.parse("2024-05-01T14:30:00+02:30").map(ISO8601Timestamp.format) == "2024-05-01T12:00:00Z")
        #expect(ISO8601Timestamp.parse("1969-12-31T23:59:59.5Z")?.timeIntervalSince1970 == -0.5)
        #expect(ISO8601Timestamp.parse("2024-02-29T00:00:00Z") != nil)
        #expect(ISO8601Timestamp.parse("1970-01-01")?.timeIntervalSince1970 == 0)
        #expect(ISO8601Timestamp.parse("2024-05-01").map(ISO8601Timestamp.format) == "2024-05-01T00:00:00Z")
        #expect(ISO8601Timestamp.parse("2024-05-01T12:00:00").map(ISO8601Timestamp.format) == "2024-05-01T12:00:00Z")
        #expect(ISO8601Timestamp.parse("2024-05-01 12:00").map(ISO8601Timestamp.format) == "2024-05-01T12:00:00Z")
        #expect(ISO8601Timestamp.parse("2024-05-01T14:00:00+0200").map(ISO8601Timestamp.format) == "2024-05-01T12:00:00Z")
        #expect(ISO8601Timestamp.parse("2024-05-01T07:00:00-05").map(ISO8601Timestamp.format) == "2024-05-01T12:00:00Z")
        for bad in ["2023-02-29T00:00:00Z", "2024-05-1", "2024-05-01T", "2024-05-01T12", "2024-13-01T00:00:00Z", "2024-05-01T12:00:00.Z",
                    "2024-05-01T24:00:00Z", "2024-05-01T12:00.5Z", "2024-05-01T12:00:00+2", "2024-05-01Z"] {
            #expect(ISO8601Timestamp.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func aSchemaBuiltInCodeEqualsTheSameSchemaLoadedFromJSON() throws {
        let built = try Schema(schemaVersion: 1, models: [
            ModelSchema(name: "Person", primaryKey: "id", properties: [
                PropertySchema(name: "id", type: .int),
                PropertySchema(name: "name", type: .string, isIndexed: true),
                PropertySchema(name: "birthdate", type: .date, isOptional: true),
                PropertySchema(name: "age", type: .int, isOptional: true),
                PropertySchema(name: "dogs", type: .list(.link("Dog"))),
                PropertySchema(name: "nicknames", type: .list(.string)),
                PropertySchema(name: "bestFriend", type: .link("Person")),
            ]),
            ModelSchema(name: "Dog", properties: [
                PropertySchema(name: "name", type: .string),
                PropertySchema(name: "age", type: .int, defaultValue: .int(0)),
                PropertySchema(name: "owners", type: .linkingObjects("Person", property: "dogs")),
            ]),
        ])
        #expect(built == (try Schema(contentsOf: SchemaFixtures.url("People.json"))))
    }

    @Test func schemaVersionDefaultsToZero() throws {
        let schema = try SchemaFixtures.schema(#"{"models": [{"name": "A", "properties": {"x": "int"}}]}"#)
        #expect(schema.schemaVersion == 0)
    }

    @Test func keepsRenamesAndWritesThemBack() throws {
        let schema = try SchemaFixtures.schema(#"""
            {"schemaVersion": 2, "models": [{"name": "Hound", "properties": {"fullName": "string", "age": "int"},
              "renamed": {"fullName": "name", "Hound": "Dog"}}]}
            """#)
        let model = try #require(schema["Hound"])
        #expect(model.previousName == "Dog")
        #expect(model.previousName(ofProperty: "fullName") == "name")
        #expect(model.previousName(ofProperty: "age") == nil)
        #expect(model.jsonValue.objectValue?["renamed"] == ["Hound": "Dog", "fullName": "name"])
        #expect(try Schema(json: schema.jsonValue) == schema)
    }
}
