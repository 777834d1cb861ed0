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
    lazy var label: String = self.name.uppercased()
    init(id: Int, name: String) { self.id = id; self.name = name }
}

@Suite struct LazyInitialValueTests {
    @Test func aLazyPropertyThatReadsSelfCompilesAndIsStored() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Nametag.self)))
        try store.write { tx in try tx.insert(Nametag(id: 1, name: "ann")) }
        #expect(try store.read { try $0.object(Nametag.self, primaryKey: 1)?.label } == "ANN")
    }
}
