#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TroveStorage
import Dispatch

/// Keeps a request's results current, grouped in sections, and reports each change as
/// index-path operations: an `NSFetchedResultsController` for Trove.
///
/// ```swift
/// let controller = ResultsController(
///     store: store,
///     request: ResultsRequest("Task", where: "done == false", sortedBy: ["name"]),
///     sectionKeyPath: "project.name",
///     queue: .main,
///     mapper: { try TaskRow($0) })
/// controller.delegate = self
/// try controller.performFetch()
/// // or: for await batch in controller.changes { apply(batch) }
/// ```
///
/// After every commit the controller re-evaluates the request against the newest snapshot on
/// a private queue and diffs the result with what it had, so a change anywhere that affects
/// the results is noticed: an object's own properties, a linked object's property used by the
/// predicate, the sort or the section key path, an object of another model deleted. The
/// changes are exact (see ``ResultsChangeBatch``) and delivered on `queue`, which must be
/// serial: to the ``delegate`` and as a batch to every ``changes`` sequence. Commits that
/// arrive while a refresh runs are folded into the next batch.
///
/// Objects never cross threads: the `filter` and the `mapper` run on the private queue with
/// objects of its snapshot, and the controller hands out what the mapper made.
public final class ResultsController<Element: Sendable>: @unchecked Sendable {
    /// Decides, beyond the request's predicate, which objects are shown; it may read links,
    /// lists and anything else a predicate cannot express.
    public typealias Filter = @Sendable (DynamicObject) throws -> Bool
    /// Turns an object into what the controller hands out.
    public typealias Mapper = @Sendable (DynamicObject) throws -> Element

    public let store: Store
    public let request: ResultsRequest
    /// A dotted key path, possibly through to-one links (`"project.name"`), whose value groups
    /// the objects into sections; the controller sorts by it before the request's keys.
    public let sectionKeyPath: String?
    /// Where the delegate is called and batches are delivered.
    public let queue: DispatchQueue

    private let mapper: Mapper
    private let sectionComponents: [String]?
    /// Models whose changes can affect the results; commits touching none are skipped.
    private let dependencies: Set<String>
    private let work: DispatchQueue

    // Owned by `work`.
    private var filter: Filter?
    private var current: Evaluation?
    private var feed: CommitObservation?
    private var sequence = 0

    // Guarded by `lock`.
    private let lock = Lock()
    private var published: (sequence: Int, sections: [ResultsSection<Element>]) = (0, [])
    private weak var delegateStorage: (any ResultsControllerDelegate<Element>)?
    private let broadcast = ChangeBroadcast<ResultsChangeBatch<Element>>()

    private struct Evaluation {
        var version: UInt64
        var rows: [SectionRows]
        var sections: [ResultsSection<Element>]
        var elements: [UInt64: Element]
        var records: [UInt64: [UInt8]]
    }

    /// A controller for `request`; nothing is fetched until ``performFetch()``.
    public init(store: Store, request: ResultsRequest, sectionKeyPath: String? = nil, queue: DispatchQueue = .main,
                filter: Filter? = nil, mapper: @escaping Mapper) {
        self.store = store
        self.request = request
        self.sectionKeyPath = sectionKeyPath
        self.queue = queue
        self.filter = filter
        self.mapper = mapper
        sectionComponents = sectionKeyPath.map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
        dependencies = store.schema.modelsReachable(from: request.model)
        work = DispatchQueue(label: "trove.results-controller", qos: .userInitiated)
    }

    deinit {
        feed?.cancel()
        broadcast.finish()
    }

    /// Receives the changes on ``queue``; held weakly.
    public var delegate: (any ResultsControllerDelegate<Element>)? {
        get { lock.lock(); defer { lock.unlock() }; return delegateStorage }
        set { lock.lock(); delegateStorage = newValue; lock.unlock() }
    }

    /// The change batches from now on, one per refresh, in order. Each access makes a new
    /// sequence; it ends when the controller is released.
    public var changes: AsyncStream<ResultsChangeBatch<Element>> { broadcast.makeStream() }

    /// Evaluates the request now, on the calling thread's behalf, and starts following
    /// commits. Calling it again re-evaluates and reports the difference as a batch.
    public func performFetch() throws {
        try work.sync {
            if feed == nil {
                feed = store.observeCommits { [weak self] commit in
                    guard let self else { return }
                    self.work.async { self.refresh(after: commit) }
                }
            }
            let snapshot = try store.beginRead()
            defer { snapshot.end() }
            let new = try evaluate(snapshot)
            let old = current
            current = new
            sequence += 1
            publish(new.sections, sequence: sequence)
            if let old, let batch = makeBatch(from: old, to: new) { deliver(batch, sequence: sequence) }
        }
    }

    /// Replaces the filter; the difference it makes is delivered as a batch like a commit's.
    public func updateFilter(_ filter: Filter?) {
        work.async {
            self.filter = filter
            self.refresh(after: nil)
        }
    }

    // MARK: Contents

    /// The sections as of the last batch delivered on ``queue`` (or the last fetch).
    public var sections: [ResultsSection<Element>] {
        lock.lock(); defer { lock.unlock() }
        return published.sections
    }

    public var numberOfSections: Int { sections.count }

    public func numberOfObjects(inSection section: Int) -> Int { sections[section].count }

