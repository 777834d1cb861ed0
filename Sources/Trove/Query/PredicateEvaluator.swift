#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Tests one object, given its record and object key.
typealias RecordTest = (RecordView, UInt64) throws -> Bool

/// Compiles bound predicates into trees of small closures for one snapshot.
///
/// A comparison of a property of the object with a constant becomes a closure over the
/// property's slot that decodes nothing else (see `PayloadMatcher`); paths through links and
/// lists visit the records they reach (see `KeyPathReader`); aggregates, subqueries and
/// comparisons between properties decode the values they read and use `ValueComparison`.
final class PredicateEvaluator {
    let reader: KeyPathReader
    let patterns = RegularExpressionCache()

    init(snapshot: Snapshot) {
        reader = KeyPathReader(snapshot: snapshot)
    }

    var snapshot: Snapshot { reader.snapshot }

    func compile(_ predicate: BoundPredicate) throws -> RecordTest {
        switch predicate {
        case .constant(let value):
            return { _, _ in value }
        case .not(let operand):
            let test = try compile(operand)
            return { try !test($0, $1) }
        case .and(let operands):
            // Comparisons of fixed-width slots with constants run as one loop over the slots;
            // whatever else the conjunction holds runs after them.
            var ranges = SlotRanges()
            var others: [BoundPredicate] = []
            for operand in operands {
                if case .path(let c) = operand, ranges.add(c) { continue }
                others.append(operand)
            }
            if !ranges.isEmpty {
                let rest = try others.isEmpty ? nil : compile(others.count == 1 ? others[0] : .and(others))
                guard let rest else { return { record, _ in ranges.test(record) } }
                return { try ranges.test($0) && rest($0, $1) }
            }
            let tests = try operands.map(compile)
            if tests.count == 2 {
                let a = tests[0], b = tests[1]
                return { try a($0, $1) && b($0, $1) }
            }
            return { record, key in
                for test in tests where try !test(record, key) { return false }
                return true
            }
        case .or(let operands):
            let tests = try operands.map(compile)
            if tests.count == 2 {
                let a = tests[0], b = tests[1]
                return { try a($0, $1) || b($0, $1) }
            }
            return { record, key in
                for test in tests where try test(record, key) { return true }
                return false
            }
        case .path(let comparison):
            return try compile(comparison)
        case .general(let comparison):
            return try compile(comparison)
        }
    }

    // MARK: Path comparisons

    private func compile(_ c: PathComparison) throws -> RecordTest {
        var ranges = SlotRanges()
        if ranges.add(c) { return { record, _ in ranges.test(record) } }
        let match = try PayloadMatcher.make(c, patterns: patterns)
        if c.path.isDirect && !c.path.isToMany {
            // The common case: a property of the object itself, read straight from its slot.
            let p = c.path.property
            let id = p.id
            let fallback = KeyPathReader.defaultPayload(p)
            return { record, _ in
                if let bytes = record.slot(id) { return try match(bytes) }
                return try fallback.withUnsafeBytes { try match($0) }
            }
        }
        let visit = try reader.visitor(c.path)
        switch c.quantifier {
        case .any: return { record, key in try visit(record, key) { try match($0) } }
        case .all: return { record, key in try !visit(record, key) { try !match($0) } }
        case .noneOf: return { record, key in try !visit(record, key) { try match($0) } }
        }
    }

    /// Compiles a predicate on the elements of a list of primitives (a `SUBQUERY` over one).
    private func compileElement(_ predicate: BoundPredicate) throws -> PayloadTest {
        switch predicate {
        case .constant(let value):
            return { _ in value }
        case .not(let operand):
            let test = try compileElement(operand)
            return { try !test($0) }
        case .and(let operands):
            let tests = try operands.map(compileElement)
            return { payload in
                for test in tests where try !test(payload) { return false }
                return true
            }
        case .or(let operands):
            let tests = try operands.map(compileElement)
            return { payload in
                for test in tests where try test(payload) { return true }
                return false
            }
        case .path(let comparison):
            return try PayloadMatcher.make(comparison, patterns: patterns)
        case .general:
            throw StoreError.invalidArgument("a SUBQUERY over a list of primitives compares its variable with values")
        }
    }

    // MARK: General comparisons

    /// Visits the values of an operand until `body` returns true; returns whether it stopped.
    typealias ValueVisitor = (RecordView, UInt64, (Value) throws -> Bool) throws -> Bool

    private func compile(_ c: GeneralComparison) throws -> RecordTest {
        let left = try valueVisitor(c.left), right = try valueVisitor(c.right)
        let op = c.op, options = c.options, patterns = self.patterns
        let quantifier = c.quantifier
        // The to-many side, if any, is the one quantified; the other is read once.
        let manyOnRight = c.right.kindIsToMany
        let many = manyOnRight ? right : left, single = manyOnRight ? left : right
        return { record, key in
            var other = Value.null
            _ = try single(record, key) { other = $0; return true }
            let matches: (Value) throws -> Bool = manyOnRight
                ? { try ValueComparison.test(other, op, options, $0, patterns: patterns) }
                : { try ValueComparison.test($0, op, options, other, patterns: patterns) }
            switch quantifier {
            case .any: return try many(record, key) { try matches($0) }
            case .all: return try !many(record, key) { try !matches($0) }
            case .noneOf: return try !many(record, key) { try matches($0) }
            }
        }
    }

