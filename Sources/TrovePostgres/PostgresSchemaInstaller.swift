import Trove

/// Creates a schema's tables in a database, or migrates the tables of the schema stored there.
///
/// The schema a database holds is kept in the `"@trove_schema"` table, so that a client
/// without the schema file sees the models. Additive changes (see `SchemaChange.isAdditive`)
/// apply automatically; any other change is refused, whatever the schema version says, since
/// rewriting tables on a shared server is an operator's decision. Installing takes a
/// transaction-wide advisory lock, so two clients opening one database at once do not race.
enum PostgresSchemaInstaller {
    /// The schema the database holds, or nil when it holds none.
    static func storedSchema(_ connection: PostgresConnection) throws -> Schema? {
        try stored(connection)?.schema
    }

    /// The schema the database holds and its tables' foreign keys, read in one statement;
    /// nil when it holds no schema.
    static func stored(_ connection: PostgresConnection) throws -> (schema: Schema, foreignKeys: PostgresForeignKeys)? {
        let exists = try connection.execute("SELECT to_regclass($1) IS NOT NULL", [PostgresTables.schemaTable])
        guard exists.rows.first?.first == "t" else { return nil }
        guard let row = try connection.execute("SELECT definition, \(PostgresForeignKeys.query) FROM \(PostgresTables.schemaTable)").rows.first,
              let text = row[0] else {
            return nil
        }
        do {
            return (try Schema(jsonData: Array(text.utf8), fileName: "the database's schema"), PostgresForeignKeys(listing: row[1]))
        } catch {
            throw PostgresError("the schema stored in the database is unreadable: \(error)")
        }
    }

    /// Makes the database hold `schema`, and returns it with the tables' foreign keys.
    static func install(_ schema: Schema, on connection: PostgresConnection) throws -> (schema: Schema, foreignKeys: PostgresForeignKeys) {
        try connection.transaction { try installInTransaction(schema, on: connection) }
    }

    /// `install` inside the transaction the caller opened, for a change that must commit with
    /// the schema or not at all (a copy into the database).
    static func installInTransaction(_ schema: Schema, on connection: PostgresConnection) throws -> (schema: Schema, foreignKeys: PostgresForeignKeys) {
        do {
            try connection.execute("SELECT pg_advisory_xact_lock(7412553)")
            let tables = PostgresTables(schema: schema)
            guard let stored = try stored(connection) else {
                try tables.checkNames(models: schema.models)
                try connection.execute("CREATE TABLE \(PostgresTables.schemaTable) (id integer PRIMARY KEY CHECK (id = 1), definition pg_catalog.text NOT NULL)")
                for model in schema.models { for statement in tables.createTable(model) { try connection.execute(statement) } }
                for model in schema.models { for statement in tables.foreignKeys(model) { try connection.execute(statement) } }
                for statement in tables.notifyTriggers() { try connection.execute(statement) }
                try connection.execute("INSERT INTO \(PostgresTables.schemaTable) VALUES (1, $1)", [schema.jsonText])
                return (schema, try PostgresForeignKeys.read(connection))
            }
            if stored.schema == schema { return stored }
            let plan = schema.migrationPlan(from: stored.schema)
            let refused = plan.breakingChanges
            guard refused.isEmpty else {
                throw PostgresError("cannot migrate the database's schema: "
                    + refused.map(\.description).joined(separator: "; ")
                    + " (the PostgreSQL backend applies additive changes only)")
            }
            var addedModels: [ModelSchema] = [], addedProperties: [(model: String, property: PropertySchema)] = []
            for change in plan.changes {
                if case .addedModel(let name) = change, let model = schema[name] { addedModels.append(model) }
                if case .addedProperty(let name, let property) = change { addedProperties.append((name, property)) }
            }
            try tables.checkNames(models: addedModels, properties: addedProperties)
            try connection.deallocatePreparedStatements()
            // New tables first, so that new links can refer to them; their own foreign keys last.
            var added: [ModelSchema] = []
            for case .addedModel(let name) in plan.changes {
                guard let model = schema[name] else { continue }
                for statement in tables.createTable(model) { try connection.execute(statement) }
                added.append(model)
            }
            for change in plan.changes { try apply(change, tables: tables, connection: connection) }
            for model in added { for statement in tables.foreignKeys(model) { try connection.execute(statement) } }
            for statement in tables.notifyTriggers() { try connection.execute(statement) }
            try connection.execute("UPDATE \(PostgresTables.schemaTable) SET definition = $1", [schema.jsonText])
            return (schema, try PostgresForeignKeys.read(connection))
        }
    }

    private static func apply(_ change: SchemaChange, tables: PostgresTables, connection: PostgresConnection) throws {
        switch change {
        case .addedModel:
            return
        case .addedProperty(let name, let property):
            guard let model = tables.schema[name], property.isStored else { return }
            if property.type.isList {
                try connection.execute(tables.createListTable(property, in: model))
            } else {
                var column = tables.column(property, in: model)
                if let value = property.defaultValue, !value.isNull {
                    // Existing rows get the default; the column keeps none, as inserts supply it.
                    var parameters = SQLParameters()
                    let expression = try PostgresValues.sql(value, type: property.type, &parameters)
                    try connection.execute("ALTER TABLE \(PostgresTables.table(name)) ADD COLUMN \(column.replacingNotNull())")
                    try connection.execute("UPDATE \(PostgresTables.table(name)) SET \(PostgresTables.quoted(property.name)) = \(expression)",
                                           parameters.values)
                    if !property.isOptional {
                        try connection.execute("ALTER TABLE \(PostgresTables.table(name)) ALTER COLUMN \(PostgresTables.quoted(property.name)) SET NOT NULL")
                    }
                    return
                }
                column = column.replacingNotNull()
                try connection.execute("ALTER TABLE \(PostgresTables.table(name)) ADD COLUMN \(column)")
            }
            for statement in tables.foreignKeys(property, in: model) { try connection.execute(statement) }
            if property.isIndexed { try connection.execute(tables.createIndex(name, property.name)) }
        case .addedIndex(let model, let property):
            try connection.execute(tables.createIndex(model, property))
        case .removedIndex(let model, let property):
            try PostgresTables.dropIndex(model, property, on: connection)
        case .changedDefault, .reorderedProperties, .removedProperty, .changedPropertyType:
            // Defaults are applied by inserts; the rest changes nothing stored.
            return
        case .removedModel, .renamedModel, .renamedProperty, .changedOptionality, .changedPrimaryKey:
            throw PostgresError("cannot migrate: \(change)")
        }
    }
}

extension String {
    fileprivate func replacingNotNull() -> String {
        hasSuffix(" NOT NULL") ? String(dropLast(" NOT NULL".count)) : self
    }
}
