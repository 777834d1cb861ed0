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
    @_documentation(visibility: internal)
    static var _linkedModel: (any PersistentModel.Type)? { get }
    /// The value as Trove stores it: a query constant, or a schema default.
    func storedValue() throws -> Value
    /// The value of this type that a stored property holds; `reader` and `index` (the
    /// property's place in its model's table) follow links. Throws when the value does not
    /// fit, and the object is then read through `Codable`.
    @_documentation(visibility: internal)
    static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> Self
    /// Whether `a` and `b` store the same: what a partial update compares.
    @_documentation(visibility: internal)
    static func _storedEqual(_ a: Self, _ b: Self) -> Bool
    /// The value a write stores: ``storedValue()``, but a link is its nested object's
    /// property values, which the write upserts.
    @_documentation(visibility: internal)
    func _writtenValue() throws -> Value
}

extension StorableProperty {
    @_documentation(visibility: internal)
    public static var _linkedModel: (any PersistentModel.Type)? { nil }

    /// A type of its own reads through `Codable`.
    @inlinable
    public static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> Self {
        throw _ModelReader.unreadable
    }

    @_documentation(visibility: internal)
    public func _writtenValue() throws -> Value { try storedValue() }

    /// A type of its own compares by its stored value, as a write stores it (a string by its
    /// UTF-8 bytes).
    public static func _storedEqual(_ a: Self, _ b: Self) -> Bool {
        guard let a = try? a.storedValue(), let b = try? b.storedValue() else { return false }
        return a.isStoredSame(as: b)
    }
}

extension StorableScalar where Self: Equatable {
    @inlinable
    public static func _storedEqual(_ a: Self, _ b: Self) -> Bool { a == b }
}

extension StorableScalar where Self: FixedWidthInteger {
    /// An integer type reads a stored integer that fits it.
    @inlinable
    public static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> Self {
        guard case .int(let i) = value, let n = Self(exactly: i) else { throw _ModelReader.unreadable }
        return n
    }
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
    @inlinable
    public static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> Self {
        guard case .bool(let b) = value else { throw _ModelReader.unreadable }
        return b
    }
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
    @inlinable
    public static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> Self {
        switch value {
        case .float(let f): return f
        case .double(let d): return Float(d)
        default: throw _ModelReader.unreadable
        }
    }
}

extension Double: StorableScalar {
    public static var scalarType: PropertyType { .double }
    public func storedValue() -> Value { .double(self) }
    @inlinable
    public static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> Self {
        switch value {
        case .double(let d): return d
        case .float(let f): return Double(f)
        default: throw _ModelReader.unreadable
        }
    }
}

extension String: StorableScalar {
    public static var scalarType: PropertyType { .string }
    public func storedValue() -> Value { .string(self) }
    /// By UTF-8 bytes, as the store keeps a string: `==` takes canonically equivalent
    /// spellings (NFC and NFD) as equal, and an update from one to the other would write nothing.
    @inlinable
    @_documentation(visibility: internal)
    public static func _storedEqual(_ a: String, _ b: String) -> Bool { a.hasSameUTF8(as: b) }
    @inlinable
    public static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> Self {
        guard case .string(let v) = value else { throw _ModelReader.unreadable }
        return v
    }
}

extension Date: StorableScalar {
    public static var scalarType: PropertyType { .date }
    public func storedValue() -> Value { .date(self) }
    @inlinable
    public static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> Self {
        guard case .date(let v) = value else { throw _ModelReader.unreadable }
        return v
    }
}

extension Data: StorableScalar {
    public static var scalarType: PropertyType { .data }
    public func storedValue() -> Value { .data(self) }
    @inlinable
    public static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> Self {
        guard case .data(let v) = value else { throw _ModelReader.unreadable }
        return v
    }
}

extension Decimal: StorableScalar {
    public static var scalarType: PropertyType { .decimal }
    public func storedValue() -> Value { .decimal(self) }
    @inlinable
    public static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> Self {
        guard case .decimal(let v) = value else { throw _ModelReader.unreadable }
        return v
    }
}

extension UUID: StorableScalar {
    public static var scalarType: PropertyType { .uuid }
    public func storedValue() -> Value { .uuid(self) }
    @inlinable
    public static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> Self {
        guard case .uuid(let v) = value else { throw _ModelReader.unreadable }
        return v
    }
}

/// A type with scalar raw values (an enum of `String` or `Int` cases) is stored as its raw
/// value once it declares the conformance, as Realm's `PersistableEnum` is:
///
/// ```swift
/// enum Mood: String, Codable, StorableProperty { case happy, grumpy }
/// @Model struct Pet { @Attribute(.primaryKey) var id: Int; var mood: Mood? }
/// let grumpy = Mood.grumpy     // captured: `#Predicate` reads `Mood.grumpy` as a key path
/// let pets = try snapshot.objects(Pet.self, where: #Predicate { $0.mood == grumpy })
/// ```
///
/// A stored raw value that names no case does not read, and is a ``ModelDecodingError``.
extension StorableProperty where Self: RawRepresentable, RawValue: StorableScalar {
    public static var storedPropertyType: StoredPropertyType { RawValue.storedPropertyType }

    public func storedValue() throws -> Value { try rawValue.storedValue() }

    @inlinable
    public static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> Self {
        guard let v = Self(rawValue: try RawValue._stored(value, in: reader, at: index)) else { throw _ModelReader.unreadable }
        return v
    }
}

extension Optional: StorableProperty where Wrapped: StorableProperty {
    public static var storedPropertyType: StoredPropertyType {
        StoredPropertyType(type: Wrapped.storedPropertyType.type, isOptional: true)
    }

    @_documentation(visibility: internal)
    public static var _linkedModel: (any PersistentModel.Type)? { Wrapped._linkedModel }

    public func storedValue() throws -> Value {
        switch self {
        case .none: .null
        case .some(let wrapped): try wrapped.storedValue()
        }
    }

    @inlinable
    public static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> Self {
        if case .null = value { return nil }
        return try Wrapped._stored(value, in: reader, at: index)
    }

    @_documentation(visibility: internal)
    public func _writtenValue() throws -> Value {
        switch self {
        case .none: .null
        case .some(let wrapped): try wrapped._writtenValue()
        }
    }

    @inlinable
    public static func _storedEqual(_ a: Self, _ b: Self) -> Bool {
        switch (a, b) {
        case (.none, .none): true
        case (.some(let a), .some(let b)): Wrapped._storedEqual(a, b)
        default: false
        }
    }
}

extension Array: StorableProperty where Element: StorableProperty {
    /// A list; optional elements make `int?[]`.
    public static var storedPropertyType: StoredPropertyType {
        let element = Element.storedPropertyType
        return StoredPropertyType(type: .list(element.type), isOptional: element.type.isLink ? false : element.isOptional)
    }

    @_documentation(visibility: internal)
    public static var _linkedModel: (any PersistentModel.Type)? { Element._linkedModel }

    public func storedValue() throws -> Value { .list(try map { try $0.storedValue() }) }

    @inlinable
    public static func _stored(_ value: Value, in reader: _ModelReader, at index: Int) throws -> Self {
        guard case .list(let items) = value else { throw _ModelReader.unreadable }
        return try items.map { try Element._stored($0, in: reader, at: index) }
    }

    @_documentation(visibility: internal)
    public func _writtenValue() throws -> Value { .list(try map { try $0._writtenValue() }) }

    @inlinable
    public static func _storedEqual(_ a: Self, _ b: Self) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { Element._storedEqual($0, $1) }
    }
}
