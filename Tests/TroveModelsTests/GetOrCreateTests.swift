#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import Trove
import TroveModels

@Model struct Diary {
    @Attribute(.primaryKey) var id: Int
    var mood: Mood = .happy
    var started: Date = Date(timeIntervalSince1970: 86_400)
    var born: Date = Date()                   // as the README writes it
    var pages: Int = 10
    var tags: [String] = []
    var note: String?
}

@Suite struct GetOrCreateTests {
    @Test func aCreatedObjectHoldsTheModelsInitialValuesThatAreNotLiterals() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Diary.self)))
        let before = Date()
        let created = try store.write { tx in try tx.getOrCreate(Diary.self, primaryKey: 1) }
        #expect(created.born >= before)
        #expect(created.mood == .happy && created.started == Date(timeIntervalSince1970: 86_400))
        #expect(created.pages == 10 && created.tags.isEmpty && created.note == nil)
        let read = try store.read { try $0.object(Diary.self, primaryKey: 1) }
        #expect(read?.mood == .happy && read?.started == Date(timeIntervalSince1970: 86_400))
    }

    @Test func aPropertyWithNoValueToBeCreatedWithIsNamedAndNothingIsWritten() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Pet.self)))
        try store.write { tx in
            let error = #expect(throws: StoreError.self) { try tx.getOrCreate(Pet.self, primaryKey: 3) }
            #expect(error?.description.contains("'Pet' with primary key 3: its property 'mood' has no initial value") == true)
            #expect(try tx.object(Pet.self, primaryKey: 3) == nil)
            try tx.insert(Pet(id: 3, mood: .grumpy))
            #expect(try tx.getOrCreate(Pet.self, primaryKey: 3).mood == .grumpy)
        }
    }
}

/// A model whose initial value links a class instance, and whose other property has no value
/// to be created with: a refused getOrCreate writes the linked instance no more than the rest.
@Model final class Keeper {
    @Attribute(.primaryKey) var id: Int
    init(id: Int) { self.id = id }
}

@Model struct Kennel {
    @Attribute(.primaryKey) var id: Int
    var keeper: Keeper? = Keeper(id: 5)
    var mood: Mood
}

@Suite struct GetOrCreateLinkedInitialValueTests {
    @Test func aRefusedCreationWritesNoInstanceItsInitialValuesLink() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Kennel.self, Keeper.self)))
        let written = try store.write { tx in
            #expect(throws: StoreError.self) { try tx.getOrCreate(Kennel.self, primaryKey: 1) }
            return (try tx.object(Keeper.self, primaryKey: 5), try tx.object(Kennel.self, primaryKey: 1))
        }
        #expect(written.0 == nil && written.1 == nil)
    }
}

/// A `lazy` initial value reads the instance, which the property table's static closure cannot:
/// the macro gives it no `initial:`, and the model compiles as Swift alone would compile it.
@Model final class Nametag {
    @Attribute(.primaryKey) var id: Int
    var name: String
    lazy var label: String = "#" + self.name.uppercased()   // never "" when run
    lazy var rank: Int = 3                    // a literal: the schema's default
    init(id: Int, name: String) { self.id = id; self.name = name }
}

@Suite struct LazyInitialValueTests {
    @Test func aLazyPropertyThatReadsSelfCompilesAndIsStored() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Nametag.self)))
        let tag = Nametag(id: 1, name: "ann")
        tag.label = "custom"
        let untouched = Nametag(id: 3, name: "bo")
        try store.write { tx in try tx.insert(tag); try tx.insert(untouched) }
        let read = try store.read { snapshot in
            (try snapshot.object("Nametag", primaryKey: .int(1))?.value("label"), try snapshot.object(Nametag.self, primaryKey: 1)?.label,
             try snapshot.object("Nametag", primaryKey: .int(3))?.value("label"))
        }
        #expect(read.0 == .string("custom") && read.1 == "custom")
        #expect(read.2 == .string("#BO"))     // a lazy value nobody read is run when the object is written
    }

    @Test func aCreatedObjectsLazyPropertyHoldsItsTypesZero() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Nametag.self)))
        let created = try store.write { tx in try tx.getOrCreate(Nametag.self, primaryKey: 2) }
        let stored = try store.read { try $0.object("Nametag", primaryKey: .int(2))?.value("label") }
        #expect(created.label == "" && stored == .string(""))
        #expect(created.rank == 3)
    }
}

