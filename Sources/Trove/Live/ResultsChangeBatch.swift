/// Everything one refresh of a ``ResultsController`` changed: a commit, or several that
/// arrived before the controller got to them, or a new filter.
///
/// The changes are exact: take the sections before the batch; remove the deleted and moved
/// objects (at their old index paths, highest first) and the deleted sections (highest
/// first); insert the new sections (lowest first), then the inserted and moved objects (at
/// their new index paths, lowest first); replace the updated objects at their new index
/// paths. The result is ``sections``.
public struct ResultsChangeBatch<Element> {
    /// The store version the new sections reflect.
    public var version: UInt64
    /// Deletions first (in old order), then insertions, moves and updates (in new order).
    public var objectChanges: [ResultsObjectChange<Element>]
    /// Deletions (in old order), then insertions (in new order).
    public var sectionChanges: [ResultsSectionChange<Element>]
    /// The sections after the batch.
    public var sections: [ResultsSection<Element>]
}

extension ResultsChangeBatch: Sendable where Element: Sendable {}
