import Trove

/// What the shell needs from a store, and all it knows of one.
///
/// The shell parses the command line, splits and recognizes statements, prints results and
/// runs the REPL; a backend interprets recognized statements against a store. Errors a
/// backend throws are printed as `error: ...`: throw `StatementError` with an offset
/// (UTF-8, from the statement's start) to have the line and column named.
public protocol ShellBackend: AnyObject {
    /// The store's models in schema order, for `.models`, `.schema` and tab completion.
    func models() throws -> [ModelDescription]

    /// The schema's `schemaVersion`, which `.schema` prints with the models.
    func schemaVersion() throws -> Int

    /// Runs one statement other than `begin`/`commit`/`rollback` (which have their own
    /// methods) and `export` (which arrives as its `.query`; the shell writes the file).
    /// A write outside an explicit transaction must be atomic and committed before this
    /// returns.
    func execute(_ statement: ShellStatement, context: ExecutionContext) throws -> ShellResult

    /// Starts an explicit transaction around the following statements.
    func begin() throws
    func commit() throws
    func rollback() throws
    /// Whether an explicit transaction is open (write summaries wait for its commit).
    var isInTransaction: Bool { get }
    /// Whether the open transaction can do nothing more whichever statement failed it, a read
    /// included (PostgreSQL's serialization failure): the shell then fails it
    /// (`TransactionFailure`) as it fails one whose write failed. The default: never.
    var transactionCannotGoOn: Bool { get }

    /// Streams the objects of `export`'s query: `columns` once, before any row, then `row`
    /// for each object in order, so that an export of any size needs no more memory than
    /// one object. The default runs the query with `execute` and hands over its rows.
    func export(_ query: QuerySpec, context: ExecutionContext, columns: ([String]) throws -> Void,
                row: (JSONObject) throws -> Void) throws

    /// What opening the store found that the user should know, printed as `warning: ...`
    /// before any command runs. The default has none.
    var openWarnings: [String] { get }

    /// Whether the open store is encrypted: the shell then writes none of its statements to
    /// the history file, since they may hold plaintext of its objects. The default: no.
    var isEncrypted: Bool { get }

    /// `.verify`: the problems found in the latest committed version, each naming its page
    /// (none when the store is sound), and what it should warn of. The default says the
    /// backend has no store to check.
    func verify() throws -> VerifyFindings

    /// `.dbinfo`: how the store's file uses its space.
    func statistics() throws -> StoreStatistics

    /// `.vacuum`: shrinks the store's file online (``Store/vacuum()``).
    func vacuum() throws -> StoreVacuumReport

    /// `.backup FILE [KEYFILE]`: writes a compacted copy of the latest committed version to the
    /// new file `path` and returns its size in bytes. The copy is encrypted with
    /// `encryptionKey`, or when nil with the store's own key (none for a plain store).
    func writeCopy(toFile path: String, encryptionKey: [UInt8]?) throws -> UInt64

    /// `.copy TARGET [--replace]`: copies every object into `target` (a PostgreSQL URL or a
    /// store file, whichever this backend is not) in one transaction on the target, which must
    /// hold no objects unless `replacing`. The default says the backend has no store to copy.
    func copy(to target: String, replacing: Bool) throws

    /// `.rekey`: changes the store's encryption key to `newKey` (nil: none, a plain store),
    /// after which the store stays open with the new key.
    func changeEncryptionKey(to newKey: [UInt8]?) throws

    /// `.apply-schema`: applies the schema file text `text` (from `source`, named in errors)
    /// to the open store with the migration rules of `--schema`.
    func applySchema(_ text: String, source: String) throws

    /// `.timeout`: how long the next writes wait for another writer of the store (nil: until
    /// it is done).
    func setBusyTimeout(_ timeout: Duration?) throws

    /// `.dump [MODEL ...]`: writes statements that rebuild the store (or the objects of
    /// `models`, when not empty) through `write`, and problems through `warn`.
    func dump(models: [String], write: @escaping (String) throws -> Void, warn: @escaping (String) -> Void) throws
}

extension ShellBackend {
    public func export(_ query: QuerySpec, context: ExecutionContext, columns: ([String]) throws -> Void,
                       row: (JSONObject) throws -> Void) throws {
        try exportAnswer(query, context: context, columns: columns, row: row)
    }

    /// `export` as the default runs it: the query run by `execute`, its rows handed over.
    func exportAnswer(_ query: QuerySpec, context: ExecutionContext, columns: ([String]) throws -> Void,
                      row: (JSONObject) throws -> Void) throws {
        guard case .objects(let set) = try execute(.query(query), context: context) else {
            throw StatementError("export: the query returned no objects")
        }
        try columns(set.effectiveColumns)
        for object in set.rows { try row(object) }
    }

    public func schemaVersion() throws -> Int { 0 }
    public var openWarnings: [String] { [] }
    public var isEncrypted: Bool { false }
    public var transactionCannotGoOn: Bool { false }
    public func verify() throws -> VerifyFindings { throw Self.noStore(".verify") }
    public func statistics() throws -> StoreStatistics { throw Self.noStore(".dbinfo") }
    public func writeCopy(toFile path: String, encryptionKey: [UInt8]?) throws -> UInt64 { throw Self.noStore(".backup") }
    public func changeEncryptionKey(to newKey: [UInt8]?) throws { throw Self.noStore(".rekey") }
    public func copy(to target: String, replacing: Bool) throws { throw Self.noStore(".copy") }
    public func vacuum() throws -> StoreVacuumReport { throw Self.noStore(".vacuum") }
    public func applySchema(_ text: String, source: String) throws { throw Self.noStore(".apply-schema") }
    public func setBusyTimeout(_ timeout: Duration?) throws { throw Self.noStore(".timeout") }
    public func dump(models: [String], write: @escaping (String) throws -> Void, warn: @escaping (String) -> Void) throws {
        throw Self.noStore(".dump")
    }

    private static func noStore(_ command: String) -> StatementError {
        StatementError("cannot run '\(command)': this backend has no store file")
    }
}
