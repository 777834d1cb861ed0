/// Which PostgreSQL schema a connection's Trove tables live in: chosen from the session's
/// `search_path` (the URL's or the server's) as PostgreSQL would find an unqualified table,
/// except that a schema holding the tables that the role may not use is reported rather than
/// passed over when no schema the role may use holds them.
///
/// PostgreSQL leaves a schema without the role's USAGE privilege out of the path it searches
/// (`current_schemas`), so the tables of such a schema would seem not to exist; the catalog,
/// which every role may read, still tells which schemas hold them. The schema is the first of
/// the path, other than PostgreSQL's own (`pg_catalog`, `pg_temp`: a user's schema cannot
/// start with `pg_`), that holds `"@trove_schema"` and that the role may use; else the first
/// that holds it, which the role may not use, so that a writer does not fall through to an
/// empty schema and make a second store there; else, for a new database, the first the role
/// may use, where PostgreSQL would create a table. A chosen schema the role may not use is an
/// error naming it, the privilege and the server's reason.
enum PostgresSearchPath {
    /// The names a `search_path` setting lists, in order, as PostgreSQL reads them: a quoted
    /// name as written (`""` is `"`), any other in lower case (ASCII only, as in a UTF8
    /// database), each cut to 63 bytes; `$user` stays itself. Nil when the setting does not
    /// parse (the server accepts no such setting).
    static func names(_ setting: String) -> [String]? {
        var names: [String] = []
        var rest = Substring(setting)
        func skipSpace() { rest = rest.drop { " \t\n\r\u{0C}\u{0B}".contains($0) } }
        skipSpace()
        if rest.isEmpty { return [] }
        while true {
            var name = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                while true {
                    guard let quote = rest.firstIndex(of: "\"") else { return nil }
                    name += rest[..<quote]
                    rest = rest[rest.index(after: quote)...]
                    guard rest.first == "\"" else { break }
                    name += "\""
                    rest = rest.dropFirst()
                }
            } else {
                let end = rest.firstIndex { $0 == "," || " \t\n\r\u{0C}\u{0B}".contains($0) } ?? rest.endIndex
                guard end > rest.startIndex else { return nil }
                name = String(String.UnicodeScalarView(rest[..<end].unicodeScalars.map { scalar in
                    ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
                }))
                rest = rest[end...]
            }
            names.append(PostgresTables.identifier(name))
            skipSpace()
            if rest.isEmpty { return names }
            guard rest.first == "," else { return nil }
            rest = rest.dropFirst()
            skipSpace()
        }
    }

    /// The name (unquoted) of the schema that holds, or is to hold, the Trove tables of
    /// `connection`, whose `search_path` is still the one it connected with. Every name in the
    /// statements is qualified, since that path may hold a user's operators and functions.
    static func tablesSchema(on connection: PostgresConnection) throws -> String {
        let session = try connection.execute("SELECT pg_catalog.current_setting('search_path'), CURRENT_USER::pg_catalog.text")
        guard let row = session.rows.first, row.count == 2, let setting = row[0], let role = row[1] else {
            throw PostgresError("cannot use PostgreSQL: the server gave no search_path")
        }
        let listed = (names(setting) ?? []).map { $0 == "$user" ? role : $0 }.filter { !$0.hasPrefix("pg_") }
        let facts = try connection.execute("""
            SELECT p.name, n.oid IS NOT NULL, n.oid IS NOT NULL AND pg_catalog.has_schema_privilege(n.oid, 'USAGE'), \
            EXISTS (SELECT FROM pg_catalog.pg_class c WHERE c.relnamespace OPERATOR(pg_catalog.=) n.oid \
            AND c.relname OPERATOR(pg_catalog.=) '@trove_schema'::pg_catalog.name) \
            FROM pg_catalog.unnest($1::pg_catalog.text[]) WITH ORDINALITY AS p(name, position) \
            LEFT JOIN pg_catalog.pg_namespace n ON n.nspname OPERATOR(pg_catalog.=) p.name::pg_catalog.name ORDER BY p.position
            """, [PostgresValues.arrayLiteral(listed)])
        let schemas = facts.rows.compactMap { row -> (name: String, usable: Bool, holdsTables: Bool)? in
            guard row.count == 4, let name = row[0], row[1] == "t" else { return nil }
            return (name, row[2] == "t", row[3] == "t")
        }
        let chosen = schemas.first(where: { $0.holdsTables && $0.usable }) ?? schemas.first(where: \.holdsTables)
            ?? schemas.first(where: \.usable) ?? schemas.first
        guard let chosen else {
            throw PostgresError("cannot use PostgreSQL: no schema of the search_path (\(setting.isEmpty ? "empty" : setting)) exists to hold Trove's tables")
        }
        guard chosen.usable else {
            throw try unusable(chosen.name, holdsTables: chosen.holdsTables, role: role, on: connection)
        }
        return chosen.name
    }

    /// The error for schema `name`, on which `role` lacks USAGE, with the server's reason:
    /// what it says when the schema's table is named.
    private static func unusable(_ name: String, holdsTables: Bool, role: String, on connection: PostgresConnection) throws -> PostgresError {
        var reason = ""
        do {
            try connection.execute("SELECT pg_catalog.to_regclass($1)", [PostgresTables.schemaTable(in: PostgresTables.quoted(name))])
        } catch let error as PostgresError where error.sqlState == "42501" {
            reason = " (the server says: \(error.message))"
        }
        let which = holdsTables ? "which holds Trove's tables" : "the search_path's first, to hold Trove's tables"
        return PostgresError("cannot use the PostgreSQL schema \(PostgresTables.quoted(name)), \(which): the role \(PostgresTables.quoted(role)) "
            + "lacks the USAGE privilege on it\(reason); an owner of the schema can grant it (GRANT USAGE ON SCHEMA ...)", sqlState: "42501")
    }
}
