import Trove
import Glibc

/// The shell's backend over a Trove `Store`: every statement of the shell language.
///
/// Statements run on the calling thread. A write outside `begin` ... `commit` is its own
/// transaction (`Store.write`); inside one, every statement joins the open transaction and
/// reads see its writes. A write statement that fails inside a transaction may have
/// applied part of itself; the shell then fails the transaction (`TransactionFailure`), so
/// that nothing sees that part and `commit` rolls it back.
public final class TroveBackend: ShellBackend {
    private(set) var store: Store {
        // A store opened again (a new schema, a new key) keeps the `.timeout` of the one it replaces.
        didSet { store.busyTimeout = oldValue.busyTimeout }
    }
    /// The transaction of `begin` ... `commit`, while one is open.
    private(set) var explicitTransaction: Transaction?

    init(store: Store) {
        self.store = store
    }

    /// Opens the store the command line names. An unreadable or foreign database file, a
    /// bad schema file and a missing or wrong encryption key are usage errors (exit status 2);
    /// a refused migration is not.
    public static func open(_ configuration: BackendConfiguration) throws -> TroveBackend {
        // A named in-memory store, so that `.apply-schema` can open it again with a new schema.
        var storeConfiguration = configuration.databasePath.map { StoreConfiguration(path: $0) }
            ?? .inMemory(identifier: "trove-shell-\(UInt64.random(in: 0 ... .max))")
        storeConfiguration.readOnly = configuration.readOnly
        storeConfiguration.deleteIfMigrationNeeded = configuration.resetOnMigration
        storeConfiguration.encryptionKey = configuration.encryptionKey
        storeConfiguration.busyTimeout = configuration.busyTimeout
        let shown = configuration.databasePath ?? ":memory:"
        storeConfiguration.onLongWriterWait = { holder in
            let who = holder.map { "process \($0)" } ?? "another writer"
            FileOutput(fd: STDERR_FILENO, capacity: 0).write("trove: waiting for the writer lock of '\(shown)', held by \(who)\n")
        }
        if let (path, text) = configuration.schema {
            do {
                storeConfiguration.schema = try Schema(jsonData: Array(text.utf8), fileName: path)
            } catch {
                throw UsageError("bad schema: \(error.description)")
            }
        }
        let path = configuration.databasePath ?? ":memory:"
        do {
            return TroveBackend(store: try Store(configuration: storeConfiguration))
        } catch let error as StoreError {
            if let problem = Self.keyProblem(error, hasKey: configuration.encryptionKey != nil) {
                if problem == .missing { throw EncryptionKeyNeeded(path: path) }
                throw UsageError("cannot open '\(path)': \(problem.rawValue)")
            }
            switch error {
            case .storage(let failure):
                throw UsageError("cannot open '\(path)': \(Self.describeOpenFailure(failure, database: path, readOnly: configuration.readOnly))")
            case .migrationRequired(let detail):
                throw StatementError("cannot open '\(path)' with this schema: \(detail)"
                    + migrationHint(refusing: storeConfiguration))
            default:
                throw StatementError("cannot open '\(path)': \(error.description)")
            }
        }
    }

    /// What to do about a migration the open of `configuration` refused, by why it refused:
    /// a read-only open, a lower schemaVersion (which nothing migrates to), or changes whose
    /// way (a higher schemaVersion) the refusal names already. A read-only open also says how
    /// to read the store as it is, since no schemaVersion lets it migrate.
    static func migrationHint(refusing configuration: StoreConfiguration) -> String {
        // The stored schemaVersion, from an open that applies no schema.
        var stored = configuration
        stored.schema = nil
        stored.readOnly = true
        guard let newVersion = configuration.schema?.schemaVersion,
              let storedVersion = try? Store(configuration: stored).schema.schemaVersion else { return "" }
        guard configuration.readOnly else {
            return newVersion < storedVersion ? " (raise schemaVersion, or pass --reset-on-migration to wipe the store)" : ""
        }
        let asItIs = "; to read the store as it is, open it without --schema"
        if newVersion > storedVersion { return " (open it without --readonly to migrate it\(asItIs))" }
        // Changes that need a higher schemaVersion: the refusal says to raise it, and then
        // a read-only open still refuses the migration.
        if newVersion == storedVersion { return " (then open it without --readonly to migrate it\(asItIs))" }
        return configuration.deleteIfMigrationNeeded
            ? " (nothing migrates to a lower schemaVersion; without --readonly, --reset-on-migration would wipe the store\(asItIs))"
            : " (nothing migrates to a lower schemaVersion: raise it, and open the store without --readonly to migrate it\(asItIs))"
    }

