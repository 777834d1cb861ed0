/// A `Codable` value type stored as objects of a model.
///
/// ```swift
/// struct Character: Persistable {
///     var identifier: Int
///     var name: String
///     var realName: String?
///     var publisher: Publisher?       // a to-one link: stored as the Publisher object
///     enum PropertyValue: PropertyValueType { ... }
///     enum Query: QueryType { ... }
/// }
/// ```
///
/// The mapping follows `Codable`: the coding keys are the model's property names (rename with
/// `CodingKeys`); a nested `Persistable` (or any struct) is the object a link points to,
/// written by primary key as an upsert; an array is a list (of values, or of linked objects
/// when its elements are structs), and may also read a linkingObjects property. Properties the
/// type does not declare are left alone by partial updates; see
/// ``ValueTransaction/add(_:update:)`` for whole-value writes.
public protocol Persistable: Codable {
    /// The cases of a partial update (``ValueTransaction/update(_:_:)``).
    associatedtype PropertyValue: PropertyValueType = NoPropertyValue
    /// The queries of the type (``Container/values(_:matching:)``).
    associatedtype Query: QueryType = NoQuery
    /// The model the type is stored as; by default the type's name.
    static var modelName: String { get }
}

extension Persistable {
    public static var modelName: String { String(describing: Self.self) }
}
