/// A JSON value that keeps the key order of objects.
///
/// Trove needs key order: a schema file's `properties` object *is* the property order, and
/// output lists properties in schema order. Numbers keep the integer/floating distinction so
/// that `Int64` values round-trip exactly.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// An integer literal that fits in `Int64`.
    case int(Int64)
    /// An integer literal beyond `Int64`'s range, as written (digits, with `-` when negative),
    /// so that a message about it shows it as the input has it.
    case bigInteger(String)
    /// Any other number.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// A JSON object: key/value pairs in document order. Keys are unique (a parser rejects duplicates).
public struct JSONObject: Sendable, Equatable {
    /// The pairs, in order.
    public private(set) var pairs: [(key: String, value: JSONValue)]

    public init() { pairs = [] }

    public init(_ pairs: [(key: String, value: JSONValue)]) { self.pairs = pairs }

    public var keys: [String] { pairs.map(\.key) }

    public var count: Int { pairs.count }

    /// The value for `key`, or nil. Objects are small, so a linear search beats hashing.
    public subscript(key: String) -> JSONValue? {
        get { pairs.first(where: { $0.key == key })?.value }
        set {
            if let i = pairs.firstIndex(where: { $0.key == key }) {
                if let newValue { pairs[i].value = newValue } else { pairs.remove(at: i) }
            } else if let newValue {
                pairs.append((key, newValue))
            }
        }
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        a.pairs.count == b.pairs.count
            && zip(a.pairs, b.pairs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

extension JSONValue {
    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The object, if this is an object.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// A short name of the JSON type, for error messages: "a string", "an object", ...
    public var typeDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .bigInteger, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

// Literals make JSON in code and tests read like JSON.
extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Keys keep the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Keys keep the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { (key: $0.0, value: $0.1) })
    }
}
