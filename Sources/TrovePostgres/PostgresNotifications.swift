import Trove

/// How commits reach watchers: a statement-level trigger on every table of the schema calls
/// `"@trove_notify"()`, which notifies the schema's own channel with the table's name as
/// payload, delivered when the transaction commits; `watch` LISTENs on that channel.
extension PostgresTables {
    /// The channel a commit that changes the schema's tables notifies: `trove.` and the
    /// schema's name, fitted to the 63 bytes PostgreSQL keeps of a name (`fitted`), so that a
    /// watcher of one schema is not woken by the commits to another of the database.
    static func notifyChannel(_ schemaName: String) -> String { fitted("trove." + schemaName) }

    /// The channel shared by every schema of the database, which a notify function calling
    /// `pg_notify('trove', table)` (an older Trove's) notifies.
    static let sharedChannel = "trove"

    /// The body of `"@trove_notify"()`, to which a client that may write brings a database's
    /// own when it opens the database (`PostgresSchemaInstaller`). The channel is an escape
    /// string, which means the same whatever `standard_conforming_strings` says.
    static func notifyBody(_ schemaName: String) -> String {
        let channel = "E'" + notifyChannel(schemaName).replacing("\\", with: "\\\\").replacing("'", with: "''") + "'"
        return "BEGIN PERFORM pg_catalog.pg_notify(\(channel), TG_TABLE_NAME); RETURN NULL; END"
    }

    /// The notify function with its (empty) argument list, as `to_regprocedure` reads it.
    static func notifyFunction(_ schemaName: String) -> String { quoted(schemaName) + ".\"@trove_notify\"()" }

    /// The statement that makes `notifyFunction` hold `notifyBody`, keeping its identity, so
    /// the triggers that call it stay. The body is dollar-quoted with a tag it does not hold
    /// (a schema's name may hold `$$`).
    func createNotifyFunction() -> String {
        let body = Self.notifyBody(schemaName)
        var tag = "$$", count = 0
        while body.contains(tag) {
            count += 1
            tag = "$trove\(count)$"
        }
        return "CREATE OR REPLACE FUNCTION \(Self.notifyFunction(schemaName)) RETURNS pg_catalog.trigger LANGUAGE plpgsql AS \(tag)\(body)\(tag)"
    }

    /// The statements that make every change to the schema's tables notify `notifyChannel`
    /// when its transaction commits.
    func notifyTriggers() -> [String] {
        var statements = [createNotifyFunction()]
        for model in schema.models {
            var tables = [table(model.name)]
            for property in model.properties where property.type.isList { tables.append(listTable(model.name, property.name)) }
            for table in tables {
                statements.append("CREATE OR REPLACE TRIGGER \"@trove_notify\" AFTER INSERT OR UPDATE OR DELETE ON \(table) "
                    + "FOR EACH STATEMENT EXECUTE FUNCTION \(Self.notifyFunction(schemaName))")
            }
        }
        return statements
    }

    /// The channels a watcher of the schema listens on: its own and, always, `sharedChannel`,
    /// since an older Trove that installs or migrates the schema while the watcher listens
    /// gives the function that channel again. A commit notifies one channel, so no commit
    /// arrives twice; a commit to another schema whose function is an older Trove's wakes the
    /// watcher too.
    static func listenChannels(_ schemaName: String) -> [String] {
        [notifyChannel(schemaName), sharedChannel]
    }
}