    private func valueVisitor(_ operand: BoundOperand) throws -> ValueVisitor {
        switch operand {
        case .constant(let value):
            return { _, _, body in try body(value) }
        case .path(let path):
            let visit = try reader.visitor(path)
            let decode = KeyPathReader.decoder(path)
            return { record, key, body in try visit(record, key) { try body(try decode($0)) } }
        case .aggregate(let aggregate):
            let compute = try aggregator(aggregate)
            return { record, key, body in try body(try compute(record, key)) }
        case .subqueryCount(let subquery):
            let count = try counter(subquery)
            return { record, key, body in try body(.int(Int64(try count(record, key)))) }
        }
    }

    // MARK: Aggregates and subqueries

    /// Computes an aggregate for one object. Empty collections give Realm's answers: `@count`
    /// and `@sum` 0, `@avg`, `@min` and `@max` null. Null elements are skipped.
    func aggregator(_ aggregate: BoundAggregate) throws -> (RecordView, UInt64) throws -> Value {
        let path = aggregate.values
        let visit = try reader.visitor(path)
        let p = path.property
        switch aggregate.function {
        case .count, .size:
            if !path.isToMany {
                // `@size` of a string or data: its length in bytes.
                return { record, key in
                    var size = Value.null
                    _ = try visit(record, key) { bytes in
                        if bytes.count > 0 { size = .int(Int64(bytes.count - 1)) }
                        return true
                    }
                    return size
                }
            }
            if path.isDirect && p.isList {
                let id = p.id
                return { record, _ in
                    guard let bytes = record.slot(id), bytes.count >= 4 else { return .int(0) }
                    return .int(Int64(bytes.loadUnaligned(as: UInt32.self)))
                }
            }
            return { record, key in
                var n: Int64 = 0
                _ = try visit(record, key) { _ in n += 1; return false }
                return .int(n)
            }
        case .sum, .avg:
            let function = aggregate.function
            let decode = KeyPathReader.decoder(path)
            switch path.kind {
            case .int where function == .sum:
                return { record, key in
                    var total: Int64 = 0, wraps = 0
                    _ = try visit(record, key) { bytes in
                        if let v = RecordCodec.int(bytes) { AggregateAccumulator.add(v, to: &total, wraps: &wraps) }
                        return false
                    }
                    if wraps != 0 { throw AggregateAccumulator.outOfRange(path.text, at: path.range.start) }
                    return .int(total)
                }
            case .decimal:
                return { record, key in
                    var total = DecimalSum(), n = 0
                    _ = try visit(record, key) { bytes in
                        if case .decimal(let d) = try decode(bytes), !d.isNaN { total.add(d); n += 1 }
                        return false
                    }
                    if function == .sum { return try AggregateAccumulator.decimal(total.value, of: path.text, at: path.range.start) }
                    return n == 0 ? .null : try AggregateAccumulator.decimal(total.average(over: n), of: path.text, at: path.range.start)
                }
            default:
                return { record, key in
                    var sum = DoubleSum(), n = 0
                    _ = try visit(record, key) { bytes in
                        switch try decode(bytes) {
                        case .int(let i): sum.add(finite: Double(i)); n += 1
                        // A NaN takes no part, as in `AggregateAccumulator`.
                        case .float(let f) where !f.isNaN: sum.add(Double(f)); n += 1
                        case .double(let d) where !d.isNaN: sum.add(d); n += 1
                        default: break
                        }
                        return false
                    }
                    guard let total = sum.value else { throw AggregateAccumulator.outOfRange(path.text, fractional: true, at: path.range.start) }
                    if function == .sum { return .double(total) }
                    return n == 0 ? .null : .double(total / Double(n))
                }
            }
        case .min, .max:
            let decode = KeyPathReader.decoder(path)
            let wantsLess = aggregate.function == .min
            return { record, key in
                var best = Value.null
                _ = try visit(record, key) { bytes in
                    let value = try decode(bytes)
                    if AggregateAccumulator.replaces(value, best, least: wantsLess) { best = value }
                    return false
                }
                return best
            }
        }
    }

    /// Counts the elements of a subquery's collection that satisfy its predicate.
    private func counter(_ subquery: BoundSubquery) throws -> (RecordView, UInt64) throws -> Int {
        let visit = try reader.visitor(subquery.collection)
        let p = subquery.collection.property
        guard let target = p.target else {
            let test = try compileElement(subquery.predicate)
            return { record, key in
                var n = 0
                _ = try visit(record, key) { if try test($0) { n += 1 }; return false }
                return n
            }
        }
        let test = try compile(subquery.predicate)
        let tree = try reader.tree(target)
        let reader = self.reader
        return { record, key in
            var n = 0
            _ = try visit(record, key) { bytes in
                guard bytes.count == 8 else { return false }
                let element = bytes.loadUnaligned(as: UInt64.self)
                if try reader.withRecord(tree, element, { try test($0, element) }) == true { n += 1 }
                return false
            }
            return n
        }
    }
}
