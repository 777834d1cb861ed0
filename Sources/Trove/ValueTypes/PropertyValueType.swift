/// A property of a ``Persistable`` type with a value, for type-safe partial updates: usually
/// an enum with a case per property.
///
/// ```swift
/// extension Character {
///     enum PropertyValue: PropertyValueType {
///         case identifier(Int)
///         case realName(String?)
///         var propertyValuePair: (name: String, value: Value) {
///             switch self {
///             case .identifier(let id): ("identifier", .int(Int64(id)))
///             case .realName(let name): ("realName", name.map(Value.string) ?? .null)
///             }
///         }
///     }
/// }
/// ```
public protocol PropertyValueType {
    /// The property's name in the model, and the value to store.
    var propertyValuePair: (name: String, value: Value) { get }
}

/// The property values of a type that declares none: partial updates are impossible.
public enum NoPropertyValue: PropertyValueType {
    public var propertyValuePair: (name: String, value: Value) {
        switch self {}
    }
}
