/// A test a scan runs on each record it reads.
///
/// `QueryExecutor`'s scan loops are generic over it rather than taking a closure: each loop is
/// specialized for its test, which is inlined into the per-record body. The closures cost a
/// call through two thunks, and a load of the captures, per record: 8% of the instructions of
/// a `name CONTAINS[c]` scan, 8% of a top-100 scan and 17% of a compound range scan.
protocol RecordFilter {
    /// Whether the record stored under `key` passes.
    func passes(_ record: RecordView, _ key: UInt64) throws -> Bool
}

extension SlotRanges: RecordFilter {
    @inline(__always)
    func passes(_ record: RecordView, _ key: UInt64) -> Bool { test(record) }
}

extension StringSlotTest: RecordFilter {
    @inline(__always)
    func passes(_ record: RecordView, _ key: UInt64) -> Bool { matches(record) }
}

/// A compiled predicate of any shape (`PredicateEvaluator.compile`).
struct CompiledRecordFilter: RecordFilter {
    let test: RecordTest

    @inline(__always)
    func passes(_ record: RecordView, _ key: UInt64) throws -> Bool { try test(record, key) }
}

/// No predicate: every record passes.
struct EveryRecord: RecordFilter {
    @inline(__always)
    func passes(_ record: RecordView, _ key: UInt64) -> Bool { true }
}
