#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes an `Encodable` value as a ``Value``: a struct becomes ``Value/object(_:)`` (which
/// the store writes as a linked object when the property is a link), an array a
/// ``Value/list(_:)``, and `Date`, `Data`, `UUID`, `Decimal` and `URL` keep their types
/// instead of the forms `Codable` gives them by default.
package enum ValueEncoder {
    package static func encode(_ value: some Encodable) throws -> Value {
        let node = EncodedNode()
        try node.encode(value, codingPath: [])
        return node.value
    }

    /// The value of a leaf that maps directly to a ``Value``; nil for anything else.
    static func primitive(_ v: Any) throws -> Value? {
        switch v {
        case let v as Bool: return .bool(v)
        case let v as String: return .string(v)
        case let v as Int: return .int(Int64(v))
        case let v as Int8: return .int(Int64(v))
        case let v as Int16: return .int(Int64(v))
        case let v as Int32: return .int(Int64(v))
        case let v as Int64: return .int(v)
        case let v as UInt8: return .int(Int64(v))
        case let v as UInt16: return .int(Int64(v))
        case let v as UInt32: return .int(Int64(v))
        case let v as UInt:
            guard let i = Int64(exactly: v) else { throw tooLarge(v) }
            return .int(i)
        case let v as UInt64:
            guard let i = Int64(exactly: v) else { throw tooLarge(v) }
            return .int(i)
        case let v as Double: return .double(v)
        case let v as Float: return .float(v)
        case let v as Date: return .date(v)
        case let v as Data: return .data(v)
        case let v as UUID: return .uuid(v)
        case let v as Decimal: return .decimal(v)
        case let v as URL: return .string(v.absoluteString)
        case let v as Value: return v
        default: return nil
        }
    }

    private static func tooLarge(_ v: Any) -> EncodingError {
        EncodingError.invalidValue(v, .init(codingPath: [], debugDescription: "\(v) does not fit a 64-bit signed integer"))
    }
}

/// One node of the value being encoded; containers fill it in.
final class EncodedNode {
    var scalar: Value?
    var keyed: [String: EncodedNode]?
    var unkeyed: [EncodedNode]?

    var value: Value {
        if let keyed { return .object(keyed.mapValues(\.value)) }
        if let unkeyed { return .list(unkeyed.map(\.value)) }
        return scalar ?? .null
    }

    func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws {
        if let p = try ValueEncoder.primitive(value) {
            scalar = p
        } else {
            try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
        }
    }

    func child(_ key: String) -> EncodedNode {
        if keyed == nil { keyed = [:] }
        if let c = keyed![key] { return c }
        let c = EncodedNode()
        keyed![key] = c
        return c
    }

    func append() -> EncodedNode {
        let c = EncodedNode()
        if unkeyed == nil { unkeyed = [] }
        unkeyed!.append(c)
        return c
    }
}

struct NodeEncoder: Encoder {
    let node: EncodedNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.keyed == nil { node.keyed = [:] }
        return KeyedEncodingContainer(KeyedNodeEncoder(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.unkeyed == nil { node.unkeyed = [] }
        return UnkeyedNodeEncoder(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleNodeEncoder(node: node, codingPath: codingPath) }
}

struct KeyedNodeEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodedNode
    let codingPath: [any CodingKey]

    func encodeNil(forKey key: Key) throws { node.child(key.stringValue).scalar = .null }
    func encode(_ value: some Encodable, forKey key: Key) throws { try put(value, key) }
    private func put(_ value: some Encodable, _ key: Key) throws {
        try node.child(key.stringValue).encode(value, codingPath: codingPath + [key])
    }
    func encode(_ value: Bool, forKey key: Key) throws { try put(value, key) }
    func encode(_ value: String, forKey key: Key) throws { try put(value, key) }
    func encode(_ value: Double, forKey key: Key) throws { try put(value, key) }
    func encode(_ value: Float, forKey key: Key) throws { try put(value, key) }
    func encode(_ value: Int, forKey key: Key) throws { try put(value, key) }
    func encode(_ value: Int8, forKey key: Key) throws { try put(value, key) }
    func encode(_ value: Int16, forKey key: Key) throws { try put(value, key) }
    func encode(_ value: Int32, forKey key: Key) throws { try put(value, key) }
    func encode(_ value: Int64, forKey key: Key) throws { try put(value, key) }
    func encode(_ value: UInt, forKey key: Key) throws { try put(value, key) }
    func encode(_ value: UInt8, forKey key: Key) throws { try put(value, key) }
    func encode(_ value: UInt16, forKey key: Key) throws { try put(value, key) }
    func encode(_ value: UInt32, forKey key: Key) throws { try put(value, key) }
    func encode(_ value: UInt64, forKey key: Key) throws { try put(value, key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }
    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }
    func superEncoder() -> any Encoder { NodeEncoder(node: node.child("super"), codingPath: codingPath) }
    func superEncoder(forKey key: Key) -> any Encoder { NodeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key]) }
}

struct UnkeyedNodeEncoder: UnkeyedEncodingContainer {
    let node: EncodedNode
    let codingPath: [any CodingKey]
    var count: Int { node.unkeyed?.count ?? 0 }

    func encodeNil() throws { node.append().scalar = .null }
    func encode(_ value: some Encodable) throws { try node.append().encode(value, codingPath: codingPath) }
    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.append(), codingPath: codingPath).container(keyedBy: keyType)
    }
    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.append(), codingPath: codingPath).unkeyedContainer()
    }
    func superEncoder() -> any Encoder { NodeEncoder(node: node.append(), codingPath: codingPath) }
}

struct SingleNodeEncoder: SingleValueEncodingContainer {
    let node: EncodedNode
    let codingPath: [any CodingKey]

    func encodeNil() throws { node.scalar = .null }
    func encode(_ value: some Encodable) throws { try node.encode(value, codingPath: codingPath) }
}
