import TroveStorage

/// `min` or `max` of an indexed integer or date property with no predicate, answered by one
/// end of its index: the first non-null key (`min`) or the last key (`max`), one descent of
/// the tree, nothing else. Kept with the statement's cached binding (`ParsedQueryCache`), so a
/// repeated `max Car.year` costs the cache lookup and that descent.
///
/// Integers and dates only: their keys hold the value whole and have no NaN or signed zero
/// for the general path (`IndexedAggregate`) to weigh.
final class IndexEnd {
    private let model: ModelLayout
    private let property: PropertyLayout
    private let isPrimaryKey: Bool
    private let isMax: Bool

    /// The keys of non-null values start with this tag; a null's key is tag 0 alone.
    private static let valuesStart: [UInt8] = [1]

    /// The end that answers `statement`, or nil when it is not such a statement.
    init?(_ statement: BoundAggregateStatement) {
        guard statement.function == .min || statement.function == .max, statement.predicate == nil,
              let path = statement.values, path.isDirect, path.property.model === statement.model else { return nil }
        let p = path.property
        let isPrimaryKey = statement.model.primaryKey === p
        guard isPrimaryKey || p.isIndexed, p.type.canBeIndexed, p.type.isInteger || p.type == .date else { return nil }
        model = statement.model
        property = p
        self.isPrimaryKey = isPrimaryKey
        isMax = statement.function == .max
    }

    /// The statement's value in `snapshot`, or nil when an entry is not one this reading
    /// decodes (the general path decides then).
    func value(in snapshot: Snapshot) throws -> Value? {
        guard let tree = try isPrimaryKey ? snapshot.primaryKeyTree(model) : snapshot.indexTree(property) else { return .null }
        let type = property.type
        let isPrimaryKey = isPrimaryKey
        // A secondary index's key ends with the object key; the primary-key tree's value is it.
        func read(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Value? {
            let suffix = isPrimaryKey ? 0 : 8
            guard key.count > suffix, !isPrimaryKey || value.count == 8 else { return nil }
            let valueKey = UnsafeRawBufferPointer(rebasing: key[..<(key.count - suffix)])
            switch valueKey[0] {
            case 0: return valueKey.count == 1 ? .null : nil
            case 1: return IndexKey.value(of: valueKey, as: type)
            default: return nil
            }
        }
        if isMax {
            // Nulls sort first: a null last means there is no value.
            return try snapshot.storageTx.withLastEntry(tree, read) ?? .null
        }
        // No key from the first non-null one on: no value.
        var found: Value? = .null
        try Self.valuesStart.withUnsafeBytes { start in
            try snapshot.storageTx.forEach(tree, from: start) { key, value in
                found = read(key, value)
                return false
            }
        }
        return found
    }
}
