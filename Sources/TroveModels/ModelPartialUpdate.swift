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
    /// The changed property while it is the only one: an update most often changes one, and
    /// one is written with no dictionary built (its first entry costs about 650 instructions,
    /// an insertion into an empty one about 1,100).
    @usableFromInline var single: (name: String, value: Value)?
    /// Every changed property, once there are two or more.
    @usableFromInline var several: _ModelPropertyValues

    @inlinable
    public init(primaryKey: Value) {
        self.primaryKey = primaryKey
        self.single = nil
        self.several = [:]
    }

    /// Records the changed property `name`.
    @inlinable
    public mutating func set(_ name: String, _ value: Value) {
        if let first = single {
            single = nil
            several = [first.name: first.value, name: value]
        } else if several.isEmpty {
            single = (name, value)
        } else {
            several[name] = value
        }
    }

    /// The changed properties by stored name.
    public var properties: _ModelPropertyValues {
        if let single { return [single.name: single.value] }
        return several
    }

    /// Writes the changed properties to the object of `model` with the primary key.
    @usableFromInline
    func write(_ model: String, in tx: Transaction) throws {
        if let single {
            try tx.update(model, primaryKey: primaryKey, property: single.name, single.value)
        } else if !several.isEmpty {
            try tx.update(model, primaryKey: primaryKey, several)
        }
    }

    /// The error of an update whose body changed the primary key `name` of `model`.
    public static func primaryKeyChanged(_ name: String, of model: String) -> StoreError {
        .invalidArgument("update cannot change the primary key '\(name)' of \(model)")
    }
}
