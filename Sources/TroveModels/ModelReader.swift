import Trove

/// A stored object as the `init(_storedObject:)` that `@Model` writes reads it: each property
/// by its position in the model's property table, converted by its Swift type's
/// ``StorableProperty/_stored(_:in:at:)``, with no property names looked up and no `Codable`
/// containers.
///
/// A read that does not fit the Swift type throws; the value is then read again through
/// `Codable`, whose ``ModelDecodingError`` names the property.
@_documentation(visibility: internal)
public struct _ModelReader {
    let object: StoredObjectReader

    /// The property at `index` of the model's property table. Inlinable, as are the
    /// conversions it calls, so that the `init(_storedObject:)` `@Model` writes reads each
    /// property through code specialized for its type.
    @inlinable
    public func read<V: StorableProperty>(_ index: Int) throws -> V {
        try V._stored(value(at: index), in: self, at: index)
    }

    /// A linkingObjects property: read for the value fetched, empty for the values it links
    /// to, so that a link and its inverse do not read each other without end.
    @inlinable
    public func linkingObjects<V: StorableProperty & RangeReplaceableCollection>(_ index: Int) throws -> V {
        depth == 0 ? try read(index) : V()
    }

    /// The stored value of the property at `index` (links as references).
    @usableFromInline
    func value(at index: Int) throws -> Value { try object.value(at: index) }

    /// How many links were followed from the object first read.
    @usableFromInline
    var depth: Int { object.depth }

    /// The model value that the link or list at `index` points at with `reference`.
    /// A read-only snapshot keeps the struct values it linked to that hold no class instance:
    /// each is the same wherever it is linked from (below the top, linkingObjects are empty).
    /// The kept value is found in the caller's specialized code; only a value not kept is read
    /// through generic code.
    @inlinable
    func linked<M: PersistentModel>(_ type: M.Type, _ reference: ObjectReference, at index: Int) throws -> M {
        let linkDepth = depth + 1
        // A class instance kept would be shared by every value linking to it, and a change
        // to it through one would show in the values read after. `_canBeClass` is decided
        // when this is specialized for a struct, so its reads pay for no dynamic cast. A
        // struct that holds an instance gets a cache that keeps nothing (see `linkedValues`).
        let cache = _canBeClass(M.self) != 0 && M.self is AnyClass ? nil : linkedValues(M.self)
        if let cache, let value = cache.value(for: reference.key, depth: linkDepth) { return value }
        return try readLinked(M.self, key: reference.key, at: index, depth: linkDepth, keepingIn: cache)
    }

    /// The linked values of `M` this reader's snapshot keeps, if it keeps them. Whether `M`
    /// holds a class instance is asked once per snapshot, when its cache is made, so that a
    /// read of a kept value asks nothing more.
    @inlinable
    func linkedValues<M: PersistentModel>(_ type: M.Type) -> LinkedValues<M>? {
        linkedValueCache(for: ObjectIdentifier(M.self)) { LinkedValues<M>(keeping: M._holdsNoClassInstance) }
            .map { unsafeDowncast($0, to: LinkedValues<M>.self) }
    }

    @usableFromInline
    func linkedValueCache(for type: ObjectIdentifier, _ make: () -> AnyObject) -> AnyObject? {
        object.linkedValueCache(for: type, make)
    }

    /// Reads the object `key` that the property at `index` links to, `depth` links deep, and
    /// keeps it in `cache`.
    @usableFromInline
    func readLinked<M: PersistentModel>(_ type: M.Type, key: UInt64, at index: Int, depth: Int, keepingIn cache: LinkedValues<M>?) throws -> M {
        var value: M?
        let found = try object.withLinkedObject(at: index, key: key, type: ObjectIdentifier(M.self), names: M.propertyNames) {
            value = try M(_storedObject: _ModelReader(object: $0))
        }
        guard found, let value else { throw StoredObjectReader.Unreadable() }
        cache?.keep(value, for: key, depth: depth)
        return value
    }

    /// Thrown by a conversion that leaves the property to `Codable`.
    @usableFromInline
    static var unreadable: any Error { StoredObjectReader.Unreadable() }
}

extension PersistentModel {
    /// A model listed by hand has no `init(_storedObject:)` of its own: it reads through `Codable`.
    @_documentation(visibility: internal)
    public init(_storedObject: _ModelReader) throws {
        throw _ModelReader.unreadable
    }

    /// The names of the property table, in order: what a layout resolves a reader's slots from.
    @usableFromInline
    static func propertyNames() -> [String] { modelProperties.map(\.name) }

    /// Reads `object` through `init(_storedObject:)`; nil when that leaves it to `Codable`.
    static func read(_ object: DynamicObject) throws -> Self? {
        try readInPlace(object) { try Self(_storedObject: _ModelReader(object: $0)) }
    }

    /// `body` over `object` read in place for this type; nil when the read leaves it to
    /// `Codable` (``StoredObjectReader/Unreadable``). The store's own errors (a snapshot that
    /// ended, a record that does not read) are thrown: `Codable` would meet them again.
    static func readInPlace<R>(_ object: DynamicObject, _ body: (StoredObjectReader) throws -> R) throws -> R? {
        do {
            return try object.withStoredReader(type: ObjectIdentifier(Self.self), names: propertyNames, body)
        } catch is StoredObjectReader.Unreadable {
            return nil
        }
    }

    /// A model value stands for a to-one link, read from the object it points at.
    @inlinable
    public static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> Self {
        guard case .reference(let reference) = value else { throw _ModelReader.unreadable }
        return try reader.linked(Self.self, reference, at: index)
    }
}