    /// What is wrong with the key an open was given, said without the key.
    enum KeyProblem: String {
        case missing = "the store is encrypted: give its key with --key-file FILE"
        case wrong = "wrong encryption key: the key does not open this store"
        case unexpected = "the store is not encrypted, but an encryption key was given"
    }

    static func keyProblem(_ error: StoreError, hasKey: Bool) -> KeyProblem? {
        switch error {
        case .storage(.wrongEncryptionKey): .wrong
        case .storage(.keyNeeded): hasKey ? .wrong : .missing
        case .storage(.notEncrypted): .unexpected
        default: nil
        }
    }

    /// What went wrong, the way people read it: the store's file that cannot be opened by the
    /// system's words alone (the message names `database` already), its `-log` or another
    /// file by its path and those words, anything else as the store says it. A file that may
    /// be read but not written says that `--readonly` reads it (sqlite3 would open it
    /// read-only by itself; here a read-only open is asked for).
    static func describeOpenFailure(_ failure: StoreError.StorageFailure, database: String, readOnly: Bool) -> String {
        guard case let .cannotOpen(path, errno) = failure else { return failure.description }
        let message = (path == database ? "" : "\(path): ") + SystemError(errno: errno).message
        guard !readOnly, errno == EACCES || errno == EROFS || errno == EPERM, access(path, R_OK) == 0 else { return message }
        return message + " (it can be read: open it with --readonly)"
    }

    // MARK: ShellBackend

    public func models() throws -> [ModelDescription] {
        store.schema.models.map(ModelDescription.init)
    }

    public func schemaVersion() throws -> Int { store.schema.schemaVersion }

    public var isInTransaction: Bool { explicitTransaction != nil }

    public func begin() throws {
        guard explicitTransaction == nil else { throw StatementError("a transaction is already open; 'commit' or 'rollback' it first", at: 0) }
        if store.configuration.readOnly { throw StatementError.readOnly("begin a transaction", at: 0) }
        explicitTransaction = try store.beginWrite()
    }

    public func commit() throws {
        guard let tx = explicitTransaction else { throw StatementError("no transaction is open ('begin' starts one)", at: 0) }
        explicitTransaction = nil
        try tx.commit()
    }

    public func rollback() throws {
        guard let tx = explicitTransaction else { throw StatementError("no transaction is open ('begin' starts one)", at: 0) }
        explicitTransaction = nil
        try tx.rollback()
    }

    public func execute(_ statement: ShellStatement, context: ExecutionContext) throws -> ShellResult {
        do {
            return try run(statement, context: context)
        } catch let error as StatementError {
            throw error
        } catch let error as WriteFailure {
            throw error.underlying
        } catch let error as QueryError {
            throw StatementError(error, at: error.location.offset)
        } catch let error as StoreError {
            throw StatementError(error, models: store.schema.models.map(\.name))
        }
    }

