/// A typed query Trove cannot run: a construct of the `#Predicate` it has no translation for,
/// a key path that is not a stored property, or a model value where a constant is needed.
public struct ModelQueryError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) { self.description = description }
}
