/// A section that appeared or disappeared in a commit. A section's objects are reported
/// as object changes as well.
public enum ResultsSectionChange<Element> {
    /// A section appeared at this index of the new sections.
    case insert(ResultsSection<Element>, at: Int)
    /// A section disappeared from this index of the old sections.
    case delete(ResultsSection<Element>, at: Int)

    public var section: ResultsSection<Element> {
        switch self {
        case .insert(let s, _), .delete(let s, _): s
        }
    }
}

extension ResultsSectionChange: Sendable where Element: Sendable {}
extension ResultsSectionChange: Equatable where Element: Equatable {}
