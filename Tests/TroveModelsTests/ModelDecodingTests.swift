import Testing
import Trove
import TroveModels

@Model struct Gauge {
    @Attribute(.primaryKey) var id: Int
    var level: Int
    var readings: [Int] = []
}

/// Stores whose schema file disagrees with the Swift model read from them: reading a value
/// that does not fit throws an error naming the model, the property and what is stored.
@Suite struct ModelDecodingTests {
    func store(_ properties: String, _ objects: [[String: Value]]) throws -> Store {
        let json = #"{"schemaVersion": 0, "models": [{"name": "Gauge", "primaryKey": "id", "properties": \#(properties)}]}"#
        let store = try Store(configuration: .inMemory(schema: Schema(jsonData: Array(json.utf8))))
        try store.write { tx in for object in objects { try tx.insert("Gauge", object) } }
        return store
    }

    @Test func resultsReadAfterTheirSnapshotEndedSaySoNotThatTheyDoNotDecode() throws {
        let store = try store(#"{"id": "int", "level": "int", "readings": "int[]"}"#, [["id": 1, "level": 3]])
        let results = try store.read { try $0.objects(Gauge.self) }
        #expect(throws: StoreError.invalidated) { try results.values }
    }

    @Test func aNullWhereTheModelHasNoOptionalThrows() throws {
        let store = try store(#"{"id": "int", "level": "int?", "readings": "int[]"}"#, [["id": 1, "level": 3], ["id": 2]])
        try store.read { s in
            let results = try s.objects(Gauge.self, sortBy: [.init(\.id)])
            #expect(results.count == 2)
            #expect(try results[0].level == 3)
            let error = try #require(throws: ModelDecodingError.self) { try results.values }
            #expect(error.model == "Gauge" && error.property == "level" && error.storedValue == "null" && error.expectedType == "Int")
            #expect(error.description.hasPrefix("Gauge.level holds null, which does not decode as Int"))
            #expect(throws: ModelDecodingError.self) { try s.object(Gauge.self, primaryKey: 2) }
            #expect(throws: ModelDecodingError.self) { try results.map(\.level) }
        }
    }

    @Test func aTypedRowValueThatDoesNotFitIsAnErrorNamingTheItem() throws {
        let store = try store(#"{"id": "int", "level": "int?", "readings": "double[]"}"#,
                              [["id": 1, "level": 3, "readings": [1.0]], ["id": 2, "readings": [2.5]]])
        try store.read { s in
            let results = try s.objects(Gauge.self, sortBy: [.init(\.id)])
            let error = try #require(throws: ModelDecodingError.self) { try results.select(\.id, \.level) }
            #expect(error.model == "Gauge" && error.property == "level" && error.storedValue == "null" && error.expectedType == "Int")
            let list = try #require(throws: ModelDecodingError.self) { try results.select(\.readings) }
            #expect(list.property == "readings[0]" && list.expectedType == "Array<Int>")
            let key = try #require(throws: ModelDecodingError.self) { try results.grouped(by: \.level, aggregating: .count) }
            #expect(key.property == "level" && key.storedValue == "null")
            #expect(try s.objects(Gauge.self, where: { $0.id == 1 }).select(\.id, \.level).map(\.1) == [3])
        }
    }

    @Test func aStoredPropertyMappedByKeyPathIsReadAlone() throws {
        let store = try store(#"{"id": "int", "level": "int?", "readings": "int[]"}"#,
                              [["id": 1, "level": 3, "readings": [4, 5]], ["id": 2]])
        try store.read { s in
            let results = try s.objects(Gauge.self, sortBy: [.init(\.id)])
            #expect(throws: ModelDecodingError.self) { try results.values }
            #expect(try results.map(\.id) == [1, 2])
            #expect(try results.map(\.readings) == [[4, 5], []])
            // The property that does not fit still throws the decoding's error.
            let error = try #require(throws: ModelDecodingError.self) { try results.map(\.level) }
            #expect(error.property == "level" && error.storedValue == "null")
            #expect(try s.objects(Gauge.self, where: { $0.id == 1 }).map(\.level) == [3])
        }
    }

    @Test func aValueOfAnotherTypeThrows() throws {
        let store = try store(#"{"id": "int", "level": "string", "readings": "int[]"}"#, [["id": 1, "level": "high"]])
        let error = try #require(throws: ModelDecodingError.self) { try store.read { try $0.objects(Gauge.self).first } }
        #expect(error.property == "level" && error.storedValue == #""high" (a string)"# && error.expectedType == "Int")
    }

    @Test func aListElementOfAnotherTypeIsNamedByPosition() throws {
        let store = try store(#"{"id": "int", "level": "int", "readings": "double[]"}"#, [["id": 1, "level": 0, "readings": [1.0, 2.5]]])
        let error = try #require(throws: ModelDecodingError.self) { try store.read { try $0.objects(Gauge.self).values } }
        #expect(error.property == "readings[0]" && error.expectedType == "Int")
    }

    @Test func aMissingPropertyThrows() throws {
        let store = try store(#"{"id": "int", "readings": "int[]"}"#, [["id": 1]])
        let error = try #require(throws: ModelDecodingError.self) { try store.read { try $0.objects(Gauge.self).values } }
        #expect(error.property == "level" && error.storedValue == "no value")
    }
}
