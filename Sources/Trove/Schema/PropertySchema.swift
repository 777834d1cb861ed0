/// One property of a model.
public struct PropertySchema: Sendable, Equatable {
    public var name: String
    public var type: PropertyType
    /// Whether the value may be null. For a list, whether its *elements* may be null
    /// (`int?[]`), as in Realm. To-one links are always optional; linkingObjects never are.
    public var isOptional: Bool
    /// Whether a secondary index is declared. A primary key is indexed whether or not
    /// this is set: see ``ModelSchema/isIndexed(_:)``.
    public var isIndexed: Bool
    /// The value an insert that omits the property gets.
    public var defaultValue: Value?

    /// A property; a to-one link is made optional whatever `isOptional` says.
    public init(
        name: String,
        type: PropertyType,
        isOptional: Bool = false,
        isIndexed: Bool = false,
        defaultValue: Value? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional || type.isLink
        self.isIndexed = isIndexed
        self.defaultValue = defaultValue
    }

    /// The target model of a link, a list of links or linkingObjects.
    public var objectType: String? { type.objectType }

    /// For linkingObjects: the link or list property of ``objectType`` that points here.
    public var originProperty: String? {
        if case .linkingObjects(_, let property) = type { return property }
        return nil
    }

    /// False for linkingObjects, which are computed from the links that point here.
    public var isStored: Bool { !type.isLinkingObjects }

    /// The type as a schema file writes it: `int`, `date?`, `Dog?`, `int?[]`, `Dog[]`,
    /// `linkingObjects`.
    public var typeString: String {
        switch type {
        case .list(let element): element.description + (isOptional ? "?" : "") + "[]"
        case .linkingObjects: "linkingObjects"
        default: type.description + (isOptional ? "?" : "")
        }
    }
}
