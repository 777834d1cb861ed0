import Trove

/// A typed query Trove cannot run: a construct of the `#Predicate` it has no translation for,
/// a key path that is not a stored property, or a model value where a constant is needed.
public struct ModelQueryError: DescribedError, Sendable {
    /// What is refused and why, naming the construct or key path.
    public let description: String

    /// An error with this description.
    public init(_ description: String) { self.description = description }
}
