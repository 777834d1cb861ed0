#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes a `Decodable` value from a stored object, reading only the properties the type
/// asks for: a nested struct from the object a link points to, an array from a list (of
/// values or of linked objects, or a linkingObjects property). Also decodes from plain
/// property values (``Value/object(_:)``), as the in-memory repository keeps them.
package enum ObjectDecoder {
    /// How deep links are followed; a type graph with a cycle (a publisher's characters and
    /// each character's publisher) stops here with an error instead of recursing forever.
    package static let maximumDepth = 32

    package static func decode<T: Decodable>(_ type: T.Type, from object: DynamicObject) throws -> T {
        try T(from: NodeDecoder(node: .object(object), snapshot: object.snapshot, codingPath: []))
    }

    package static func decode<T: Decodable>(_ type: T.Type, from properties: [String: Value]) throws -> T {
        try T(from: NodeDecoder(node: .value(.object(properties)), snapshot: nil, codingPath: []))
    }

    /// The `T` that one value holds (a query's column): a scalar, an optional, a list, or a
    /// link's object read from `snapshot`.
    package static func decode<T: Decodable>(_ type: T.Type, from value: Value, snapshot: Snapshot) throws -> T {
        try NodeDecoder(node: .value(value), snapshot: snapshot, codingPath: []).decode(type, from: value, at: [])
    }

    /// The leaf types a ``Value`` converts to directly; nil when `T` is not one of them.
    static func primitive<T>(_ type: T.Type, from v: Value, codingPath: [any CodingKey]) throws -> T? {
        func mismatch() -> DecodingError {
            .typeMismatch(T.self, .init(codingPath: codingPath, debugDescription: "expected \(T.self), found \(v.kindDescription)"))
        }
        func integer<I: FixedWidthInteger>(_: I.Type) throws -> T {
            guard case .int(let i) = v, let n = I(exactly: i) else { throw mismatch() }
            return n as! T
        }
        switch type {
        case is Bool.Type: if case .bool(let b) = v { return (b as! T) }; throw mismatch()
        case is String.Type: if case .string(let s) = v { return (s as! T) }; throw mismatch()
        case is Int.Type: return try integer(Int.self)
        case is Int8.Type: return try integer(Int8.self)
        case is Int16.Type: return try integer(Int16.self)
        case is Int32.Type: return try integer(Int32.self)
        case is Int64.Type: return try integer(Int64.self)
        case is UInt.Type: return try integer(UInt.self)
        case is UInt8.Type: return try integer(UInt8.self)
        case is UInt16.Type: return try integer(UInt16.self)
        case is UInt32.Type: return try integer(UInt32.self)
        case is UInt64.Type: return try integer(UInt64.self)
        case is Double.Type:
            switch v {
            case .double(let d): return (d as! T)
            case .float(let f): return (Double(f) as! T)
            default: throw mismatch()
            }
        case is Float.Type:
            switch v {
            case .float(let f): return (f as! T)
            case .double(let d): return (Float(d) as! T)
            default: throw mismatch()
            }
        case is Date.Type: if case .date(let d) = v { return (d as! T) }; throw mismatch()
        case is Data.Type: if case .data(let d) = v { return (d as! T) }; throw mismatch()
        case is UUID.Type: if case .uuid(let u) = v { return (u as! T) }; throw mismatch()
        case is Decimal.Type: if case .decimal(let d) = v { return (d as! T) }; throw mismatch()
        case is URL.Type:
            if case .string(let s) = v, let u = URL(string: s) { return (u as! T) }
            throw mismatch()
        case is Value.Type: return (v as! T)
        default: return nil
        }
    }
}

/// What a decoder reads: an object, or a property's value.
enum DecodingNode {
    case object(DynamicObject)
    case value(Value)
}

