import Trove

/// A model as `.models`, `.schema` and completion see it.
public struct ModelDescription: Sendable, Equatable {
    public var name: String
    public var primaryKey: String?
    /// In schema order.
    public var properties: [PropertyDescription]

    public init(name: String, primaryKey: String? = nil, properties: [PropertyDescription]) {
        self.name = name
        self.primaryKey = primaryKey
        self.properties = properties
    }
}

/// A property as a schema file writes it.
public struct PropertyDescription: Sendable, Equatable {
    public var name: String
    /// The schema file's type string: `"int"`, `"date?"`, `"Dog[]"`, `"Person?"`, or
    /// `"linkingObjects"`.
    public var type: String
    /// The linked model of a link, a list of links or linkingObjects, so completion can
    /// follow key paths such as `owner.name`.
    public var objectType: String?
    /// For linkingObjects: the link property of `objectType` it inverts.
    public var linkProperty: String?
    public var isIndexed: Bool
    /// The schema's default, as a schema file writes it.
    public var defaultValue: JSONValue?

    public init(name: String, type: String, objectType: String? = nil, linkProperty: String? = nil, isIndexed: Bool = false,
                defaultValue: JSONValue? = nil) {
        self.name = name
        self.type = type
        self.objectType = objectType
        self.linkProperty = linkProperty
        self.isIndexed = isIndexed
        self.defaultValue = defaultValue
    }
}
