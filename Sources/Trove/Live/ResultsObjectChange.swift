/// How one object of a ``ResultsController`` changed in a commit.
///
/// Old index paths refer to the sections before the batch, new ones to the sections after
/// it (as `UITableView.performBatchUpdates` expects).
public enum ResultsObjectChange<Element> {
    /// The object entered the results.
    case insert(Element, at: ResultsIndexPath)
    /// The object left the results; the element is its last value.
    case delete(Element, at: ResultsIndexPath)
    /// The object's own properties changed and it kept its place among the objects that
    /// stayed (its index may still shift as others come and go).
    case update(Element, from: ResultsIndexPath, to: ResultsIndexPath)
    /// The object changed place, within its section or to another one, because of its own
    /// properties, a linked object's, or other objects' sort order. Its properties may
    /// have changed too: the element is its new value.
    case move(Element, from: ResultsIndexPath, to: ResultsIndexPath)

    /// The element: the new value, or for a deletion the last one.
    public var element: Element {
        switch self {
        case .insert(let e, _), .delete(let e, _), .update(let e, _, _), .move(let e, _, _): e
        }
    }

    /// Where the object was, or nil for an insertion.
    public var oldIndexPath: ResultsIndexPath? {
        switch self {
        case .insert: nil
        case .delete(_, let p), .update(_, let p, _), .move(_, let p, _): p
        }
    }

    /// Where the object is, or nil for a deletion.
    public var newIndexPath: ResultsIndexPath? {
        switch self {
        case .delete: nil
        case .insert(_, let p), .update(_, _, let p), .move(_, _, let p): p
        }
    }
}

extension ResultsObjectChange: Sendable where Element: Sendable {}
extension ResultsObjectChange: Equatable where Element: Equatable {}
