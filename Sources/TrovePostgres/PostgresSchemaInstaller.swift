import Trove

/// Creates a schema's tables in a database, or migrates the tables of the schema stored there.
///
/// The schema a database holds is kept in the `"@trove_schema"` table, so that a client
/// without the schema file sees the models. Additive changes (see `SchemaChange.isAdditive`)
/// apply automatically; any other change is refused, whatever the schema version says, since
/// rewriting tables on a shared server is an operator's decision. Installing takes a
/// transaction-wide advisory lock, so two clients opening one database at once do not race.
///
/// The table also records the layout of the tables it made (`layout`): a database of an
/// earlier layout is brought to this one when a client that may write opens it (`upgrade`).
enum PostgresSchemaInstaller {
    /// The layout this code makes: 2 indexes strings by their NFC forms (string primary keys
    /// too), as queries compare them; 1 (no `layout` column) indexed the values as stored.
    static let layout = 2

    /// What the database holds, with the layout of its tables.
    private struct Stored {
        var schema: Schema
        var foreignKeys: PostgresForeignKeys
        var layout: Int
        /// Whether the schema's notify function is not this code's (`notifyBody`) and the
        /// role may replace it: it owns the function and may create in the function's schema,
        /// which PostgreSQL requires of a replacement too (an owner whose CREATE was revoked
        /// opens as a client that may not change tables does).
        var replacesNotify: Bool

        /// Whether a client that may write brings anything to this code's layout.
        var isBehind: Bool { layout < PostgresSchemaInstaller.layout || replacesNotify }
    }

    /// Throws unless `schema` may be opened over `stored`, the database's schema: a lower
    /// `schemaVersion` is refused, as on a store, and so is every change that is not
    /// additive, whatever the version says. One rule for a read-write open, which then
    /// applies the additive changes, and a read-only one, which applies none.
    static func checkApplicable(_ schema: Schema, over stored: Schema) throws {
        let plan = schema.migrationPlan(from: stored)
        if plan.verdict == .versionTooLow {
            throw PostgresError("cannot migrate the database's schema: schemaVersion \(plan.newSchemaVersion) is lower than the"
                + " database's schemaVersion \(plan.oldSchemaVersion)", refusedMigration: true)
        }
        let refused = plan.breakingChanges
        guard refused.isEmpty else {
            throw PostgresError("cannot migrate the database's schema, since the PostgreSQL backend applies additive changes only: "
                + refused.map(\.description).joined(separator: "; "), refusedMigration: true)
        }
    }

    /// The schema the database holds, or nil when it holds none.
    static func storedSchema(_ connection: PostgresConnection) throws -> Schema? {
        try stored(connection)?.schema
    }

    /// The schema the database holds and its tables' foreign keys, read in one statement;
    /// nil when it holds no schema.
    static func stored(_ connection: PostgresConnection) throws -> (schema: Schema, foreignKeys: PostgresForeignKeys)? {
        try read(connection).map { ($0.schema, $0.foreignKeys) }
    }

    /// The schema the database holds and its tables' foreign keys, as `stored`, its tables
    /// brought to this code's layout first when they are of an earlier one (for a client that
    /// opens the database without a schema of its own).
    static func upgraded(_ connection: PostgresConnection) throws -> (schema: Schema, foreignKeys: PostgresForeignKeys)? {
        guard let stored = try read(connection) else { return nil }
        guard stored.isBehind else { return (stored.schema, stored.foreignKeys) }
        do {
            return try connection.transaction {
                try connection.execute("SELECT pg_advisory_xact_lock(7412553)")
                guard let locked = try read(connection) else { throw PostgresError("the database's schema was removed while it was read") }
                try upgrade(locked, on: connection)
                return (locked.schema, locked.foreignKeys)
            }
        } catch let error as PostgresError where error.sqlState == "42501" {
            // A role that may write rows but not change tables works at the earlier layout,
            // as a read-only client does, until the tables' owner opens the database.
            return (stored.schema, stored.foreignKeys)
        }
    }