struct NodeDecoder: Decoder {
    let node: DecodingNode
    /// Nil for plain values, which hold no references.
    let snapshot: Snapshot?
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func decode<T: Decodable>(_ type: T.Type, from value: Value, at path: [any CodingKey]) throws -> T {
        if let p = try ObjectDecoder.primitive(type, from: value, codingPath: path) { return p }
        guard path.count <= ObjectDecoder.maximumDepth else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "links followed more than \(ObjectDecoder.maximumDepth) deep: does the type graph have a cycle?"))
        }
        return try T(from: NodeDecoder(node: .value(value), snapshot: snapshot, codingPath: path))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch node {
        case .object(let o):
            return KeyedDecodingContainer(KeyedObjectDecoder(source: .object(o), decoder: self))
        case .value(.object(let properties)):
            return KeyedDecodingContainer(KeyedObjectDecoder(source: .values(properties), decoder: self))
        case .value(.reference(let r)):
            guard let o = try snapshot?.object(r) else {
                throw DecodingError.valueNotFound(Key.self, .init(codingPath: codingPath, debugDescription: "\(r) is not readable"))
            }
            return KeyedDecodingContainer(KeyedObjectDecoder(source: .object(o), decoder: self))
        case .value(let v):
            throw DecodingError.typeMismatch([String: Any].self, .init(codingPath: codingPath, debugDescription: "expected an object, found \(v.kindDescription)"))
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .value(.list(let items)) = node else {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "expected a list"))
        }
        return UnkeyedValueDecoder(items: items, decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValueDecoder(decoder: self) }
}

/// Where a keyed container reads properties.
enum PropertySource {
    case object(DynamicObject)
    case values([String: Value])

    var names: [String] {
        switch self {
        case .object(let o): o.model.properties.map(\.name)
        case .values(let v): Array(v.keys)
        }
    }

    func has(_ name: String) -> Bool {
        switch self {
        case .object(let o): o.model.byName[name] != nil
        case .values(let v): v[name] != nil
        }
    }

    func value(_ name: String) throws -> Value {
        switch self {
        case .object(let o): try o.value(name)
        case .values(let v): v[name] ?? .null
        }
    }

    var label: String {
        switch self {
        case .object(let o): "model \(o.modelName)"
        case .values: "the stored values"
        }
    }
}

struct KeyedObjectDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let source: PropertySource
    let decoder: NodeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] { source.names.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { source.has(key.stringValue) }

    private func value(_ key: Key) throws -> Value {
        guard contains(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "\(source.label) has no property '\(key.stringValue)'"))
        }
        return try source.value(key.stringValue)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNull }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decode(type, from: try value(key), at: codingPath + [key])
    }
    /// One read of the property, where the protocol's default reads it for `contains`,
    /// `decodeNil` and `decode` in turn.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard contains(key) else { return nil }
        let v = try source.value(key.stringValue)
        return v.isNull ? nil : try decoder.decode(type, from: v, at: codingPath + [key])
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try get(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try get(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try get(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try get(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try get(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try get(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try get(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try get(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try get(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try get(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try get(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try get(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try get(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try get(type, key) }
    private func get<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T { try decode(type, forKey: key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try child(key).unkeyedContainer() }
    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
    private func child(_ key: Key) throws -> NodeDecoder {
        NodeDecoder(node: .value(try value(key)), snapshot: decoder.snapshot, codingPath: codingPath + [key])
    }
}

struct UnkeyedValueDecoder: UnkeyedDecodingContainer {
    let items: [Value]
    let decoder: NodeDecoder
    var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private struct Index: CodingKey {
        var intValue: Int?
        var stringValue: String { "\(intValue!)" }
        init(_ i: Int) { intValue = i }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    private mutating func next() throws -> (Value, [any CodingKey]) {
        guard !isAtEnd else { throw DecodingError.valueNotFound(Value.self, .init(codingPath: codingPath, debugDescription: "the list has no more elements")) }
        defer { currentIndex += 1 }
        return (items[currentIndex], codingPath + [Index(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (v, path) = try next()
        return try decoder.decode(type, from: v, at: path)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (v, path) = try next()
        return try NodeDecoder(node: .value(v), snapshot: decoder.snapshot, codingPath: path).container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (v, path) = try next()
        return try NodeDecoder(node: .value(v), snapshot: decoder.snapshot, codingPath: path).unkeyedContainer()
    }
    mutating func superDecoder() throws -> any Decoder {
        let (v, path) = try next()
        return NodeDecoder(node: .value(v), snapshot: decoder.snapshot, codingPath: path)
    }
}

struct SingleValueDecoder: SingleValueDecodingContainer {
    let decoder: NodeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    private var value: Value {
        switch decoder.node {
        case .object(let o): .reference(o.reference)
        case .value(let v): v
        }
    }

    func decodeNil() -> Bool { value.isNull }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // A type decoding itself from a single value (a RawRepresentable enum, a wrapper)
        // gets the property's value; anything else is read as before.
        if let p = try ObjectDecoder.primitive(type, from: value, codingPath: codingPath) { return p }
        return try T(from: decoder)
    }
}
