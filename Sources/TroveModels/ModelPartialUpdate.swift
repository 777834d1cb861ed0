import Trove

/// What a partial update writes: the primary key of the value before the change, and the
/// stored properties the change made different, as a write stores them.
///
/// `@Model` writes ``PersistentModel/_partialUpdate(from:to:)``, which compares the two values
/// property by property and reads each key and changed value straight from its property, so
/// that `tx.update(value) { ... }` applies no key path and calls no closure of the table.
@_documentation(visibility: internal)
public struct _ModelPartialUpdate {
    public var primaryKey: Value
    public var properties: _ModelPropertyValues

    @inlinable
    public init(primaryKey: Value) {
        self.primaryKey = primaryKey
        self.properties = [:]
    }

    /// Records the changed property `name`. The first is written as a one-entry literal: an
    /// update most often changes one property, and an insertion into the empty dictionary
    /// reallocates and rehashes it (about 1,100 instructions against 650).
    @inlinable
    public mutating func set(_ name: String, _ value: Value) {
        if properties.isEmpty {
            properties = [name: value]
        } else {
            properties[name] = value
        }
    }

    /// The error of an update whose body changed the primary key `name` of `model`.
    public static func primaryKeyChanged(_ name: String, of model: String) -> StoreError {
        .invalidArgument("update cannot change the primary key '\(name)' of \(model)")
    }
}
