/// Receives a ``ResultsController``'s changes on its queue, per batch in this order:
/// `controllerWillChange`, each object change, each section change, `controllerDidChange`.
/// Every method has an empty default.
public protocol ResultsControllerDelegate<Element>: AnyObject {
    associatedtype Element: Sendable

    /// A batch begins; ``ResultsController/sections`` already holds the new sections.
    func controllerWillChange(_ controller: ResultsController<Element>)
    func controller(_ controller: ResultsController<Element>, didChange change: ResultsObjectChange<Element>)
    func controller(_ controller: ResultsController<Element>, didChangeSection change: ResultsSectionChange<Element>)
    func controllerDidChange(_ controller: ResultsController<Element>)
    /// A refresh failed (a storage error, or the mapper or filter threw); the sections stay
    /// as they were and the next commit tries again.
    func controller(_ controller: ResultsController<Element>, didFail error: any Error)
}

extension ResultsControllerDelegate {
    public func controllerWillChange(_ controller: ResultsController<Element>) {}
    public func controller(_ controller: ResultsController<Element>, didChange change: ResultsObjectChange<Element>) {}
    public func controller(_ controller: ResultsController<Element>, didChangeSection change: ResultsSectionChange<Element>) {}
    public func controllerDidChange(_ controller: ResultsController<Element>) {}
    public func controller(_ controller: ResultsController<Element>, didFail error: any Error) {}
}
