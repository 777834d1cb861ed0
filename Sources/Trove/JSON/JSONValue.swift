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