/// A property type of its own stored as a double that gives its value as an int, which a
/// write converts: the value a created object is checked with is converted as the insert does.
struct Grams: StorableProperty, Codable, Equatable {
    var value: Int
    static var storedPropertyType: StoredPropertyType { StoredPropertyType(type: .double, isOptional: false) }
    func storedValue() -> Value { .int(Int64(value)) }
    static func _stored(_ stored: Value, in reader: _ModelReader, at index: Int) throws -> Grams {
        guard case .double(let d) = stored, let grams = Int(exactly: d) else { throw ModelQueryError("not grams") }
        return Grams(value: grams)
    }
}

@Model struct Parcel {
    @Attribute(.primaryKey) var id: Int
    var weight: Grams = Grams(value: 250)
}

/// A property type of its own that cannot read its own stored form (a string; its `Codable`
/// form is a keyed container), given an initial value.
struct Postmark: StorableProperty, Codable {
    var text: String
    static var storedPropertyType: StoredPropertyType { StoredPropertyType(type: .string, isOptional: false) }
    func storedValue() -> Value { .string(text) }
}

@Model struct Letter {
    @Attribute(.primaryKey) var id: Int
    var postmark: Postmark = Postmark(text: "first class")
}

@Suite struct GetOrCreateConversionTests {
    @Test func aValueTheInsertConvertsIsConvertedForTheCheck() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Parcel.self)))
        let created = try store.write { tx in try tx.getOrCreate(Parcel.self, primaryKey: 1) }
        #expect(created.weight == Grams(value: 250))
        #expect(try store.read { try $0.object("Parcel", primaryKey: .int(1))?.value("weight") } == .double(250))
    }

    @Test func aPrimaryKeyOfAnotherNumericTypeIsConvertedForTheCheck() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Parcel.self)))
        let created = try store.write { tx in try tx.getOrCreate(Parcel.self, primaryKey: 2.0) }
        #expect(created.id == 2)
        #expect(try store.read { try $0.object(Parcel.self, primaryKey: 2)?.weight } == Grams(value: 250))
    }

    /// What a whole-value write would not do: it writes null to an optional property it leaves out.
    @Test func aStoredPropertyTheModelDoesNotDeclareGetsTheSchemasDefault() throws {
        let json = """
            {"schemaVersion": 1, "models": [{"name": "Parcel", "primaryKey": "id",
              "properties": {"id": "int", "weight": "double", "note": {"type": "string?", "default": "fragile"}}}]}
            """
        let store = try Store(configuration: .inMemory(schema: Schema(jsonData: Array(json.utf8))))
        _ = try store.write { tx in try tx.getOrCreate(Parcel.self, primaryKey: 1) }
        #expect(try store.read { try $0.object("Parcel", primaryKey: .int(1))?.value("note") } == .string("fragile"))
    }

    @Test func aPropertyWithAnInitialValueThatDoesNotReadIsRefusedWithItsDecodingError() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Letter.self)))
        try store.write { tx in
            let error = #expect(throws: StoreError.self) { try tx.getOrCreate(Letter.self, primaryKey: 1) }
            let message = error?.description ?? ""
            #expect(message.contains("getOrCreate cannot create 'Letter' with primary key 1: Letter.postmark holds \"first class\" (a string), which does not decode as Postmark"))
            #expect(!message.contains("initial value"))
            let written = try tx.object("Letter", primaryKey: .int(1))
            #expect(written == nil)
        }
    }
}
