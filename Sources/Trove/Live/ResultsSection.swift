/// One section of a ``ResultsController``: the objects sharing one value of the section key
/// path, in the request's order.
public struct ResultsSection<Element> {
    /// The section key path's value for every object of the section (`.null` when the
    /// controller has no section key path, or for objects whose link on the path is null).
    public var key: Value
    public var elements: [Element]

    public init(key: Value, elements: [Element]) {
        self.key = key
        self.elements = elements
    }

    public var count: Int { elements.count }
}

extension ResultsSection: Sendable where Element: Sendable {}
extension ResultsSection: Equatable where Element: Equatable {}
extension ResultsSection: Hashable where Element: Hashable {}
