import Synchronization
import Trove

/// Translations of ``ModelCondition``s by their node (key paths, operators, which operands
/// are parameters) and model: a repeated typed query finds its query text here, with no
/// translation and no text printed, and the text finds its parsed predicate and plan template
/// in the store's statement cache, as a string query does. A condition with an
/// `.unsupported` node is never cached, so that its error is reported each time.
enum ModelConditionCache {
    /// One translation: the condition as the query AST, and its text.
    final class Entry: Sendable {
        let condition: QueryPredicate
        let text: String

        init(condition: QueryPredicate) {
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
        /// The last keys found, compared before `entries` is hashed: a query run in a loop
        /// has one node, and comparing it (key paths by identity) costs less than hashing it.
        var recentKeys: [Key] = []
        var recentEntries: [Entry] = []
        var nextRecent = 0
    }

    /// Enough for every condition a program writes; beyond it the cache starts again.
    static let capacity = 4096
    static let recentCapacity = 4

    private static let state = Mutex(State())

    /// The translation of `node` over `root`, cached by the node's shape.
    static func translation(of node: ModelConditionNode, root: any PersistentModel.Type) throws -> Entry {
        let key = Key(model: ObjectIdentifier(root), node: node)
        if let entry = state.withLock({ $0.cached(key) }) { return entry }
        let entry = Entry(condition: try ModelConditionTranslator.predicate(of: node, root: root))
        state.withLock { state in
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[key] = entry
        }
        return entry
    }
}

extension ModelConditionCache.State {
    mutating func cached(_ key: ModelConditionCache.Key) -> ModelConditionCache.Entry? {
        for i in recentKeys.indices where recentKeys[i] == key { return recentEntries[i] }
        guard let entry = entries[key] else { return nil }
        if recentKeys.count < ModelConditionCache.recentCapacity {
            recentKeys.append(key)
            recentEntries.append(entry)
        } else {
            recentKeys[nextRecent] = key
            recentEntries[nextRecent] = entry
            nextRecent = (nextRecent + 1) % ModelConditionCache.recentCapacity
        }
        return entry
    }
}
