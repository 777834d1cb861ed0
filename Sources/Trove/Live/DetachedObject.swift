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

    /// Whether the two copy the same object with the same stored values, compared as an
    /// update compares what it writes: a NaN equals itself (so that a copy equals itself),
    /// and a string's other normalization is another value.
    public static func == (a: DetachedObject, b: DetachedObject) -> Bool {
        a.reference == b.reference && a.values.count == b.values.count
            && a.values.allSatisfy { name, value in b.values[name].map { value.isStoredSame(as: $0) } ?? false }
    }

    // Values the same by `==` above hash alike: Swift hashes a Double by its bits (with
    // -0 as 0), and a String by its characters, which its bytes fix.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(reference)
        hasher.combine(values)
    }

    public var description: String {
        "\(reference) {" + values.map { "\($0.key): \($0.value)" }.sorted().joined(separator: ", ") + "}"
    }
}
