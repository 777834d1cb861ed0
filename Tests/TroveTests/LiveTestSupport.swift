import Foundation
import Testing
@testable import Trove

/// Items in sections by owner: enough links to move objects between sections from afar.
let itemsSchemaJSON = """
{"schemaVersion": 0, "models": [
  {"name": "Item", "primaryKey": "id", "properties": {
    "id": "int", "rank": "int", "label": "string", "owner": "Owner?", "tags": "string[]"}},
  {"name": "Owner", "primaryKey": "id", "properties": {
    "id": "int", "name": "string",
    "items": {"type": "linkingObjects", "objectType": "Item", "property": "owner"}}}
]}
"""

func itemsStore() throws -> Store {
    try Store(configuration: .inMemory(schema: try schemaFromJSON(itemsSchemaJSON)))
}

/// Takes values from an async sequence one at a time, giving up after a generous deadline
/// (a failing test then reports instead of hanging).
final class Inbox<T: Sendable>: @unchecked Sendable {
    private var iterator: AsyncStream<T>.Iterator

    init(_ stream: AsyncStream<T>) { iterator = stream.makeAsyncIterator() }

    func next(within seconds: Int = 60) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await self.iterator.next() }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
    }
}

/// A delegate that rebuilds each batch from the delegate calls, recording their order and
/// whether they came on the expected queue.
final class RecordingDelegate<E: Sendable>: ResultsControllerDelegate, @unchecked Sendable {
    typealias Element = E
    struct Batch: Sendable {
        var objectChanges: [ResultsObjectChange<E>] = []
        var sectionChanges: [ResultsSectionChange<E>] = []
        var sectionsAtEnd: [ResultsSection<E>] = []
    }

    private let lock = NSLock()
    private var building = Batch()
    private(set) var events: [String] = []
    private(set) var callsOffQueue = 0
    private let queueKey: DispatchSpecificKey<String>?
    private let continuation: AsyncStream<Batch>.Continuation
    let batches: Inbox<Batch>

    init(queueKey: DispatchSpecificKey<String>? = nil) {
        self.queueKey = queueKey
        let (stream, continuation) = AsyncStream<Batch>.makeStream()
        self.continuation = continuation
        batches = Inbox(stream)
    }

    private func record(_ event: String) {
        if let queueKey, DispatchQueue.getSpecific(key: queueKey) == nil { callsOffQueue += 1 }
        events.append(event)
    }

    func controllerWillChange(_ controller: ResultsController<E>) {
        lock.withLock { record("will"); building = Batch() }
    }
    func controller(_ controller: ResultsController<E>, didChange change: ResultsObjectChange<E>) {
        lock.withLock { record("object"); building.objectChanges.append(change) }
    }
    func controller(_ controller: ResultsController<E>, didChangeSection change: ResultsSectionChange<E>) {
        lock.withLock { record("section"); building.sectionChanges.append(change) }
    }
    func controllerDidChange(_ controller: ResultsController<E>) {
        let batch = lock.withLock {
            record("did")
            building.sectionsAtEnd = controller.sections
            return building
        }
        continuation.yield(batch)
    }

    var recordedEvents: [String] { lock.withLock { events } }
    var offQueueCalls: Int { lock.withLock { callsOffQueue } }
}

/// Applies reported changes to the old sections as documented on `ResultsChangeBatch`:
/// removals at old index paths from the end, section deletions from the end, section
/// insertions, insertions at new index paths from the start, then updates.
func apply<E>(_ objectChanges: [ResultsObjectChange<E>], _ sectionChanges: [ResultsSectionChange<E>],
              to old: [ResultsSection<E>]) -> [ResultsSection<E>] {
    var sections = old
    let removals = objectChanges.compactMap { c -> ResultsIndexPath? in
        switch c { case .delete(_, let p), .move(_, let p, _): p; default: nil }
    }
    for p in removals.sorted(by: >) { sections[p.section].elements.remove(at: p.item) }
    let deletedSections = sectionChanges.compactMap { c -> Int? in if case .delete(_, let i) = c { i } else { nil } }
    for i in deletedSections.sorted(by: >) {
        #expect(sections[i].elements.isEmpty, "a deleted section still holds objects")
        sections.remove(at: i)
    }
    let insertedSections = sectionChanges.compactMap { c -> (Int, Value)? in if case .insert(let s, let i) = c { (i, s.key) } else { nil } }
    for (i, key) in insertedSections.sorted(by: { $0.0 < $1.0 }) { sections.insert(ResultsSection(key: key, elements: []), at: i) }
    let insertions = objectChanges.compactMap { c -> (ResultsIndexPath, E)? in
        switch c { case .insert(let e, let p), .move(let e, _, let p): (p, e); default: nil }
    }
    for (p, e) in insertions.sorted(by: { $0.0 < $1.0 }) { sections[p.section].elements.insert(e, at: p.item) }
    for case .update(let e, _, let p) in objectChanges { sections[p.section].elements[p.item] = e }
    return sections
}

/// A synchronous write, also from async tests (where `store.write` picks the async overload).
@discardableResult
func commit<R>(_ store: Store, _ body: (Transaction) throws -> R) throws -> R {
    try store.write(body)
}
