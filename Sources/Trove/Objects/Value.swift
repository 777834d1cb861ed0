#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value: what the Swift API reads and writes, a property's default, the currency between
/// JSON, CSV, query constants and storage.
///
/// All integer widths share ``int(_:)``; the property's ``PropertyType`` fixes the range.
///
/// Literals work where a value is expected: `["name": "Ada", "age": 36, "tags": ["a", "b"]]`.
/// A link is written as the target's primary key (`"owner": "ada"`), as a
/// ``reference(_:)`` to a stored object, or as a nested ``object(_:)`` that is upserted.
///
/// Not `indirect`: lists and objects already keep their elements out of line, and an indirect
/// enum would put every string, date or number in a heap box of its own.
public enum Value: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case decimal(Decimal)
    case uuid(UUID)
    /// A list (of scalars or of links).
    case list([Value])
    /// A stored object (the value of a to-one link, or an element of a list of links).
    case reference(ObjectReference)
    /// An object given by its properties, to be upserted where a link is expected.
    case object([String: Value])

    /// Whether this is ``null``.
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// A short name of the value's kind, for error messages.
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a bool"
        case .int: "an integer"
        case .float: "a float"
        case .double: "a double"
        case .string: "a string"
        case .date: "a date"
        case .data: "data"
        case .decimal: "a decimal"
        case .uuid: "a UUID"
        case .list: "a list"
        case .reference: "an object reference"
        case .object: "an object"
        }
    }
}

/// Identifies a stored object within its store: its model and internal object key. Stable for
/// the object's life; hand primary keys, not references, between stores.
public struct ObjectReference: Sendable, Hashable, CustomStringConvertible {
    public let model: String
    public let key: UInt64

    public init(model: String, key: UInt64) {
        self.model = model
        self.key = key
    }

    public var description: String { "\(model)#\(key)" }
}

extension Value: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: Value...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, Value)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
}

extension Value: CustomStringConvertible {
    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let v): "\(v)"
        case .int(let v): "\(v)"
        case .float(let v): NonFiniteNumber.text(Double(v)) ?? "\(v)"
        case .double(let v): NonFiniteNumber.text(v) ?? "\(v)"
        case .string(let v): "\"\(v)\""
        case .date(let v): ISO8601Timestamp.format(v)
        case .data(let v): "<\(v.count) bytes>"
        case .decimal(let v): "\(v)"
        case .uuid(let v): v.uuidString
        case .list(let v): "[" + v.map(\.description).joined(separator: ", ") + "]"
        case .reference(let r): r.description
        case .object(let o): "{" + o.map { "\($0.key): \($0.value)" }.sorted().joined(separator: ", ") + "}"
        }
    }
}
