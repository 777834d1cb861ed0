#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TroveStorage
import Dispatch

/// Reports what each commit does to one object: which properties changed, with old and new
/// values, or that it was deleted.
///
/// ```swift
/// let observer = try ObjectObserver(store: store, model: "Person", primaryKey: 1, queue: .main) { change in
///     if case .changed(let properties) = change { for p in properties { print(p.name, p.oldValue, "->", p.newValue) } }
/// }
/// // or: for await change in observer.changes { ... }
/// ```
///
/// Commits by any `Store` or process count; several commits that arrive while one is being
/// read are reported as one change. Linked objects are not followed: a link property changes
/// when it points elsewhere, not when the object it points to changes. The observer stops
/// after a deletion, on ``cancel()`` or when released.
public final class ObjectObserver: @unchecked Sendable {
    public let store: Store
    /// The observed object.
    public let reference: ObjectReference
    /// Where the handler is called and changes are delivered.
    public let queue: DispatchQueue

    private let handler: (@Sendable (ObjectChange) -> Void)?
    private let work = DispatchQueue(label: "trove.object-observer")
    private let broadcast = ChangeBroadcast<ObjectChange>()
    // Owned by `work`.
    private var feed: CommitObservation?
    private var version: UInt64
    private var values: [(name: String, value: Value)]

    /// Starts observing the object of `model` with this primary key; throws
    /// ``StoreError/objectNotFound(model:primaryKey:)`` if there is none.
    public init(store: Store, model: String, primaryKey: Value, queue: DispatchQueue = .main,
                handler: (@Sendable (ObjectChange) -> Void)? = nil) throws {
        self.store = store
        self.queue = queue
        self.handler = handler
        // Follow commits before reading, so that none falls between the read and the feed.
        let pending = PendingFeed()
        let feed = store.observeCommits { commit in pending.forward(commit) }
        let (reference, version, values) = try store.read { s in
            guard let object = try s.object(model, primaryKey: primaryKey) else {
                throw StoreError.objectNotFound(model: model, primaryKey: primaryKey.description)
            }
            return (object.reference, s.version, try Self.storedValues(of: object))
        }
        self.reference = reference
        self.version = version
        self.values = values
        self.feed = feed
        pending.attach { [weak self] commit in
            guard let self else { return }
            self.work.async { self.refresh(after: commit) }
        }
    }

    // The feed goes with the observer; only the streams need telling.
    deinit { broadcast.finish() }

    /// The changes from now on, in order. Each access makes a new sequence; all end when the
    /// object is deleted or the observer cancelled.
    public var changes: AsyncStream<ObjectChange> { broadcast.makeStream() }

    /// Stops observing. Idempotent.
    public func cancel() {
        work.async { self.feed?.cancel(); self.feed = nil }
        broadcast.finish()
    }

    private static func storedValues(of object: DynamicObject) throws -> [(name: String, value: Value)] {
        try object.model.properties.filter(\.isStored).map { ($0.name, try object.value($0.name)) }
    }

    private func refresh(after commit: StoreCommit) {
        guard feed != nil, commit.version > version else { return }
        if let changes = commit.changes {
            guard let model = changes[reference.model],
                  model.deleted.contains(reference.key) || model.modified[reference.key] != nil else { return }
        }
        let result = Result { () throws -> (UInt64, [(name: String, value: Value)]?) in
            try store.read { s in (s.version, try s.object(reference).map(Self.storedValues)) }
        }
        guard case .success(let (newVersion, newValues)) = result, newVersion > version else { return }
        version = newVersion
        let change: ObjectChange
        if let newValues {
            var changed: [PropertyChange] = []
            let old = Dictionary(values.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
            // As an update decides what it writes: a NaN is not a change, a string's other
            // normalization is.
            for (name, value) in newValues where !(old[name].map { $0.isStoredSame(as: value) } ?? false) {
                changed.append(PropertyChange(name: name, oldValue: old[name] ?? .null, newValue: value))
            }
            values = newValues
            guard !changed.isEmpty else { return }
            change = .changed(changed)
        } else {
            change = .deleted
            feed?.cancel()
            feed = nil
        }
        queue.async {
            self.handler?(change)
            self.broadcast.yield(change)
            if change == .deleted { self.broadcast.finish() }
        }
    }
}

/// Holds commits that arrive before their consumer is ready, then forwards them:
/// lets an initializer subscribe before it reads, without escaping a half-made `self`.
final class PendingFeed: @unchecked Sendable {
    private let lock = Lock()
    private var held: [StoreCommit] = []
    private var target: (@Sendable (StoreCommit) -> Void)?

    func forward(_ commit: StoreCommit) {
        lock.lock()
        guard let target else { held.append(commit); lock.unlock(); return }
        lock.unlock()
        target(commit)
    }

    func attach(_ target: @escaping @Sendable (StoreCommit) -> Void) {
        lock.lock()
        self.target = target
        let backlog = held
        held = []
        lock.unlock()
        for n in backlog { target(n) }
    }
}
