#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

/// The schema type of a property: ``Trove/PropertyType`` and whether it may be null (for a
/// list, whether its elements may be).
public struct StoredPropertyType: Sendable, Hashable {
    public var type: PropertyType
    public var isOptional: Bool

    public init(type: PropertyType, isOptional: Bool) {
        self.type = type
        self.isOptional = isOptional
    }
}

/// A Swift type a model property may have: every scalar of the schema format, optionals,
/// arrays (lists) and models (links).
public protocol StorableProperty {
    /// The schema type of a property of this Swift type.
    static var storedPropertyType: StoredPropertyType { get }
    /// The model a value of this type links to, if any.
    static var linkedModel: (any PersistentModel.Type)? { get }
    /// The value as Trove stores it: a query constant, or a schema default.
    func storedValue() throws -> Value
}

extension StorableProperty {
    public static var linkedModel: (any PersistentModel.Type)? { nil }
}

/// A scalar whose schema type is fixed.
public protocol StorableScalar: StorableProperty {
    static var scalarType: PropertyType { get }
}

extension StorableScalar {
    public static var storedPropertyType: StoredPropertyType { StoredPropertyType(type: scalarType, isOptional: false) }
}

extension Bool: StorableScalar {
    public static var scalarType: PropertyType { .bool }
    public func storedValue() -> Value { .bool(self) }
}

extension Int: StorableScalar {
    public static var scalarType: PropertyType { .int }
    public func storedValue() -> Value { .int(Int64(self)) }
}

extension Int8: StorableScalar {
    public static var scalarType: PropertyType { .int8 }
    public func storedValue() -> Value { .int(Int64(self)) }
}

extension Int16: StorableScalar {
    public static var scalarType: PropertyType { .int16 }
    public func storedValue() -> Value { .int(Int64(self)) }
}

extension Int32: StorableScalar {
    public static var scalarType: PropertyType { .int32 }
    public func storedValue() -> Value { .int(Int64(self)) }
}

extension Int64: StorableScalar {
    public static var scalarType: PropertyType { .int64 }
    public func storedValue() -> Value { .int(self) }
}

extension Float: StorableScalar {
    public static var scalarType: PropertyType { .float }
    public func storedValue() -> Value { .float(self) }
}

extension Double: StorableScalar {
    public static var scalarType: PropertyType { .double }
    public func storedValue() -> Value { .double(self) }
}

extension String: StorableScalar {
    public static var scalarType: PropertyType { .string }
    public func storedValue() -> Value { .string(self) }
}

extension Date: StorableScalar {
    public static var scalarType: PropertyType { .date }
    public func storedValue() -> Value { .date(self) }
}

extension Data: StorableScalar {
    public static var scalarType: PropertyType { .data }
    public func storedValue() -> Value { .data(self) }
}

extension Decimal: StorableScalar {
    public static var scalarType: PropertyType { .decimal }
    public func storedValue() -> Value { .decimal(self) }
}

extension UUID: StorableScalar {
    public static var scalarType: PropertyType { .uuid }
    public func storedValue() -> Value { .uuid(self) }
}

extension Optional: StorableProperty where Wrapped: StorableProperty {
    public static var storedPropertyType: StoredPropertyType {
        StoredPropertyType(type: Wrapped.storedPropertyType.type, isOptional: true)
    }

    public static var linkedModel: (any PersistentModel.Type)? { Wrapped.linkedModel }

    public func storedValue() throws -> Value {
        switch self {
        case .none: .null
        case .some(let wrapped): try wrapped.storedValue()
        }
    }
}

extension Array: StorableProperty where Element: StorableProperty {
    /// A list; optional elements make `int?[]`.
    public static var storedPropertyType: StoredPropertyType {
        let element = Element.storedPropertyType
        return StoredPropertyType(type: .list(element.type), isOptional: element.type.isLink ? false : element.isOptional)
    }

    public static var linkedModel: (any PersistentModel.Type)? { Element.linkedModel }

    public func storedValue() throws -> Value { .list(try map { try $0.storedValue() }) }
}
