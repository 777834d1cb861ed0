import Synchronization
import Testing
import Trove
import TroveModels

/// A property type whose in-place read fails as a read of a damaged store does, counting
/// its reads. Its `Codable` form (a keyed container) is not what the store holds (an int).
private struct FailingReading: StorableProperty, Codable, Equatable {
    var level: Int
    static let reads = Mutex(0)
    static var storedPropertyType: StoredPropertyType { StoredPropertyType(type: .int, isOptional: false) }
    func storedValue() -> Value { .int(Int64(level)) }
    static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> FailingReading {
        reads.withLock { $0 += 1 }
        throw StoreError.corruptRecord("a damaged page")
    }
}

@Model private struct Meter {
    @Attribute(.primaryKey) var id: Int
    var gauge: FailingReading
}

/// A store error met while a value is read in place is the read's error: it is not taken for
/// a value that does not fit the type, read again through `Codable`.
@Suite(.serialized) struct KeyPathReadErrorTests {
    @Test func aStoreErrorInAKeyPathReadIsThrownAfterOneRead() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Meter.self)))
        try store.write { tx in try tx.insert(Meter(id: 1, gauge: FailingReading(level: 3))) }
        FailingReading.reads.withLock { $0 = 0 }
        #expect(throws: StoreError.corruptRecord("a damaged page")) {
            try store.read { try $0.objects(Meter.self).map(\.gauge) }
        }
        #expect(FailingReading.reads.withLock { $0 } == 1)
    }

    @Test func aStoreErrorInAValueReadIsThrownAsItIs() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Meter.self)))
        try store.write { tx in try tx.insert(Meter(id: 1, gauge: FailingReading(level: 3))) }
        #expect(throws: StoreError.corruptRecord("a damaged page")) {
            try store.read { try $0.object(Meter.self, primaryKey: 1) }
        }
    }
}