    private func run(_ statement: ShellStatement, context: ExecutionContext) throws -> ShellResult {
        let arguments = ParameterValues(context.arguments)
        switch statement {
        case .query(let spec), .export(let spec, _):
            return try read { snapshot in try StoreQuery(spec, arguments: arguments).result(in: snapshot, context: context) }
        case .count(let model, let predicate):
            return try read { snapshot in
                let name = try modelSchema(model).name
                guard let predicate else { return .count(try snapshot.count(name)) }
                return .count(try StoreQuery.matching(name, predicate, arguments: arguments, in: snapshot).count)
            }
        case .get(let model, let keys):
            return try read { snapshot in
                let m = try modelSchema(model)
                let objects = try keys.map { key in
                    try snapshot.object(m.name, primaryKey: try LiteralValue.primaryKey(key, of: m, arguments: arguments, in: snapshot))
                }
                let links = StoreDump.linksWrittenNested(m, schema: snapshot.schema)
                return .lookup(columns: ResultRows.columns(of: m),
                               objects: try objects.map { try $0.map { try ResultRows.json(of: $0, links: links, schema: snapshot.schema, cyclesEnd: true) } },
                               decimalColumns: ResultRows.decimalColumns(of: m))
            }
        case .insert(let model, let json), .upsert(let model, let json):
            let isInsert = statement.keyword == "insert"
            let m = try modelSchema(model)
            let records = try JSONRecords.parse(json)
            return try write { tx in .written(try JSONRecords.write(records, of: m, merge: !isInsert, into: tx)) }
        case .update(let model, let target, let assignments):
            let m = try modelSchema(model)
            return try write { tx in
                let values = try LiteralValue.assignments(assignments, of: m, arguments: arguments, in: tx)
                switch target {
                case .keys(let keys):
                    var updated = 0
                    for key in keys {
                        let pk = try LiteralValue.primaryKey(key, of: m, arguments: arguments, in: tx)
                        guard try tx.object(m.name, primaryKey: pk) != nil else {
                            throw StatementError("'\(m.name)' has no object with primary key \(pk)", at: key.offset)
                        }
                        _ = try WriteFailure.wrap {
                            try LiteralValue.writing(assignments, of: m) { try tx.update(m.name, primaryKey: pk, values) }
                        }
                        updated += 1
                    }
                    return .written(WriteSummary(updated: updated))
                case .predicate(let predicate):
                    let n = try LiteralValue.writing(assignments, of: m) {
                        try StoreQuery.update(m.name, where: predicate, arguments: arguments, set: values, in: tx)
                    }
                    return .written(WriteSummary(updated: n))
                }
            }
        case .delete(let model, let target):
            let m = try modelSchema(model)
            return try write { tx in
                switch target {
                case .keys(let keys):
                    var deleted = 0
                    for key in keys {
                        let pk = try LiteralValue.primaryKey(key, of: m, arguments: arguments, in: tx)
                        if try WriteFailure.wrap({ try tx.delete(m.name, primaryKey: pk) }) { deleted += 1 }
                    }
                    return .written(WriteSummary(deleted: deleted))
                case .predicate(let predicate):
                    return .written(WriteSummary(deleted: try StoreQuery.delete(m.name, where: predicate, arguments: arguments, in: tx)))
                }
            }
        case .importFile(let model, let file, let format, let merge):
            let m = try modelSchema(model)
            let input = try context.openInput(file)
            let importer = StoreImport(model: m, input: input, format: format ?? ImportFormat(fileName: file.text), merge: merge, context: context)
            return try write { tx in .written(try importer.run(into: tx)) }
        case .explain(let spec):
            return try read { snapshot in .plan(try StoreQuery(spec, arguments: arguments).explain(in: snapshot)) }
        case .watch(let spec):
            guard explicitTransaction == nil else {
                throw StatementError("'watch' cannot run inside a transaction: it waits for commits ('commit' or 'rollback' first)", at: 0)
            }
            try QueryWatcher(store: store, query: StoreQuery(spec, arguments: arguments), context: context).run()
            return .none
        case .begin, .commit, .rollback:
            throw StatementError("'\(statement.keyword)' is handled by the shell")
        }
    }

    public func export(_ query: QuerySpec, context: ExecutionContext, columns: ([String]) throws -> Void,
                       row: (JSONObject) throws -> Void) throws {
        do {
            try read { snapshot in
                let model = try modelSchema(query.model)
                switch try StoreQuery(query, arguments: ParameterValues(context.arguments)).answer(in: snapshot) {
                case .objects(let results):
                    try columns(ResultRows.columns(of: model))
                    let nested = StoreDump.linksWrittenNested(model, schema: store.schema)
                    let leftOut = model.primaryKey == nil && !nested.isEmpty
                        ? try StoreDump.nestedInOthers(results, model, nested, schema: store.schema) : []
                    for (i, object) in results.enumerated() {
                        if i % 1024 == 0, context.isCancelled { throw StatementError("export interrupted") }
                        if leftOut.contains(object.identity) { continue }
                        try row(try ResultRows.json(of: object, links: nested, schema: store.schema))
                    }
                case .rows(let rows):
                    try columns(rows.columns)
                    // Row by row, each row's objects nested as it is written.
                    for (i, r) in rows.enumerated() {
                        if i % 1024 == 0, context.isCancelled { throw StatementError("export interrupted") }
                        try row(try ResultRows.nested(rows.columns, [r.values], [r.json], schema: snapshot.schema) { try snapshot.object($0) }[0])
                    }
                case .value:
                    throw StatementError("export takes a query; an aggregate has no objects to export")
                }
            }
        } catch let error as QueryError {
            throw StatementError(error, at: error.location.offset)
        } catch let error as StoreError {
            throw StatementError(error, models: store.schema.models.map(\.name))
        }
    }

    // MARK: Maintenance

    public var isEncrypted: Bool { store.configuration.encryptionKey != nil }

