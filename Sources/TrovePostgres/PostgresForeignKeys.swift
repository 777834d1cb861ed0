/// The foreign keys of a database's tables by name, read from `pg_constraint`, by which a
/// broken one (SQLSTATE `23503`) is traced to the link that broke it.
///
/// The names are looked up rather than worked out: PostgreSQL cuts a name it makes to 63
/// bytes and adds a number when the cut name is taken (`..._fkey1`), so no rule gives them
/// all, whichever version of Trove created the tables.
struct PostgresForeignKeys: Sendable, Equatable {
    /// The table and column of each foreign key, by its name, as PostgreSQL keeps them.
    private var columns: [String: [Column]] = [:]

    private struct Column: Sendable, Equatable {
        var table: String
        var column: String
    }

    init() {}

    /// The foreign keys of the current schema's tables, as `query`'s text lists them.
    init(listing text: String?) {
        for line in (text ?? "").split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            columns[String(fields[0]), default: []].append(Column(table: String(fields[1]), column: String(fields[2])))
        }
    }

    /// One line per foreign key of the current schema's tables (name, table, column, by
    /// tabs), or null when there are none: a subquery, so that it rides on another statement.
    static let query = """
        (SELECT string_agg(c.conname || E'\\t' || r.relname || E'\\t' || a.attname, E'\\n') FROM pg_catalog.pg_constraint AS c \
        JOIN pg_catalog.pg_class AS r ON r.oid = c.conrelid JOIN pg_catalog.pg_attribute AS a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] \
        WHERE c.contype = 'f' AND r.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = current_schema()))
        """

    /// Reads the foreign keys of the database's tables.
    static func read(_ connection: PostgresConnection) throws -> PostgresForeignKeys {
        PostgresForeignKeys(listing: try connection.execute("SELECT \(query)").rows.first?.first ?? nil)
    }

    /// Whether the foreign key `name` holds `column` of `table` (both as Trove names them).
    func names(_ name: String, table: String, column: String) -> Bool {
        let table = PostgresTables.identifier(table), column = PostgresTables.identifier(column)
        return columns[name]?.contains(Column(table: table, column: column)) ?? false
    }
}
