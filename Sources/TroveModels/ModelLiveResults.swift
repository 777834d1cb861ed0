#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Trove

extension FetchDescriptor {
    /// The request of live results and results controllers for this descriptor: its
    /// predicate, sort, offset and limit.
    public func resultsRequest() throws -> ResultsRequest {
        let (filter, arguments) = try self.filter()
        let sort = try sortBy.map { SortKey(try T.storedPath($0.keyPath, toBe: "sorted by").queryKeyPath.description, ascending: $0.order == .forward) }
        return ResultsRequest(T.modelName, where: filter?.description, arguments, sortedBy: sort,
                              offset: fetchOffset, limit: fetchLimit)
    }
}

extension LiveResults {
    /// Live results of a typed fetch, kept current by ``LiveResults/refresh()``.
    public convenience init<T: PersistentModel>(store: Store, _ descriptor: FetchDescriptor<T>) throws {
        try self.init(store: store, request: descriptor.resultsRequest())
    }

    /// Live results of the objects of `T` the condition built by `query` selects, sorted:
    ///
    /// ```swift
    /// let adults = try LiveResults(store: store, Person.self, where: { $0.age >= 18 }, sortBy: [.init(\.name)])
    /// ```
    public convenience init<T: PersistentModel, C: ModelConditionConvertible<T>>(
        store: Store, _ type: T.Type, where query: (ModelQuery<T, T>) -> C, sortBy: [ModelSortDescriptor<T>] = []
    ) throws {
        try self.init(store: store, FetchDescriptor(where: query, sortBy: sortBy))
    }

    /// The current results as values of `T`.
    public func values<T: PersistentModel>(as type: T.Type) throws -> ModelResults<T> {
        ModelResults(try results)
    }
}

extension ResultsController where Element: PersistentModel {
    /// A controller of the values of a typed fetch, in sections by the value of
    /// `sectionKeyPath`: a property of the model, or of a linked model through optional to-one
    /// links (`\.project?.title`, whose objects with a null link are in the section of null).
    ///
    /// ```swift
    /// let controller = try ResultsController(store: store, FetchDescriptor<Task>(predicate: #Predicate { !$0.done }),
    ///                                        sectionedBy: \.priority)
    /// ```
    ///
    /// A link or a list, a computed or `@Transient` property, or a key path through a link to
    /// a model whose table is listed by hand is a ``ModelQueryError``; the dotted path of
    /// ``init(store:_:sectionKeyPath:queue:)`` names the same sections as a string.
    public convenience init<S>(
        store: Store, _ descriptor: FetchDescriptor<Element>, sectionedBy sectionKeyPath: KeyPath<Element, S>,
        queue: DispatchQueue = .main
    ) throws {
        try self.init(store: store, request: descriptor.resultsRequest(), sectionKeyPath: Element.sectionPropertyName(sectionKeyPath),
                      queue: queue, mapper: { try Element.decoded(from: $0) })
    }

    /// A controller of the values of a typed fetch, in sections by the value at
    /// `sectionKeyPath`, a dotted path that may go through to-one links, as a query writes it:
    ///
    /// ```swift
    /// let controller = try ResultsController(store: store, FetchDescriptor<Task>(), sectionKeyPath: "project.name")
    /// ```
    public convenience init(
        store: Store, _ descriptor: FetchDescriptor<Element>, sectionKeyPath: String, queue: DispatchQueue = .main
    ) throws {
        try self.init(store: store, request: descriptor.resultsRequest(), sectionKeyPath: sectionKeyPath, queue: queue,
                      mapper: { try Element.decoded(from: $0) })
    }

    /// A controller of the values of a typed fetch, in one section.
    public convenience init(store: Store, _ descriptor: FetchDescriptor<Element>, queue: DispatchQueue = .main) throws {
        try self.init(store: store, request: descriptor.resultsRequest(), queue: queue,
                      mapper: { try Element.decoded(from: $0) })
    }

    /// A controller of the values of `Element` the condition built by `query` selects, sorted,
    /// in sections by the value of `sectionKeyPath`, as ``init(store:_:sectionedBy:queue:)``
    /// gives them:
    ///
    /// ```swift
    /// let controller = try ResultsController(store: store, Task.self, where: { $0.done == false },
    ///                                        sortBy: [.init(\.title)], sectionedBy: \.priority)
    /// ```
    public convenience init<S, C: ModelConditionConvertible<Element>>(
        store: Store, _ type: Element.Type, where query: (ModelQuery<Element, Element>) -> C,
        sortBy: [ModelSortDescriptor<Element>] = [], sectionedBy sectionKeyPath: KeyPath<Element, S>, queue: DispatchQueue = .main
    ) throws {
        try self.init(store: store, FetchDescriptor(where: query, sortBy: sortBy), sectionedBy: sectionKeyPath, queue: queue)
    }

    /// A controller of the values of `Element` the condition built by `query` selects, sorted,
    /// in one section.
    public convenience init<C: ModelConditionConvertible<Element>>(
        store: Store, _ type: Element.Type, where query: (ModelQuery<Element, Element>) -> C,
        sortBy: [ModelSortDescriptor<Element>] = [], queue: DispatchQueue = .main
    ) throws {
        try self.init(store: store, FetchDescriptor(where: query, sortBy: sortBy), queue: queue)
    }
}

extension PersistentModel {
    /// The dotted path a typed controller sections by: a value of the model, or of a linked
    /// model through to-one links.
    static func sectionPropertyName(_ keyPath: AnyKeyPath) throws -> String {
        let hint = "section by a property of \(modelName) or of a linked model (\\.link?.property), or by a dotted path: ResultsController(store:_:sectionKeyPath:) (\"link.property\")"
        let path = try storedPath(keyPath, toBe: "sectioned by", hint: hint)
        if path.linkedModel != nil {
            throw ModelQueryError("sections group by a value, and \(modelName).\(path.dotted) is a link or a list: \(hint)")
        }
        return path.dotted
    }
}

extension ObjectChange {
    /// The key paths of `T` whose properties the commit changed; empty for a deletion.
    public func keyPaths<T: PersistentModel>(of type: T.Type) -> [PartialKeyPath<T>] {
        guard case .changed(let changes) = self else { return [] }
        return changes.compactMap { change in T.modelProperties.first { $0.name == change.name }?.keyPath }
    }
}

extension ObjectObserver {
    /// Observes the stored value of `T` with this primary key; ``ObjectChange/keyPaths(of:)``
    /// tells which of its properties each commit changed.
    public convenience init<T: PersistentModel, K: StorableProperty>(
        store: Store, _ type: T.Type, primaryKey: K, queue: DispatchQueue = .main,
        handler: (@Sendable (ObjectChange) -> Void)? = nil
    ) throws {
        try self.init(store: store, model: T.modelName, primaryKey: primaryKey.storedValue(), queue: queue, handler: handler)
    }
}
