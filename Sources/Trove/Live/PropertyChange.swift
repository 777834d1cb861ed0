/// A property whose value a commit changed.
public struct PropertyChange: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var oldValue: Value
    public var newValue: Value

    public init(name: String, oldValue: Value, newValue: Value) {
        self.name = name
        self.oldValue = oldValue
        self.newValue = newValue
    }

    public var description: String { "\(name): \(oldValue) -> \(newValue)" }
}
