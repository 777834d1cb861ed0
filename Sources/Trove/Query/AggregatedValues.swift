/// Where the values of an aggregate come from, record by record: one slot of the record
/// decoded straight (a property of the object itself), a key path followed through its
/// links, or nothing (`count`, which counts the records).
///
/// The aggregate loops are generic over it, like the scans over `RecordFilter`: each loop is
/// specialized for its source, which is inlined into the per-record body.
protocol AggregatedValues {
    /// Adds the value of the record stored under `key` to `accumulator`.
    func add(_ record: RecordView, _ key: UInt64, to accumulator: inout AggregateAccumulator) throws
}

/// A stored scalar of the object itself: its slot decoded, or its default value when the
/// record predates the property.
struct AggregatedSlot: AggregatedValues {
    let property: PropertyLayout
    private let slot: Int
    private let type: PropertyType
    private let isInteger: Bool
    private let missing: Value

    /// The slot that holds `path`, when the path reads a scalar of the object itself.
    init?(_ path: BoundKeyPath) throws {
        let p = path.property
        guard path.isDirect, !p.isLink, !p.isList, !p.isLinkingObjects else { return nil }
        property = p
        slot = p.id
        type = p.elementType
        isInteger = p.elementType.isInteger
        missing = try KeyPathReader.defaultPayload(p).withUnsafeBytes { try RecordCodec.decode($0, type: p.elementType, property: p) }
    }

    /// The value `record` holds (a projection's item).
    @inline(__always)
    func value(_ record: RecordView) throws -> Value {
        guard let bytes = record.slot(slot) else { return missing }
        return try RecordCodec.decode(bytes, type: type, property: property)
    }

    @inline(__always)
    func add(_ record: RecordView, _ key: UInt64, to accumulator: inout AggregateAccumulator) throws {
        if let bytes = record.slot(slot) {
            // An integer (a null's payload is empty) is added without a `Value`.
            if isInteger, let int = RecordCodec.int(bytes) {
                accumulator.add(int: int)
                return
            }
            accumulator.add(try RecordCodec.decode(bytes, type: type, property: property))
        } else {
            accumulator.add(missing)
        }
    }
}

/// A key path through to-one links, read by `KeyPathReader`.
struct AggregatedPath: AggregatedValues {
    let read: (RecordView, UInt64) throws -> Value

    @inline(__always)
    func add(_ record: RecordView, _ key: UInt64, to accumulator: inout AggregateAccumulator) throws {
        accumulator.add(try read(record, key))
    }
}

/// `count`: every record that reaches the aggregate is one.
struct CountedRecords: AggregatedValues {
    @inline(__always)
    func add(_ record: RecordView, _ key: UInt64, to accumulator: inout AggregateAccumulator) {
        accumulator.addOne()
    }
}
