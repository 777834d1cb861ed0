import Synchronization
import Trove

/// The columns of typed SELECTs and GROUPs by key path: the item's text and the model its
/// value links to. A key-path literal is one object wherever its call site runs, so a repeated
/// `select(\.name, \.score)` finds its columns by identity, with no property table searched,
/// no text printed and no conformance looked up.
enum SelectColumnCache {
    struct Column: @unchecked Sendable {
        /// Holds the key path, so that no other key path takes its address while the entry lives.
        let keyPath: AnyKeyPath
        /// The item as the query language writes it (`team.name`).
        let text: String
        /// The model a value of the key path's type links to, by name.
        let link: String?
    }

    private struct Key: Hashable {
        let model: ObjectIdentifier
        let keyPath: ObjectIdentifier
    }

    /// Enough for every key path a program selects by; beyond it the cache starts again, so
    /// that key paths made at run time cannot grow it without bound.
    static let capacity = 1024

    private static let columns = Mutex<[Key: Column]>([:])

    /// The column of `keyPath` in a SELECT or GROUP of `T`, or the error naming it when it
    /// names no stored property (never cached, so that it is thrown each time).
    static func column<T: PersistentModel, V>(_ keyPath: KeyPath<T, V>) throws -> Column {
        let key = Key(model: ObjectIdentifier(T.self), keyPath: ObjectIdentifier(keyPath))
        if let column = columns.withLock({ $0[key] }) { return column }
        let column = Column(keyPath: keyPath, text: try T.questionPath(keyPath), link: (V.self as? any StorableProperty.Type)?._linkedModel?.modelName)
        columns.withLock { columns in
            if columns.count >= capacity { columns.removeAll(keepingCapacity: true) }
            columns[key] = column
        }
        return column
    }
}