    public func object(at indexPath: ResultsIndexPath) -> Element { sections[indexPath.section].elements[indexPath.item] }

    // MARK: Refreshing

    /// Re-evaluates after `commit` (nil: unconditionally) and delivers the difference.
    private func refresh(after commit: StoreCommit?) {
        guard let old = current else { return }
        if let commit, commit.version <= old.version || !commit.mayTouch(dependencies) { return }
        do {
            let snapshot = try store.beginRead()
            defer { snapshot.end() }
            // An earlier refresh already read this commit.
            if commit != nil && snapshot.version <= old.version { return }
            let new = try evaluate(snapshot)
            current = new
            guard let batch = makeBatch(from: old, to: new) else { return }
            sequence += 1
            deliver(batch, sequence: sequence)
        } catch {
            queue.async { self.delegate?.controller(self, didFail: error) }
        }
    }

    private func evaluate(_ snapshot: Snapshot) throws -> Evaluation {
        let results = try request.sortedResults(in: snapshot, sectionedBy: sectionKeyPath)
        // Without a section key path there is always exactly one section, even when empty.
        var rows: [SectionRows] = sectionComponents == nil ? [SectionRows(key: .null, ids: [])] : []
        var sectionIndex: [GroupingKey: Int] = sectionComponents == nil ? [GroupingKey([.null]): 0] : [:]
        var elements: [UInt64: Element] = [:]
        var records: [UInt64: [UInt8]] = [:]
        // The request's page is of what the filter shows, in the sections' order.
        var skip = request.offset, room = request.limit ?? Int.max
        for object in results {
            if room <= 0 { break }
            if let filter, try !filter(object) { continue }
            if skip > 0 { skip -= 1; continue }
            room -= 1
            let key = try sectionComponents.map { try object.value(atKeyPath: $0) } ?? .null
            let s: Int
            // Keys make one section as they make one group (every NaN one key).
            if let last = rows.indices.last, GroupingKey.same(rows[last].key, key) {
                s = last
            } else if let i = sectionIndex[GroupingKey([key])] {
                // Equal keys the sort did not keep together: one section per key all the same.
                s = i
            } else {
                s = rows.count
                rows.append(SectionRows(key: key, ids: []))
                sectionIndex[GroupingKey([key])] = s
            }
            rows[s].ids.append(object.key)
            elements[object.key] = try mapper(object)
            records[object.key] = try object.storedRecord
        }
        let sections = rows.map { ResultsSection(key: $0.key, elements: $0.ids.map { elements[$0]! }) }
        return Evaluation(version: snapshot.version, rows: rows, sections: sections, elements: elements, records: records)
    }

    private func makeBatch(from old: Evaluation, to new: Evaluation) -> ResultsChangeBatch<Element>? {
        let diff = SectionedDiff(old: old.rows, new: new.rows) { id in
            // Own properties changed, or (for Equatable elements) what the mapper made of
            // linked objects did.
            old.records[id] != new.records[id] || !Self.same(old.elements[id]!, new.elements[id]!)
        }
        guard !diff.isEmpty else { return nil }
        let objectChanges: [ResultsObjectChange<Element>] = diff.objects.map { change in
            switch change {
            case let .insert(id, p): .insert(new.elements[id]!, at: p)
            case let .delete(id, p): .delete(old.elements[id]!, at: p)
            case let .update(id, from, to): .update(new.elements[id]!, from: from, to: to)
            case let .move(id, from, to): .move(new.elements[id]!, from: from, to: to)
            }
        }
        let sectionChanges: [ResultsSectionChange<Element>] =
            diff.deletedSections.map { .delete(old.sections[$0], at: $0) } + diff.insertedSections.map { .insert(new.sections[$0], at: $0) }
        return ResultsChangeBatch(version: new.version, objectChanges: objectChanges, sectionChanges: sectionChanges, sections: new.sections)
    }

    private static func same(_ a: Element, _ b: Element) -> Bool {
        guard let a = a as? any Equatable else { return true }
        return a.isEqual(to: b)
    }

    // MARK: Delivery

    private func publish(_ sections: [ResultsSection<Element>], sequence: Int) {
        lock.lock()
        // Never go back: a batch still queued when performFetch published a newer state.
        if sequence >= published.sequence { published = (sequence, sections) }
        lock.unlock()
    }

    private func deliver(_ batch: ResultsChangeBatch<Element>, sequence: Int) {
        queue.async {
            self.publish(batch.sections, sequence: sequence)
            if let delegate = self.delegate {
                delegate.controllerWillChange(self)
                for change in batch.objectChanges { delegate.controller(self, didChange: change) }
                for change in batch.sectionChanges { delegate.controller(self, didChangeSection: change) }
                delegate.controllerDidChange(self)
            }
            self.broadcast.yield(batch)
        }
    }
}

extension ResultsController where Element == DetachedObject {
    /// A controller handing out detached copies of the objects.
    public convenience init(store: Store, request: ResultsRequest, sectionKeyPath: String? = nil,
                            queue: DispatchQueue = .main, filter: Filter? = nil) {
        self.init(store: store, request: request, sectionKeyPath: sectionKeyPath, queue: queue, filter: filter,
                  mapper: { try DetachedObject($0) })
    }
}

extension Equatable {
    fileprivate func isEqual(to other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