    public var openWarnings: [String] {
        var warnings: [String] = []
        if let discarded = store.discardedCommit {
            if let version = discarded.version {
                warnings.append(Self.setAside(version, discarded.reason) + ", so the store opened at version \(discarded.openedVersion)."
                    + (discarded.metaPageFailed && !discarded.metaPageMayBeTorn
                        ? " That commit returned since the machine booted, so the file is damaged."
                        : " A crash while that commit was written does this; so does damage to the file.")
                    + " If that commit matters, copy the file before writing to it.")
            } else {
                warnings.append("the store opened at version \(discarded.openedVersion), but \(discarded.reason), so a newer"
                    + " commit may be lost to damage to the file. If it matters, copy the file before writing to it.")
            }
        }
        if let unapplied = unappliedSchemaChanges { warnings.append(unapplied) }
        if let losses = store.migrationLosses { warnings.append(losses.warning) }
        return warnings
    }

    /// What the schema file changes that a read-only open left unapplied: the store opens
    /// with the schema stored in it, since applying changes writes to the file (a change that
    /// needs a migration refuses the open instead).
    private var unappliedSchemaChanges: String? {
        guard store.configuration.readOnly, let wanted = store.configuration.schema else { return nil }
        return Self.unappliedSchemaChanges(wanted, to: store.schema, of: "store")
    }

    /// The warning of a read-only open of `current` (a "store", a "database") given the schema
    /// file `wanted`: what the file would change. Nil when it changes nothing.
    static func unappliedSchemaChanges(_ wanted: Schema, to current: Schema, of what: String) -> String? {
        guard wanted != current else { return nil }
        let plan = wanted.migrationPlan(from: current)
        var changes = plan.changes.map(\.description)
        if plan.newSchemaVersion != plan.oldSchemaVersion {
            changes.append("schemaVersion \(plan.oldSchemaVersion) to \(plan.newSchemaVersion)")
        }
        guard !changes.isEmpty else { return nil }
        return "the schema file is not applied, since --readonly cannot change the \(what) (\(changes.joined(separator: "; ")));"
            + " statements see the \(what)'s own schema"
    }

    /// The latest version's problems, after the newest commit the open set aside for failing
    /// its checks, while no write has replaced it: the pages of the version opened can all be
    /// sound in a file that damage cost a commit. A commit set aside because its meta page
    /// fails its checksum is a warning instead when a machine crash while that page was
    /// written can have left it (see "Recovery" in TroveStorage's `StorageProtocol.swift`).
    public func verify() throws -> VerifyFindings {
        var findings = VerifyFindings(problems: try store.verify().map(\.description))
        if let discarded = store.discardedCommit, store.latestVersion == discarded.openedVersion {
            let opened = ", and the store opened at version \(discarded.openedVersion)"
            guard let version = discarded.version else {
                findings.problems.insert(discarded.reason + opened, at: 0)
                return findings
            }
            if discarded.metaPageMayBeTorn {
                findings.warnings.append(Self.setAside(version, discarded.reason) + opened + "; a crash while that page was"
                    + " written leaves the same, so .verify passes, and the next write rewrites the page")
            } else {
                findings.problems.insert(Self.setAside(version, discarded.reason) + opened, at: 0)
            }
        }
        return findings
    }

    private static func setAside(_ version: UInt64, _ reason: String) -> String {
        "the newest commit (version \(version)) failed its checks (\(reason))"
    }

    public func statistics() throws -> StoreStatistics { try store.statistics() }

    public func vacuum() throws -> StoreVacuumReport {
        if store.configuration.readOnly { throw StatementError.readOnly("vacuum") }
        return try store.vacuum()
    }

    /// Without a key of its own, the copy keeps the store's encryption, so that it opens as
    /// the store does.
    public func writeCopy(toFile path: String, encryptionKey: [UInt8]?) throws -> UInt64 {
        do {
            return try store.writeCopy(toFile: path, encryptionKey: encryptionKey ?? store.configuration.encryptionKey)
        } catch let error as StoreError {
            throw StatementError("cannot write the copy '\(path)': \(error.description)")
        }
    }

