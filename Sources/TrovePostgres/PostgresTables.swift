import Trove

/// How a Trove schema lies in PostgreSQL: a table per model, a column per stored scalar or
/// to-one link, a side table per list.
///
/// Every table has a generated `"@key"` column counting objects in the order they were first
/// saved (the order of results without `SORT`, and the tie-break of sorts). The primary key is
/// the model's primary-key property, or `"@key"` for a model without one; links and list
/// rows refer to it. `@` cannot start a property name, so the column never meets one.
struct PostgresTables {
    let schema: Schema
    /// The PostgreSQL schema the tables live in (`PostgresConnection.schemaName`).
    let schemaName: String
    /// `schemaName` quoted: every table is named with it, since a name alone could be the
    /// catalog's (`pg_type`).
    let namespace: String

    init(schema: Schema, schemaName: String) {
        self.schema = schema
        self.schemaName = schemaName
        namespace = Self.quoted(schemaName)
    }

    static let orderColumn = "\"@key\""
    /// The table that keeps the schema itself, for `.schema` and migrations.
    var schemaTable: String { Self.schemaTable(in: namespace) }
    static func schemaTable(in namespace: String) -> String { namespace + ".\"@trove_schema\"" }

    /// An identifier quoted for SQL: any name, keywords included, stands for itself.
    static func quoted(_ name: String) -> String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    func table(_ model: String) -> String { namespace + "." + Self.quoted(model) }

    /// The side table of a list property: `"Person.dogs"`, rows `(owner, position, value)`.
    func listTable(_ model: String, _ property: String) -> String { namespace + "." + Self.quoted(model + "." + property) }

    /// The bytes PostgreSQL keeps of an identifier (NAMEDATALEN - 1); it cuts a longer one
    /// with only a NOTICE, so two names alike in their first 63 bytes would be one table.
    static let identifierLimit = 63

    /// `name` as PostgreSQL keeps an identifier: its first 63 bytes, cut back to whole
    /// characters.
    static func identifier(_ name: String) -> String { prefix(name, bytes: identifierLimit) }

    private static func prefix(_ name: String, bytes limit: Int) -> String {
        guard name.utf8.count > limit else { return name }
        var result = String.UnicodeScalarView(), count = 0
        for scalar in name.unicodeScalars {
            count += UTF8.width(scalar)
            guard count <= limit else { break }
            result.append(scalar)
        }
        return String(result)
    }

    /// Refuses names that PostgreSQL would cut: the tables and columns of `models`, and the
    /// `properties` added to existing models. Tables and columns are named by the model and
    /// property names themselves (they appear in `explain`, in notifications and to other SQL
    /// clients), so a name that does not fit is refused at install, before anything is created.
    func checkNames(models: [ModelSchema], properties: [(model: String, property: PropertySchema)] = []) throws {
        let limit = Self.identifierLimit
        func check(_ name: String, _ what: @autoclosure () -> String) throws {
            let bytes = name.utf8.count
            guard bytes > limit else { return }
            throw PostgresError("\(what()) is \(bytes) bytes in UTF-8; PostgreSQL keeps \(limit) bytes of a name, "
                + "so the PostgreSQL backend refuses it (shorten the name)")
        }
        var added = properties
        for model in models {
            try check(model.name, "model \(model.name): its name, the name of its table,")
            added += model.properties.map { (model.name, $0) }
        }
        for (model, property) in added where property.isStored {
            if property.type.isList {
                let table = model + "." + property.name
                try check(table, "property \(model).\(property.name): the name of its list's table, \"\(table)\",")
            } else {
                try check(property.name, "property \(model).\(property.name): its name, the name of its column,")
            }
        }
    }

    /// The column links and list rows refer to: the primary key, or `"@key"`.
    func keyColumn(_ model: ModelSchema) -> String {
        model.primaryKey.map(Self.quoted) ?? Self.orderColumn
    }

    /// The SQL type of the key links to `model` hold.
    func keyType(_ model: ModelSchema) -> String {
        model.primaryKeyProperty.map { Self.scalarType($0.type) } ?? "bigint"
    }

    /// The column type of a scalar: text in the "C" collation orders by Unicode scalar values,
    /// as a store does; dates keep microseconds.
    static func scalarType(_ type: PropertyType) -> String {
        switch type {
        case .bool: "boolean"
        case .int, .int64: "bigint"
        case .int8, .int16: "smallint"
        case .int32: "integer"
        case .float: "real"
        case .double: "double precision"
        case .string: "pg_catalog.text COLLATE \"C\""
        case .date: "pg_catalog.timestamptz"
        case .data: "pg_catalog.bytea"
        case .decimal: "numeric"
        case .uuid: "pg_catalog.uuid"
        case .link, .list, .linkingObjects: "bigint"
        }
    }

    /// The type a bound text parameter is cast to for `type`.
    static func castType(_ type: PropertyType) -> String {
        switch type {
        case .string: "pg_catalog.text"
        default: scalarType(type)
        }
    }

    /// The statements that create `model`'s table and indexes; foreign keys come separately
    /// (`foreignKeys`), once every table exists.
    func createTable(_ model: ModelSchema) -> [String] {
        var columns = ["\(Self.orderColumn) bigint GENERATED ALWAYS AS IDENTITY"]
        for property in model.properties where property.isStored && !property.type.isList {
            columns.append(column(property, in: model))
        }
        columns.append("PRIMARY KEY (\(keyColumn(model)))")
        if model.primaryKey != nil { columns.append("UNIQUE (\(Self.orderColumn))") }
        var statements = ["CREATE TABLE \(table(model.name)) (\(columns.joined(separator: ", ")))"]
        for property in model.properties where property.isIndexed && property.name != model.primaryKey {
            statements.append(createIndex(model.name, property.name))
        }
        statements += nfcKeyIndex(model)
        for property in model.properties where property.type.isList {
            statements.append(createListTable(property, in: model))
        }
        return statements
    }

