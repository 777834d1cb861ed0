/// One model: a named kind of object with ordered properties.
public struct ModelSchema: Sendable, Equatable {
    public var name: String
    /// The name of the primary-key property, if any.
    public var primaryKey: String?
    /// In declared order, which is the order of columns and of JSON output.
    public var properties: [PropertySchema]
    /// Renames to carry data across, new name to old name. A key equal to the model's own
    /// name renames the model; other keys rename its properties.
    public var renamed: [String: String]

    public init(name: String, primaryKey: String? = nil, properties: [PropertySchema], renamed: [String: String] = [:]) {
        self.name = name
        self.primaryKey = primaryKey
        self.properties = properties
        self.renamed = renamed
    }

    /// The property named `name`.
    public subscript(property name: String) -> PropertySchema? {
        properties.first { $0.name == name }
    }

    /// The primary-key property.
    public var primaryKeyProperty: PropertySchema? {
        primaryKey.flatMap { self[property: $0] }
    }

    /// Whether `property` has an index: declared, or as the primary key.
    public func isIndexed(_ property: PropertySchema) -> Bool {
        property.isIndexed || property.name == primaryKey
    }

    /// The name this model had before, per ``renamed``.
    public var previousName: String? { renamed[name] }

    /// The name the property `name` had before, per ``renamed``.
    public func previousName(ofProperty name: String) -> String? {
        name == self.name ? nil : renamed[name]
    }
}
