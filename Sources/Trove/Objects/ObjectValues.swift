#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading a stored object's properties by name, typed by the schema: what ``DynamicObject``
/// and ``ObjectView`` share.
///
/// The typed accessors return nil for a null value and throw ``StoreError/wrongAccessor(property:holds:accessor:)``
/// when the property holds another type, naming the accessor that reads it; unknown
/// properties throw too.
public protocol ObjectValues {
    /// The value of a stored property: scalars, `.reference` for links, `.list` for lists.
    /// For a linkingObjects property, a list of references.
    func value(_ name: String) throws -> Value
}

extension ObjectValues {
    public subscript(name: String) -> Value {
        get throws { try value(name) }
    }

    private func typed<T>(_ name: String, _ extract: (Value) -> T?) throws -> T? {
        let v = try value(name)
        if case .null = v { return nil }
        guard let t = extract(v) else {
            throw StoreError.wrongAccessor(property: qualified(name), holds: v.kindDescription, accessor: accessor(reading: v))
        }
        return t
    }

    /// `Model.name` when the object knows its model.
    private func qualified(_ name: String) -> String {
        let model = (self as? DynamicObject)?.modelName ?? (self as? ObjectView)?.modelName
        return model.map { "\($0).\(name)" } ?? name
    }

    /// The accessor that reads `value`.
    private func accessor(reading value: Value) -> String {
        switch value {
        case .bool: "bool(_:)"
        case .int: "int(_:)"
        case .float, .double: "double(_:)"
        case .string: "string(_:)"
        case .date: "date(_:)"
        case .data: "data(_:)"
        case .decimal: "decimal(_:)"
        case .uuid: "uuid(_:)"
        case .reference where self is DynamicObject: "object(_:)"
        case .list(let items) where self is DynamicObject && items.contains(where: { if case .reference = $0 { true } else { false } }): "list(_:)"
        case .null, .list, .reference, .object: "value(_:)"
        }
    }

    public func string(_ name: String) throws -> String? { try typed(name) { if case .string(let s) = $0 { s } else { nil } } }
    public func int(_ name: String) throws -> Int64? { try typed(name) { if case .int(let i) = $0 { i } else { nil } } }
    public func double(_ name: String) throws -> Double? {
        try typed(name) { if case .double(let d) = $0 { d } else if case .float(let f) = $0 { Double(f) } else { nil } }
    }
    public func bool(_ name: String) throws -> Bool? { try typed(name) { if case .bool(let b) = $0 { b } else { nil } } }
    public func date(_ name: String) throws -> Date? { try typed(name) { if case .date(let d) = $0 { d } else { nil } } }
    public func data(_ name: String) throws -> Data? { try typed(name) { if case .data(let d) = $0 { d } else { nil } } }
    public func uuid(_ name: String) throws -> UUID? { try typed(name) { if case .uuid(let u) = $0 { u } else { nil } } }
    public func decimal(_ name: String) throws -> Decimal? { try typed(name) { if case .decimal(let d) = $0 { d } else { nil } } }
}
