#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A predicate whose comparisons are all ordering comparisons on one indexed property
/// (`name >= $0 AND name < $1`, `age BETWEEN {$0, $1}`), prepared once per bound template:
/// each run types the constants and reads the one index range they bound, without binding a
/// predicate or planning again.
///
/// Like ``PointLookup`` it answers only when the planner would choose that range and every
/// entry's key decides the comparisons; otherwise it returns nil and the general path answers.
///
/// A class: a template holds it, and a query copies it out on every run.
final class RangeLookup {
    let model: ModelLayout
    let property: PropertyLayout
    /// The comparisons' operators, kinds and constants as bound in the template; the constants
    /// that read arguments are typed again on each run from their expressions.
    private let ops: [BoundOperator]
    private let kinds: [ValueKind]
    private let literals: [Value]
    private let constants: [QueryExpression?]

    /// The lookup for `predicate` (whose comparisons' constants are `constants`, in order), or
    /// nil when it is not a conjunction of ordering comparisons on one indexed property.
    init?(_ predicate: BoundPredicate, model: ModelLayout, constants: [QueryExpression?]) {
        let operands: [BoundPredicate] = if case .and(let operands) = predicate { operands } else { [predicate] }
        var comparisons: [PathComparison] = []
        for operand in operands {
            guard case .path(let c) = operand, c.op.isOrdering else { return nil }
            comparisons.append(c)
        }
        guard comparisons.count == constants.count, let p = IndexScan.indexedProperty(comparisons[0], model: model),
              comparisons.allSatisfy({ IndexScan.indexedProperty($0, model: model) === p }) else { return nil }
        self.model = model
        property = p
        ops = comparisons.map(\.op)
        kinds = comparisons.map(\.path.kind)
        literals = comparisons.map(\.constant)
        self.constants = constants
    }

    /// The keys of the matching objects, each once and in no particular order (`Results` sorts
    /// them when they are read); nil when the general path must answer.
    func keys(_ binder: QueryBinder, in snapshot: Snapshot) throws -> [UInt64]? {
        // The typed bounds live on the stack: an array here costs a tenth of a short range
        // query's instructions (its allocation, and its release destroying each `Value`).
        try withUnsafeTemporaryAllocation(of: (op: BoundOperator, constant: Value).self, capacity: ops.count) { buffer in
            var typed = 0
            // One `move` per bound: `deinitialize(count:)` destroys through the runtime's
            // generic tuple witness, two to three times the cost for two bounds.
            defer { for i in 0..<typed { _ = (buffer.baseAddress! + i).move() } }
            for i in ops.indices {
                let constant = try constants[i].map { try binder.typedConstant($0, kind: kinds[i], op: ops[i]) } ?? literals[i]
                (buffer.baseAddress! + i).initialize(to: (ops[i], constant))
                typed += 1
            }
            return try keys(bounds: UnsafeBufferPointer(buffer), in: snapshot)
        }
    }

    private func keys(bounds: UnsafeBufferPointer<(op: BoundOperator, constant: Value)>, in snapshot: Snapshot) throws -> [UInt64]? {
        if property.type == .string, let (lower, upper) = IndexScan.asciiStringBounds(bounds) {
            return try asciiStringKeys(lower: lower, upper: upper, in: snapshot)
        }
        guard let scan = IndexScan(property: property, model: model, bounds: Array(bounds)) else { return nil }
        // The planner's threshold: past it, a scan is the plan (see `QueryPlanner`).
        let cap = (try snapshot.objectsTree(model)?.count ?? 0) / QueryPlanner.scanCostRatio + 1
        var candidates = IndexCandidates()
        var read = 0
        guard try scan.collect(in: snapshot, cap: cap, into: &candidates, read: &read), candidates.unsure.isEmpty else { return nil }
        candidates.normalize()
        return candidates.matches
    }