    /// The store's file is replaced by a copy with the new key, which needs the store closed
    /// everywhere, here too: this backend lets go of it, and opens it again afterwards.
    public func changeEncryptionKey(to newKey: [UInt8]?) throws {
        guard explicitTransaction == nil else {
            throw StatementError("cannot change the key inside a transaction ('commit' or 'rollback' first)")
        }
        let configuration = store.configuration
        guard !configuration.readOnly else {
            throw StatementError.readOnly("change the key")
        }
        guard let path = configuration.path else {
            throw StatementError("cannot change the key of an in-memory store: it has no file")
        }
        do {
            store = try Store(configuration: .inMemory())
        } catch let error as StoreError {
            throw StatementError("cannot change the key: \(error.description)")
        }
        var failure: StoreError?
        var keys = [newKey, configuration.encryptionKey]
        do {
            try Store.changeEncryptionKey(ofStoreAt: path, from: configuration.encryptionKey, to: newKey)
        } catch let error as StoreError {
            failure = error
            keys.reverse()
        }
        // The file holds one of the two keys whatever happened: the expected one first.
        var reopened = configuration
        var reopenFailure: StoreError?
        for key in keys {
            reopened.encryptionKey = key
            do {
                store = try Store(configuration: reopened)
                reopenFailure = nil
                break
            } catch let error as StoreError {
                reopenFailure = reopenFailure ?? error
            }
        }
        if let reopenFailure {
            // A key's error names the file, which this message names already.
            let why = Self.keyProblem(reopenFailure, hasKey: keys[0] != nil)?.rawValue ?? reopenFailure.description
            throw StatementError("cannot open '\(path)' again: \(why); open it with .open")
        }
        if let failure {
            let changed = reopened.encryptionKey == newKey && newKey != configuration.encryptionKey
            throw StatementError("cannot change the key: \(failure.description)" + (changed ? " (the store has the new key)" : "; the key is unchanged"))
        }
    }

    public func setBusyTimeout(_ timeout: Duration?) throws { store.busyTimeout = timeout }

    /// Opens the store again with the new schema, which applies it as opening with `--schema`
    /// does; the store open until then stays in use if that fails. A second `Store` on the same
    /// file (or named in-memory store) is safe while the first is open.
    public func applySchema(_ text: String, source: String) throws {
        guard explicitTransaction == nil else {
            throw StatementError("cannot apply a schema inside a transaction ('commit' or 'rollback' first)")
        }
        guard !store.configuration.readOnly else {
            throw StatementError.readOnly("apply a schema")
        }
        var configuration = store.configuration
        do {
            configuration.schema = try Schema(jsonData: Array(text.utf8), fileName: source)
        } catch {
            throw StatementError("bad schema: \(error.description)")
        }
        do {
            store = try Store(configuration: configuration)
        } catch StoreError.migrationRequired(let detail) {
            // Changes that need a higher schemaVersion name that way already.
            let lower = (configuration.schema?.schemaVersion ?? 0) < store.schema.schemaVersion
            throw StatementError("cannot apply the schema: \(detail)"
                + (lower ? " (raise schemaVersion, or open the store with --reset-on-migration to wipe it)" : ""))
        } catch let error as StoreError {
            throw StatementError("cannot apply the schema: \(error.description)")
        }
    }

    public func dump(models: [String], write: @escaping (String) throws -> Void, warn: @escaping (String) -> Void) throws {
        try read { snapshot in
            try StoreDump(source: snapshot, models: models, write: write, warn: warn).run()
        }
    }

    // MARK: Helpers

    /// The model a statement names, or an error pointing at the name.
    func modelSchema(_ name: SourceFragment) throws -> ModelSchema {
        if let m = store.schema[name.text] { return m }
        throw StatementError.noModel(named: name.text, among: store.schema.models.map(\.name), at: name.offset)
    }

    /// Runs `body` on the open transaction (so it sees its writes) or a fresh snapshot.
    private func read<R>(_ body: (Snapshot) throws -> R) throws -> R {
        if let tx = explicitTransaction { return try body(tx) }
        return try store.read(body)
    }

    /// Runs `body` in the open transaction, or in one of its own that commits before this
    /// returns (and, when `body` throws, rolls back whatever it wrote).
    private func write<R>(_ body: (Transaction) throws -> R) throws -> R {
        guard let tx = explicitTransaction else { return try store.write(body) }
        return try body(tx)
    }
}

extension ModelDescription {
    init(_ model: ModelSchema) {
        self.init(name: model.name, primaryKey: model.primaryKey, properties: model.properties.map { p in
            PropertyDescription(name: p.name, type: p.typeString, objectType: p.objectType, linkProperty: p.originProperty,
                                isIndexed: model.isIndexed(p), defaultValue: p.defaultValue?.jsonValue)
        })
    }
}