    func column(_ property: PropertySchema, in model: ModelSchema) -> String {
        var text = Self.quoted(property.name) + " "
        if case .link(let target) = property.type, let targetModel = schema[target] {
            text += keyType(targetModel)
        } else {
            text += Self.scalarType(property.type)
        }
        if let range = property.type.integerRange, property.type == .int8 {
            text += " CHECK (\(Self.quoted(property.name)) BETWEEN \(range.lowerBound) AND \(range.upperBound))"
        }
        if !property.isOptional { text += " NOT NULL" }
        return text
    }

    /// The index of `model.property`: on its value as queries compare it
    /// (`indexedValue`).
    func createIndex(_ model: String, _ property: String) -> String {
        let type = schema[model]?[property: property]?.type ?? .int
        return "CREATE INDEX \(Self.indexName(model, property)) ON \(table(model)) (\(Self.indexedValue(property, type)))"
    }

    /// What an index on a property of `type` holds: a string's NFC form, by which queries
    /// compare and sort strings (`PostgresStringFolding.nfc`, an expression in parentheses);
    /// any other value itself.
    static func indexedValue(_ property: String, _ type: PropertyType) -> String {
        type == .string ? "(\(PostgresStringFolding.nfc(quoted(property))))" : quoted(property)
    }

    /// For a string primary key, the index of its NFC form, which queries on the key compare
    /// (`Item where id == 'é'` matches both spellings, as in a store); the primary key's own
    /// unique index holds the keys as written, which links, `get`, and updates and deletes by
    /// key find, and which tells `é` and `e` + U+0301 apart as two keys, as a store does.
    func nfcKeyIndex(_ model: ModelSchema) -> [String] {
        guard let key = model.primaryKeyProperty, key.type == .string else { return [] }
        return [createIndex(model.name, key.name)]
    }

    /// `"Model.property index"`, or for a name over 63 bytes its first 46 bytes, `~` and a
    /// hash of the whole name: two long names alike in their first 63 bytes stay two indexes.
    static func indexName(_ model: String, _ property: String) -> String {
        quoted(fitted("\(model).\(property) index"))
    }

    /// `name`, or for a name over 63 bytes its first 46 bytes, `~` and a hash of the whole
    /// name in hex: two long names alike in their first 63 bytes stay two.
    static func fitted(_ name: String) -> String {
        guard name.utf8.count > identifierLimit else { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a: stable across runs and platforms
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return prefix(name, bytes: identifierLimit - 17) + "~" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Drops the index of `model.property` whatever it is called (a database made before long
    /// index names were hashed holds it under PostgreSQL's cut of the name) and whatever it
    /// holds (the column, or a string's NFC form under its own name).
    func dropIndex(_ model: String, _ property: String, on connection: PostgresConnection) throws {
        let found = try connection.execute("""
            SELECT i.indexrelid::pg_catalog.regclass::pg_catalog.text FROM pg_catalog.pg_index i LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
            WHERE i.indrelid = pg_catalog.to_regclass($1) AND i.indnatts = 1 AND NOT i.indisunique AND (a.attname = $2 OR i.indexrelid = pg_catalog.to_regclass($3))
            """, [table(model), Self.identifier(property), namespace + "." + Self.indexName(model, property)])
        for row in found.rows { if let name = row[0] { try connection.execute("DROP INDEX \(name)") } }
    }

    func createListTable(_ property: PropertySchema, in model: ModelSchema) -> String {
        guard case .list(let element) = property.type else { return "" }
        var valueType: String
        if case .link(let target) = element, let targetModel = schema[target] {
            valueType = keyType(targetModel)
        } else {
            valueType = Self.scalarType(element)
        }
        if !property.isOptional && !element.isLink { valueType += " NOT NULL" }
        return "CREATE TABLE \(listTable(model.name, property.name)) (owner \(keyType(model)) NOT NULL, position integer NOT NULL, "
            + "value \(valueType), PRIMARY KEY (owner, position))"
    }

    /// Foreign keys of `model`'s links and lists: a deleted target leaves a null link and
    /// leaves the lists it was in; a deleted owner takes its list rows with it; a changed
    /// primary key (which Trove never changes, but SQL may) is followed.
    func foreignKeys(_ model: ModelSchema) -> [String] {
        model.properties.flatMap { foreignKeys($0, in: model) }
    }

    func foreignKeys(_ property: PropertySchema, in model: ModelSchema) -> [String] {
        var statements: [String] = []
        do {
            switch property.type {
            case .link(let target):
                guard let targetModel = schema[target] else { break }
                statements.append("ALTER TABLE \(table(model.name)) ADD FOREIGN KEY (\(Self.quoted(property.name))) "
                    + "REFERENCES \(table(target)) (\(keyColumn(targetModel))) ON DELETE SET NULL ON UPDATE CASCADE")
            case .list(let element):
                let side = listTable(model.name, property.name)
                statements.append("ALTER TABLE \(side) ADD FOREIGN KEY (owner) REFERENCES \(table(model.name)) "
                    + "(\(keyColumn(model))) ON DELETE CASCADE ON UPDATE CASCADE")
                statements.append("CREATE INDEX ON \(side) (value)")
                if case .link(let target) = element, let targetModel = schema[target] {
                    statements.append("ALTER TABLE \(side) ADD FOREIGN KEY (value) REFERENCES \(table(target)) "
                        + "(\(keyColumn(targetModel))) ON DELETE CASCADE ON UPDATE CASCADE")
                }
            default:
                break
            }
        }
        return statements
    }
}
