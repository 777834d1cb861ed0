import Synchronization
import Trove

/// Translations of ``ModelCondition``s by their node (key paths, operators, which operands
/// are parameters) and model: a repeated typed query finds its query text here, with no
/// translation and no text printed, and the text finds its parsed predicate and plan template
/// in the store's statement cache, as a string query does. A condition with an
/// `.unsupported` node is never cached, so that its error is reported each time.
///
/// A query run in a loop is most often one comparison, built by the same code each time: the
/// entries of such nodes are published in a few atomic slots by their
/// ``ModelConditionSignature``, and a condition with the signature of a slot's entry takes it
/// with no lock, no copy of its node and no hash. Anything else goes through the dictionary
/// under the lock.
@usableFromInline
enum ModelConditionCache {
    /// One translation: what it translates, the condition as the query AST, and its text.
    @usableFromInline
    final class Entry: Sendable {
        @usableFromInline let model: ObjectIdentifier
        /// Holds the node's key paths, so that no other key path takes their addresses while
        /// the entry lives.
        let node: ModelConditionNode
        @usableFromInline let signature: ModelConditionSignature
        let condition: QueryPredicate
        @usableFromInline let text: String

        init(model: ObjectIdentifier, node: ModelConditionNode, signature: ModelConditionSignature, condition: QueryPredicate) {
            self.model = model
            self.node = node
            self.signature = signature
            self.condition = condition
            text = condition.description
        }
    }

    struct Key: Hashable, @unchecked Sendable {
        let model: ObjectIdentifier
        let node: ModelConditionNode
    }

    struct State {
        var entries: [Key: Entry] = [:]
        /// The entries ever put in a slot, by identity, kept for good: a reader of a slot uses
        /// its entry without retaining it, so a published entry is never released.
        var published: [ObjectIdentifier: Entry] = [:]

        /// Whether `entry` is to be in its signature's slot: it has a signature and is kept
        /// for good, unless ``capacity`` entries already are.
        mutating func keep(_ entry: Entry) -> Bool {
            guard entry.signature != .none else { return false }
            let id = ObjectIdentifier(entry)
            if published[id] != nil { return true }
            guard published.count < capacity else { return false }
            published[id] = entry
            return true
        }
    }

    /// Enough for every condition a program writes; beyond it the cache starts again, and
    /// the slots keep what they hold.
    static let capacity = 4096

    private static let state = Mutex(State())

    /// The addresses of published entries (0 for none); a signature's slot is chosen by bits
    /// of its key path's address.
    @usableFromInline static let slot0 = Atomic<UInt>(0)
    @usableFromInline static let slot1 = Atomic<UInt>(0)
    @usableFromInline static let slot2 = Atomic<UInt>(0)
    @usableFromInline static let slot3 = Atomic<UInt>(0)

    @inlinable
    static func slot<R>(_ signature: ModelConditionSignature, _ body: (borrowing Atomic<UInt>) -> R) -> R {
        switch (signature.keyPath >> 4) & 3 {
        case 0: body(slot0)
        case 1: body(slot1)
        case 2: body(slot2)
        default: body(slot3)
        }
    }

    /// The translation of `node` over `root`, cached by the node's shape.
    static func translation(of node: ModelConditionNode, root: any PersistentModel.Type) throws -> Entry {
        let model = ObjectIdentifier(root)
        let key = Key(model: model, node: node)
        let hit = state.withLock { state -> (entry: Entry, kept: Bool)? in
            guard let entry = state.entries[key] else { return nil }
            return (entry, state.keep(entry))
        }
        if let hit {
            if hit.kept { publish(hit.entry) }
            return hit.entry
        }
        let entry = Entry(model: model, node: node, signature: ModelConditionSignature(of: node),
                          condition: try ModelConditionTranslator.predicate(of: node, root: root))
        let kept = state.withLock { state in
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[key] = entry
            return state.keep(entry)
        }
        if kept { publish(entry) }
        return entry
    }

    /// The predicate text of `node` over `root`: what a typed query runs as a string query,
    /// whose own cache holds its parse and plan template. Inlinable, so that a condition with
    /// the signature of a slot's entry reads its text in the caller, with no call and no
    /// retain of the entry.
    @inlinable
    static func text(of node: ModelConditionNode, signature: ModelConditionSignature, root: any PersistentModel.Type) throws -> String {
        if signature != .none {
            let bits = slot(signature) { $0.load(ordering: .acquiring) }
            if let pointer = UnsafeRawPointer(bitPattern: bits) {
                let text = Unmanaged<Entry>.fromOpaque(pointer)._withUnsafeGuaranteedRef { entry in
                    entry.signature == signature && entry.model == ObjectIdentifier(root) ? entry.text : nil
                }
                if let text { return text }
            }
        }
        return try translatedText(of: node, root: root)
    }

    /// The text of ``translation(of:root:)``, for a condition no slot holds.
    @usableFromInline
    static func translatedText(of node: ModelConditionNode, root: any PersistentModel.Type) throws -> String {
        try translation(of: node, root: root).text
    }

    /// Puts `entry`, which ``State/keep(_:)`` keeps for good, in its signature's slot.
    private static func publish(_ entry: Entry) {
        let bits = UInt(bitPattern: Unmanaged.passUnretained(entry).toOpaque())
        slot(entry.signature) { $0.store(bits, ordering: .releasing) }
    }
}

extension ModelConditionSignature {
    /// The signature of `node`, as the comparison that built it gives it.
    init(of node: ModelConditionNode) {
        switch node {
        case .comparison(let path, let op, let options, .argument): self.init(path, op, options: options, isNull: false)
        case .comparison(let path, let op, let options, .null): self.init(path, op, options: options, isNull: true)
        default: self = .none
        }
    }
}
