#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading a stored object's properties by name, typed by the schema: what ``DynamicObject``
/// and ``ObjectView`` share.
///
/// The typed accessors return nil for a null value and throw ``StoreError/typeMismatch`` when
/// the property holds another type; unknown properties throw too.
public protocol ObjectValues {
    /// The value of a stored property: scalars, `.reference` for links, `.list` for lists.
    /// For a linkingObjects property, a list of references.
    func value(_ name: String) throws -> Value
}

extension ObjectValues {
    public subscript(name: String) -> Value {
        get throws { try value(name) }
    }

    private func typed<T>(_ name: String, _ expected: String, _ extract: (Value) -> T?) throws -> T? {
        let v = try value(name)
        if case .null = v { return nil }
        guard let t = extract(v) else {
            throw StoreError.typeMismatch(property: name, expected: expected, found: v.kindDescription)
        }
        return t
    }

    public func string(_ name: String) throws -> String? { try typed(name, "a string") { if case .string(let s) = $0 { s } else { nil } } }
    public func int(_ name: String) throws -> Int64? { try typed(name, "an integer") { if case .int(let i) = $0 { i } else { nil } } }
    public func double(_ name: String) throws -> Double? {
        try typed(name, "a double") { if case .double(let d) = $0 { d } else if case .float(let f) = $0 { Double(f) } else { nil } }
    }
    public func bool(_ name: String) throws -> Bool? { try typed(name, "a bool") { if case .bool(let b) = $0 { b } else { nil } } }
    public func date(_ name: String) throws -> Date? { try typed(name, "a date") { if case .date(let d) = $0 { d } else { nil } } }
    public func data(_ name: String) throws -> Data? { try typed(name, "data") { if case .data(let d) = $0 { d } else { nil } } }
    public func uuid(_ name: String) throws -> UUID? { try typed(name, "a UUID") { if case .uuid(let u) = $0 { u } else { nil } } }
    public func decimal(_ name: String) throws -> Decimal? { try typed(name, "a decimal") { if case .decimal(let d) = $0 { d } else { nil } } }
}
