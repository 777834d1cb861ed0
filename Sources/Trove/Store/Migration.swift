/// What a migration closure sees: every object of a model in its old and new form.
///
/// ```swift
/// config.migration = { migration in
///     try migration.enumerateObjects("Person") { old, new in
///         new["fullName"] = .string("\(old["firstName"]) \(old["lastName"])")
///     }
/// }
/// ```
/// Properties kept with the same type keep their values; new ones start at their defaults.
/// The whole migration is one transaction: if the closure throws, the store is left as it was.
public final class Migration {
    public let oldSchema: Schema
    public let newSchema: Schema
    public var oldSchemaVersion: Int { oldSchema.schemaVersion }
    public var newSchemaVersion: Int { newSchema.schemaVersion }
    var tables: [String: MigrationTable]

    init(oldSchema: Schema, newSchema: Schema, tables: [String: MigrationTable]) {
        self.oldSchema = oldSchema
        self.newSchema = newSchema
        self.tables = tables
    }

    /// Calls `body` for each object of `model` (its name in the new schema) with its old
    /// values and its new, editable values.
    public func enumerateObjects(_ model: String, _ body: (_ old: MigrationObject, _ new: MutableMigrationObject) throws -> Void) throws {
        guard let table = tables[model] else { throw StoreError.noSuchModel(model) }
        for row in table.rows {
            try body(MigrationObject(values: row.old), row.new)
        }
    }

    /// Deletes every object of `model` (its name in the new schema).
    public func deleteData(forModel model: String) throws {
        guard let table = tables[model] else { throw StoreError.noSuchModel(model) }
        table.rows.removeAll()
    }
}

/// An object as the old schema stored it.
public struct MigrationObject {
    let values: [String: Value]
    /// The value of an old property (null if the old schema had no such property).
    public subscript(name: String) -> Value { values[name] ?? .null }
}

/// An object as the new schema will store it.
public final class MutableMigrationObject {
    var values: [String: Value]
    init(values: [String: Value]) { self.values = values }
    public subscript(name: String) -> Value {
        get { values[name] ?? .null }
        set { values[name] = newValue }
    }
}

final class MigrationTable {
    var rows: [(key: UInt64, old: [String: Value], new: MutableMigrationObject)] = []
}