    private static func read(_ connection: PostgresConnection) throws -> Stored? {
        let schemaTable = PostgresTables.schemaTable(in: connection.namespace)
        let exists = try connection.execute("SELECT pg_catalog.to_regclass($1) IS NOT NULL", [schemaTable])
        guard exists.rows.first?.first == "t" else { return nil }
        // `s.*`: a table of layout 1 has no `layout` column.
        guard let row = try connection.execute("""
                SELECT \(PostgresForeignKeys.query), f.prosrc, f.oid IS NOT NULL AND pg_catalog.pg_has_role(f.proowner, 'USAGE') \
                AND pg_catalog.has_schema_privilege(f.pronamespace, 'CREATE'), s.* \
                FROM \(schemaTable) AS s LEFT JOIN pg_catalog.pg_proc AS f ON f.oid = pg_catalog.to_regprocedure($1)
                """, [PostgresTables.notifyFunction(connection.schemaName)]).rows.first,
              row.count >= 5, let text = row[4] else {
            return nil
        }
        let layout = row.count > 5 ? row[5].flatMap { Int($0) } ?? 1 : 1
        // A newer build's tables may hold what this code would misread or break.
        guard layout <= Self.layout else {
            throw PostgresError("the database's tables are of layout \(layout), newer than this build's (\(Self.layout)): open it with a newer Trove")
        }
        do {
            return Stored(schema: try Schema(jsonData: Array(text.utf8), fileName: "the database's schema"),
                          foreignKeys: PostgresForeignKeys(listing: row[0]), layout: layout,
                          replacesNotify: row[1] != nil && row[1] != PostgresTables.notifyBody(connection.schemaName) && row[2] == "t")
        } catch {
            throw PostgresError("the schema stored in the database is unreadable: \(error)")
        }
    }

    /// Brings the tables of `stored` (read under the install lock, so that clients opening
    /// at once replace nothing twice) to this code's layout: an additive change, made at once.
    /// The notify function gets this code's body, keeping its identity and so its triggers.
    /// Layout 2 replaces the index of each indexed string property by one on its NFC form and
    /// adds that of each string primary key.
    private static func upgrade(_ stored: Stored, on connection: PostgresConnection) throws {
        let tables = PostgresTables(schema: stored.schema, schemaName: connection.schemaName)
        if stored.replacesNotify { try connection.execute(tables.createNotifyFunction()) }
        guard stored.layout < layout else { return }
        for model in stored.schema.models {
            // Only the index Trove made goes, by its name: another on the column is a DBA's.
            for property in model.properties where property.isIndexed && property.name != model.primaryKey && property.type == .string {
                try connection.execute("DROP INDEX IF EXISTS \(tables.namespace).\(PostgresTables.indexName(model.name, property.name))")
                try connection.execute(tables.createIndex(model.name, property.name))
            }
            for statement in tables.nfcKeyIndex(model) { try connection.execute(statement) }
            // The planner knows an expression index's values only from statistics.
            try connection.execute("ANALYZE \(tables.table(model.name))")
        }
        try connection.execute("ALTER TABLE \(tables.schemaTable) ADD COLUMN IF NOT EXISTS layout integer NOT NULL DEFAULT 1")
        try connection.execute("UPDATE \(tables.schemaTable) SET layout = \(layout)")
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
            let tables = PostgresTables(schema: schema, schemaName: connection.schemaName)
            guard let stored = try read(connection) else {
                try tables.checkNames(models: schema.models)
                try connection.execute("CREATE TABLE \(tables.schemaTable) (id integer PRIMARY KEY CHECK (id = 1), definition pg_catalog.text NOT NULL, "
                    + "layout integer NOT NULL DEFAULT 1)")
                for model in schema.models { for statement in tables.createTable(model) { try connection.execute(statement) } }
                for model in schema.models { for statement in tables.foreignKeys(model) { try connection.execute(statement) } }
                for statement in tables.notifyTriggers() { try connection.execute(statement) }
                try connection.execute("INSERT INTO \(tables.schemaTable) VALUES (1, $1, \(layout))", [schema.jsonText])
                return (schema, try PostgresForeignKeys.read(connection))
            }
            // The stored schema's tables first, so that a migration adds to this layout.
            try upgrade(stored, on: connection)
            if stored.schema == schema { return (stored.schema, stored.foreignKeys) }
            try checkApplicable(schema, over: stored.schema)
            let plan = schema.migrationPlan(from: stored.schema)
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
            try connection.execute("UPDATE \(tables.schemaTable) SET definition = $1", [schema.jsonText])
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
                    try connection.execute("ALTER TABLE \(tables.table(name)) ADD COLUMN \(column.replacingNotNull())")
                    try connection.execute("UPDATE \(tables.table(name)) SET \(PostgresTables.quoted(property.name)) = \(expression)",
                                           parameters.values)
                    if !property.isOptional {
                        try connection.execute("ALTER TABLE \(tables.table(name)) ALTER COLUMN \(PostgresTables.quoted(property.name)) SET NOT NULL")
                    }
                    return
                }
                column = column.replacingNotNull()
                try connection.execute("ALTER TABLE \(tables.table(name)) ADD COLUMN \(column)")
            }
            for statement in tables.foreignKeys(property, in: model) { try connection.execute(statement) }
            if property.isIndexed { try connection.execute(tables.createIndex(name, property.name)) }
        case .addedIndex(let model, let property):
            try connection.execute(tables.createIndex(model, property))
        case .removedIndex(let model, let property):
            try tables.dropIndex(model, property, on: connection)
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
