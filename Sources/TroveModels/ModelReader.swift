import Trove

/// A stored object as the `init(storedObject:)` that `@Model` writes reads it: each property
/// by its position in the model's property table, converted by its Swift type's
/// ``StorableProperty/stored(_:in:at:)``, with no property names looked up and no `Codable`
/// containers.
///
/// A read that does not fit the Swift type throws; the value is then read again through
/// `Codable`, whose ``ModelDecodingError`` names the property.
public struct ModelReader {
    let object: StoredObjectReader

    /// The property at `index` of the model's property table.
    public func read<V: StorableProperty>(_ index: Int) throws -> V {
        try V.stored(object.value(at: index), in: self, at: index)
    }

    /// A linkingObjects property: read for the value fetched, empty for the values it links
    /// to, so that a link and its inverse do not read each other without end.
    public func linkingObjects<V: StorableProperty & RangeReplaceableCollection>(_ index: Int) throws -> V {
        object.depth == 0 ? try read(index) : V()
    }

    /// The model value that the link or list at `index` points at with `reference`.
    /// A read-only snapshot keeps the values it linked to: each is the same wherever it is
    /// linked from (below the top, linkingObjects are empty).
    func linked<M: PersistentModel>(_ type: M.Type, _ reference: ObjectReference, at index: Int) throws -> M {
        let cache = object.linkedValues(M.self)
        let depth = object.depth + 1
        if let cache, let value = cache.values[reference.key], depth == 1 || cache.depths[reference.key, default: 1] >= depth {
            return value
        }
        guard let value = try object.withLinkedObject(at: index, key: reference.key, type: ObjectIdentifier(M.self), names: M.propertyNames, {
            try M(storedObject: ModelReader(object: $0))
        }) else { throw StoredObjectReader.Unreadable() }
        if let cache, cache.values.count < LinkedValues<M>.capacity || cache.values[reference.key] != nil {
            cache.values[reference.key] = value
            // Read again only where a deeper read needed it: the depth grows.
            if depth > 1 { cache.depths[reference.key] = depth }
        }
        return value
    }

    /// Thrown by a conversion that leaves the property to `Codable`.
    static var unreadable: any Error { StoredObjectReader.Unreadable() }
}

extension PersistentModel {
    /// A model listed by hand has no `init(storedObject:)` of its own: it reads through `Codable`.
    public init(storedObject: ModelReader) throws {
        throw ModelReader.unreadable
    }

    /// The names of the property table, in order: what a layout resolves a reader's slots from.
    static func propertyNames() -> [String] { modelProperties.map(\.name) }

    /// Reads `object` through `init(storedObject:)`; nil when that leaves it to `Codable`.
    static func read(_ object: DynamicObject) -> Self? {
        try? object.withStoredReader(type: ObjectIdentifier(Self.self), names: propertyNames) { try Self(storedObject: ModelReader(object: $0)) }
    }

    /// A model value stands for a to-one link, read from the object it points at.
    public static func stored(_ value: Value, in reader: ModelReader, at index: Int) throws -> Self {
        guard case .reference(let reference) = value else { throw ModelReader.unreadable }
        return try reader.linked(Self.self, reference, at: index)
    }
}
