/// Makes a struct or a final class a ``PersistentModel``: lists its stored properties, with
/// their attributes, as the model's property table. `@Model("Name")` stores it under another
/// model name.
///
/// A class model's instances are detached values, as a struct's are: what a read found, not
/// objects the store manages (see ``PersistentModel``). A class that is not `final`, or that
/// has a superclass, is refused when it compiles.
@attached(member, names: named(init(from:)), named(init(_storedObject:)), named(init))
@attached(extension, conformances: PersistentModel, Decodable, Encodable,
          names: named(modelProperties), named(modelName), named(_ModelType), named(_ModelCodingKeys), named(init(from:)), named(init(_storedObject:)), named(_changedProperties(from:to:)), named(_partialUpdate(from:to:)), named(_storedEqual), named(_writtenProperties(of:)), named(_writesEveryProperty), named(_chainedKeyPaths), named(_holdsNoClassInstance), named(_nestsNoClassInstance), named(encode(to:)))
public macro Model(_ name: String? = nil) = #externalMacro(module: "TroveMacros", type: "ModelMacro")

/// The schema attributes of a stored property of a `@Model` type.
@attached(peer)
public macro Attribute(_ options: AttributeOption..., originalName: String? = nil) = #externalMacro(module: "TroveMacros", type: "MarkerMacro")

/// A property of a `@Model` type that is not stored; it needs an initial value.
@attached(peer)
public macro Transient() = #externalMacro(module: "TroveMacros", type: "MarkerMacro")

/// A computed list of the objects whose link or list `origin` points at this one:
/// `@LinkingObjects(\Dog.owner) var dogs: [Dog] = []`.
@attached(peer)
public macro LinkingObjects<Origin, Target>(_ origin: KeyPath<Origin, Target>) = #externalMacro(module: "TroveMacros", type: "MarkerMacro")

/// An option of ``Attribute(_:originalName:)``.
public enum AttributeOption: Sendable {
    /// The primary key: unique, indexed, and what upserts and partial updates find objects by.
    case primaryKey
    /// A secondary index, which equality and range queries use.
    case indexed
}

extension KeyedDecodingContainer {
    /// A stored property of a `@Model` type, for the `init(from:)` the macro writes: null or
    /// absent is nil for an optional.
    @_documentation(visibility: internal)
    public func _decodeModelProperty<T: Decodable>(forKey key: Key) throws -> T {
        if let optional = T.self as? any OptionalModelProperty.Type {
            return try optional.decodeModelProperty(from: self, forKey: key) as! T
        }
        return try decode(T.self, forKey: key)
    }

    /// A linkingObjects property: read for the value fetched, empty for the values it links
    /// to, so that a link and its inverse do not decode each other without end.
    @_documentation(visibility: internal)
    public func _decodeLinkingObjects<T: Decodable & RangeReplaceableCollection>(forKey key: Key) throws -> T {
        guard codingPath.isEmpty else { return T() }
        return try decode(T.self, forKey: key)
    }
}

/// An optional property, read with one `decodeIfPresent` rather than the `contains`,
/// `decodeNil` and `decode` of a generic optional.
protocol OptionalModelProperty {
    static func decodeModelProperty<Key: CodingKey>(from container: KeyedDecodingContainer<Key>, forKey key: Key) throws -> Self
}

extension Optional: OptionalModelProperty where Wrapped: Decodable {
    static func decodeModelProperty<Key: CodingKey>(from container: KeyedDecodingContainer<Key>, forKey key: Key) throws -> Self {
        try container.decodeIfPresent(Wrapped.self, forKey: key)
    }
}