    /// The keys of the objects whose string lies between ASCII bounds, in index order (by
    /// string, not by key): the range `IndexScan` reads for them (see its `stringRange`), with
    /// its keys built on the stack.
    private func asciiStringKeys(lower: (s: String, inclusive: Bool)?, upper: (s: String, inclusive: Bool)?,
                                 in snapshot: Snapshot) throws -> [UInt64]? {
        // A NUL is escaped to two bytes in keys: such bounds are left to `IndexScan`.
        func hasNUL(_ s: String?) -> Bool {
            guard var s else { return false }
            return s.withUTF8 { bytes in bytes.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false }
        }
        if hasNUL(lower?.s) || hasNUL(upper?.s) { return nil }
        let isPrimaryKey = model.primaryKey === property
        guard let objects = try snapshot.objectsTree(model),
              let tree = try isPrimaryKey ? snapshot.primaryKeyTree(model) : snapshot.indexTree(property) else { return [] }
        let cap = objects.count / QueryPlanner.scanCostRatio + 1
        let stride = IndexKey.maxValueBytes + 3
        return try withUnsafeTemporaryAllocation(byteCount: 2 * stride, alignment: 8) { buffer in
            let base = buffer.baseAddress!
            /// Writes a string's key (tag 1, bytes, 0x00 0x00), or its successor (0x00 0x01).
            func key(_ s: String, successor: Bool, at p: UnsafeMutableRawPointer) -> UnsafeRawBufferPointer {
                var s = s
                let n = s.withUTF8 { bytes in
                    p.storeBytes(of: 1, as: UInt8.self)
                    if let b = bytes.baseAddress { (p + 1).copyMemory(from: b, byteCount: bytes.count) }
                    return bytes.count
                }
                p.storeBytes(of: 0, toByteOffset: 1 + n, as: UInt8.self)
                p.storeBytes(of: successor ? 1 : 0, toByteOffset: 2 + n, as: UInt8.self)
                return UnsafeRawBufferPointer(start: p, count: n + 3)
            }
            // Every string key starts with tag 1 and sorts below tag 2.
            let firstValue = UnsafeRawBufferPointer(start: UnsafeRawPointer(base), count: 1)
            let lowerKey = lower.map { key($0.s, successor: !$0.inclusive, at: base) }
                ?? { base.storeBytes(of: 1, as: UInt8.self); return firstValue }()
            let upperKey = upper.map { key($0.s, successor: $0.inclusive, at: base + stride) }
                ?? { (base + stride).storeBytes(of: 2, as: UInt8.self); return UnsafeRawBufferPointer(start: base + stride, count: 1) }()
            guard IndexScan.less(lowerKey, upperKey) else { return [] }
            // Where a decomposed string that belongs in the range may sort (see `IndexScan`):
            // from the lower bound's prefix one byte longer than what it shares with the upper.
            var scanLower = firstValue
            if let lo = lower?.s, let hi = upper?.s {
                let shared = IndexScan.sharedPrefixCount(lo, hi)
                scanLower = shared + 1 >= lo.utf8.count ? lowerKey : UnsafeRawBufferPointer(start: lowerKey.baseAddress, count: shared + 2)
            }
            var keys: [UInt64] = []
            // Room for a typical range without regrowing the array several times.
            keys.reserveCapacity(32)
            var read = 0
            var decided = true
            // Entries come in order: once one reaches the lower bound, all the rest do.
            var pastLower = scanLower.count == lowerKey.count
            try snapshot.storageTx.forEach(tree, from: scanLower) { entry, value in
                guard IndexScan.less(entry, upperKey) else { return false }
                read += 1
                guard IndexScan.holdsWholeASCII(entry, hasObjectKey: !isPrimaryKey) else { decided = false; return false }
                if !pastLower { pastLower = !IndexScan.less(entry, lowerKey) }
                if pastLower, let objectKey = IndexScan.objectKey(entry: entry, value: value, isPrimaryKey: isPrimaryKey) {
                    keys.append(objectKey)
                }
                if read >= cap { decided = false; return false }
                return true
            }
            guard decided else { return nil }
            // In string order, not key order: `Results` sorts them if they are read.
            return keys
        }
    }
}
