/// A copy of a stored object's stored properties that belongs to no snapshot: safe to keep
/// and to hand to any thread. Links are ``Value/reference(_:)``s.
public struct DetachedObject: Sendable, Hashable, CustomStringConvertible {
    /// Which object this was copied from.
    public let reference: ObjectReference
    /// Every stored property by name (linkingObjects, being computed, are left out).
    public let values: [String: Value]

    public init(reference: ObjectReference, values: [String: Value]) {
        self.reference = reference
        self.values = values
    }

    /// Copies `object`'s stored properties.
    public init(_ object: DynamicObject) throws {
        var values: [String: Value] = [:]
        for p in object.model.properties where p.isStored { values[p.name] = try object.value(p.name) }
        self.init(reference: object.reference, values: values)
    }

    public var modelName: String { reference.model }

    /// The value of property `name`, or null if there is none.
    public subscript(name: String) -> Value { values[name] ?? .null }

    public var description: String {
        "\(reference) {" + values.map { "\($0.key): \($0.value)" }.sorted().joined(separator: ", ") + "}"
    }
}
