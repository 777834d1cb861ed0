#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import Trove
@testable import TroveModels

/// An instance written so already in the transaction is not queued again, also for a class
/// whose written values the store shapes (its model has a property the class lacks).
@Suite struct NestedWriteSkipTests {
    @Test func anInstanceWrittenAlreadyIsNotQueuedAgainWhenItsValuesAreShaped() throws {
        let derived = try Schema(PersonObject.self)
        let schema = try Schema(schemaVersion: 0, models: derived.models.map { model in
            var model = model
            model.properties.append(PropertySchema(name: "note", type: .string, isOptional: true))
            return model
        })
        let store = try Store(configuration: .inMemory(schema: schema))
        let rex = DogObject(id: 1, name: "Rex")
        try store.write { tx in
            try tx.insert(PersonObject(id: 1, name: "a", bestFriend: rex))
            let again = NestedClassWrites(writingIn: tx)
            #expect(try again.value(of: rex) == .int(1))
            #expect(again.pendingWrites == 0)
            rex.name = "Max"
            let changed = NestedClassWrites(writingIn: tx)
            _ = try changed.value(of: rex)
            #expect(changed.pendingWrites == 1)
        }
    }
}
