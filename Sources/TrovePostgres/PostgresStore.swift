import Trove

/// A Trove schema's objects in a PostgreSQL database: the same models, query language and
/// null rules as a store file, on a server shared by many clients.
///
/// ```swift
/// let store = try PostgresStore(url: "postgres://app@db.example/trove", schema: schema)
/// try store.insert("Person", ["name": "Ada", "age": 36])
/// let adults = try store.objects("Person where age >= 18 SORT(name)")
/// ```
///
/// Each write outside `begin()`/`commit()` is one transaction of its own: a connection lost
/// while one runs leaves unknown whether the server committed it
/// (``PostgresError/isOutcomeUnknown``), as for a commit.
public final class PostgresStore {
    public let connection: PostgresConnection
    /// The schema the database holds.
    public private(set) var schema: Schema {
        didSet {
            translations.removeAll()
            objectTranslations.removeAll()
            rowTranslations.removeAll()
            aggregateTranslations.removeAll()
            keptCheck = nil
            insertPlans.removeAll()
        }
    }
    /// How the schema lies in the database's tables.
    var tables: PostgresTables { PostgresTables(schema: schema, schemaName: connection.schemaName) }
    /// The foreign keys of the schema's tables, by which a broken one names its link.
    private(set) var foreignKeys = PostgresForeignKeys()
    public private(set) var isInTransaction = false
    /// What failed the open transaction (another client's conflicting commit, a lost
    /// connection): later statements are refused, and `commit()` rolls it back.
    public private(set) var transactionFailure: PostgresError?
    /// Whether an `atomically` unit is running.
    private(set) var isInUnit = false

    /// Connects to `url` and makes the database hold `schema` (creating its tables, or
    /// applying additive changes to the ones there). With no schema, the database's own is
    /// used; a database without one opens with no models, as a new store file does, and
    /// nothing is created in it until a schema is applied (``apply(_:)``), so that a role
    /// that may not create tables can still open it.
    ///
    /// A `readOnly` store uses the database's own schema, and its session is read-only
    /// (`default_transaction_read_only`): the server refuses every write. A `schema` that
    /// only adds to the database's is left unapplied; one that a read-write open would
    /// refuse is refused here too (``PostgresError/refusedMigration``).
    public init(url: String, schema: Schema? = nil, readOnly: Bool = false) throws {
        connection = try PostgresConnection(url: url)
        // Strings compare by their NFC forms, and PostgreSQL's normalize() takes UTF8 alone.
        let encoding = try connection.execute("SHOW server_encoding").rows.first?.first ?? nil
        guard encoding == "UTF8" else {
            throw PostgresError("the database '\(connection.database)' has server encoding \(encoding ?? "unknown"); Trove needs a UTF8 database")
        }
        if readOnly {
            try connection.execute("SET default_transaction_read_only = on")
            guard let stored = try PostgresSchemaInstaller.stored(connection) else {
                throw PostgresError("the database '\(connection.database)' holds no Trove schema, and a read-only client cannot install one")
            }
            if let schema { try PostgresSchemaInstaller.checkApplicable(schema, over: stored.schema) }
            (self.schema, foreignKeys) = stored
        } else if let schema {
            (self.schema, foreignKeys) = try Self.install(schema, on: connection)
        } else if let stored = try PostgresSchemaInstaller.upgraded(connection) {
            (self.schema, foreignKeys) = stored
        } else {
            self.schema = try Schema(models: [])
        }
    }

    /// Applies `schema` to the database with the rules of `init(url:schema:)`.
    public func apply(_ schema: Schema) throws {
        (self.schema, foreignKeys) = try Self.install(schema, on: connection)
    }

    private static func install(_ schema: Schema, on connection: PostgresConnection) throws -> (Schema, PostgresForeignKeys) {
        do {
            return try PostgresSchemaInstaller.install(schema, on: connection)
        } catch let error as PostgresError where error.sqlState == "42501" || error.sqlState == "25006" {
            // No right to create or change tables, or a read-only server: say what was refused.
            throw PostgresError("cannot apply the schema to the database '\(connection.database)': \(error.message)", sqlState: error.sqlState)
        }
    }

    func model(_ name: String) throws -> ModelSchema {
        guard let model = schema[name] else { throw StoreError.noSuchModel(name) }
        return model
    }

    /// Statements are checked as a store binds them before they are translated, so that
    /// what a store refuses is refused with its `QueryError` (kind, message and position).
    var queryCheck: QueryCheck {
        if let keptCheck { return keptCheck }
        let check = QueryCheck(schema: schema)
        keptCheck = check
        return check
    }
    private var keptCheck: QueryCheck?

    // MARK: Transactions

    /// Opens a transaction. It is serializable, as a store's are (they take turns): when
    /// another client commits a change to the same objects first, a statement or the commit
    /// throws an error whose `isSerializationFailure` is true, rather than losing an update;
    /// the transaction then fails, and running it again may succeed.
    public func begin() throws {
        guard !isInTransaction else { throw PostgresError("a transaction is already open") }
        try connection.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
        isInTransaction = true
        transactionFailure = nil
        unitFailure = nil
        undoHandlers = [[]]
    }

    /// Commits the open transaction. A commit that loses the connection throws an error whose
    /// `isOutcomeUnknown` is true: whether the server committed is unknown.
    public func commit() throws {
        guard isInTransaction else { throw PostgresError("no transaction is open") }
        isInTransaction = false
        var end = UnitEnd.rolledBack
        defer { endUndoLevel(end, all: true) }
        if let failure = transactionFailure {
            transactionFailure = nil
            _ = try? connection.execute("ROLLBACK")
            throw PostgresError("the transaction was rolled back, not committed: a statement in it failed (\(failure.message))", sqlState: failure.sqlState)
        }
        do {
            try connection.commit()
            end = .kept
        } catch let error as PostgresError where error.isSerializationFailure {
            throw Self.conflict(error)
        } catch let error as PostgresError where error.isOutcomeUnknown {
            end = .outcomeUnknown
            throw error
        }
    }

    public func rollback() throws {
        guard isInTransaction else { throw PostgresError("no transaction is open") }
        isInTransaction = false
        transactionFailure = nil
        defer { endUndoLevel(.rolledBack, all: true) }
        try connection.execute("ROLLBACK")
    }

    /// What to run when the work of the open transaction, or of an `atomically` unit under a
    /// savepoint in it, is not committed: a list for the transaction, then one for each unit
    /// open in it, the innermost last. A unit that succeeds hands its list to the level around
    /// it, which may still be undone; a commit drops them all.
    private var undoHandlers: [[(UnitEnd) -> Void]] = []

    /// How the work of a transaction or unit ended.
    enum UnitEnd {
        /// Committed, or a unit's savepoint released: its work stands as long as the level
        /// around it does.
        case kept
        case rolledBack
        /// The connection was lost during the commit: it may have been committed or not.
        case outcomeUnknown
    }

    /// Runs `handler` with how it ended if what the open transaction (or the unit open in it)
    /// wrote so far is rolled back, or its commit's outcome is unknown, so that a client's
    /// view of the rows (`PostgresRepository`'s entities) can follow; nothing outside a
    /// transaction, where each write is durable when it returns.
    func whenNotCommitted(_ handler: @escaping (UnitEnd) -> Void) {
        guard !undoHandlers.isEmpty else { return }
        undoHandlers[undoHandlers.count - 1].append(handler)
    }

    /// Ends the innermost level of `undoHandlers` (every level when `all`): when its work was
    /// not committed its handlers run, the latest first; else they pass to the level around
    /// it, or are dropped at the transaction's commit.
    private func endUndoLevel(_ end: UnitEnd, all: Bool = false) {
        repeat {
            guard let handlers = undoHandlers.popLast() else { return }
            if end != .kept {
                for handler in handlers.reversed() { handler(end) }
            } else if !undoHandlers.isEmpty {
                undoHandlers[undoHandlers.count - 1] += handlers
            }
        } while all
    }

    /// A serialization failure, saying what happened and what to do.
    /// `error` with the advice a conflict gives, once: a list row's conflict is worded so where
    /// it is raised, and passes through the statement's and the commit's handlers again.
    private static func conflict(_ error: PostgresError) -> PostgresError {
        if error.message.hasSuffix(conflictAdvice) { return error }
        return PostgresError("\(error.message)\(conflictAdvice)", sqlState: error.sqlState)
    }
    private static let conflictAdvice = ": another client committed a change to the same objects first; the transaction is rolled back, run it again"

    /// Runs `body` as one unit: in a transaction of its own, or in the open one under a
    /// savepoint, so that when it throws nothing it wrote remains. A unit run inside another
    /// has a savepoint of its own: when it throws, only what it wrote is undone, and the unit
    /// around it may catch the error and go on. (A `Store`'s `write` nested in another joins
    /// it instead: what the inner one wrote before throwing stays when the outer one goes on.)
    ///
    /// The statements of a unit have no savepoint each, so that a unit costs no more round
    /// trips than its statements: a statement the server refuses fails the unit. Its error is
    /// thrown where the statement ran, and should the body catch it, later statements are
    /// refused, and the unit throws it when the body returns. So does a write that fails after
    /// it changed a row (a change of primary key refused once the nested objects it sets were
    /// written); one refused before it sends anything leaves the unit going. (On a `Store`, a
    /// failed statement changes nothing and the transaction goes on.)
    public func atomically<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction { try refuseInFailedTransaction() }
        let outer = (isInUnit, unitFailure)
        isInUnit = true
        unitFailure = nil
        defer { (isInUnit, unitFailure) = outer }
        guard isInTransaction else {
            try begin()
            do {
                let value = try body()
                if let failure = unitFailure { throw failure }
                try commit()
                return value
            } catch {
                if isInTransaction { try? rollback() }
                throw error
            }
        }
        // Named by depth: ROLLBACK TO keeps the savepoint it returns to, so a name shared by
        // the levels could leave an outer unit's ROLLBACK TO the inner one's.
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let savepoint = "trove_unit_\(savepointDepth)"
        try connection.execute("SAVEPOINT \(savepoint)")
        undoHandlers.append([])
        do {
            let value = try body()
            if let failure = unitFailure { throw failure }
            try refuseInFailedTransaction()
            try connection.execute("RELEASE SAVEPOINT \(savepoint)")
            endUndoLevel(.kept)
            return value
        } catch {
            // A failed transaction is undone whole, at its end.
            let undone = transactionFailure == nil && rollBack(to: savepoint)
            endUndoLevel(undone ? .rolledBack : .kept)
            throw error
        }
    }

    /// How many unit savepoints are open.
    private var savepointDepth = 0

    /// The first statement that failed in the innermost unit, whose statements have no
    /// savepoint each: the server refuses the unit's later statements until it is undone.
    private var unitFailure: Error?

    /// Undoes what was written since `savepoint` and ends it, so that the next savepoint's
    /// name is its own again; whether it was undone. When that fails the transaction does.
    private func rollBack(to savepoint: String) -> Bool {
        do {
            try connection.execute("ROLLBACK TO SAVEPOINT \(savepoint)")
        } catch {
            transactionFailure = error as? PostgresError ?? PostgresError("\(error)")
            return false
        }
        do {
            try connection.execute("RELEASE SAVEPOINT \(savepoint)")
        } catch {
            transactionFailure = error as? PostgresError ?? PostgresError("\(error)")
        }
        return true
    }

    /// Throws the refusal of a statement (or a unit) in a failed transaction, or in a unit
    /// whose statement failed.
    private func refuseInFailedTransaction() throws {
        guard let failure: Error = transactionFailure ?? unitFailure else { return }
        let postgres = failure as? PostgresError
        let message = postgres?.message ?? "\(failure)"
        throw PostgresError("the transaction failed (\(message)); statements are refused until rollback", sqlState: postgres?.sqlState)
    }

    /// Whether `write(oneStatement: true)` runs its body as it is, with no savepoint around
    /// it: what a statement left open across calls (a streamed COPY) needs.
    var writesWithoutSavepoint: Bool { !isInTransaction || isInUnit }

    /// Runs a read; in an open transaction under a savepoint, so that a failed statement
    /// leaves the transaction usable.
    func read<T>(_ body: () throws -> T) throws -> T {
        isInTransaction ? try write(body) : try body()
    }

    /// Runs `body` atomically: in the open transaction (under a savepoint, so that a failed
    /// statement leaves the transaction usable, unless an `atomically` unit already is one),
    /// or in one of its own. A body of `oneStatement` is atomic by itself: outside a
    /// transaction it runs alone, without the round trips of `BEGIN` and `COMMIT`, and a
    /// connection lost meanwhile leaves its outcome unknown, as a commit's.
    ///
    /// In a unit a write has no savepoint (`atomically`): its values are checked before it
    /// sends anything (`CheckedValues`), so that what the client refuses leaves the unit going;
    /// a write that fails once it has changed a row fails the unit, as a statement the server
    /// refuses does, so that nothing of it is committed.
    func write<T>(oneStatement: Bool = false, _ body: () throws -> T) throws -> T {
        guard isInTransaction else { return oneStatement ? try connection.committing(body) : try connection.transaction(body) }
        try refuseInFailedTransaction()
        let savepoint = !isInUnit
        let rowsWritten = connection.rowsWritten
        do {
            if savepoint { try connection.execute("SAVEPOINT trove_statement") }
            let value = try body()
            if savepoint { try connection.execute("RELEASE SAVEPOINT trove_statement") }
            return value
        } catch let error as PostgresError where error.isSerializationFailure || error.isConnectionLost {
            // The transaction cannot do what was asked of it any more: it fails as a whole.
            let failure = error.isSerializationFailure ? Self.conflict(error) : error
            transactionFailure = failure
            throw failure
        } catch {
            if savepoint {
                _ = rollBack(to: "trove_statement")
            } else if connection.isTransactionFailed || connection.rowsWritten != rowsWritten {
                unitFailure = error
            }
            throw error
        }
    }

    // MARK: Queries

    /// The statement and parameters a query runs as.
    public func sql(_ queryText: String, arguments: [Value] = []) throws -> (sql: String, parameters: [String?]) {
        let query = try parsed(queryText)
        try queryCheck.check(.query(query), text: queryText, arguments: arguments)
        var translator = PostgresQueryTranslator(tables: tables, arguments: arguments)
        let sql = try Self.translating(queryText) { try translator.select(query) }
        return (sql, translator.parameters.values)
    }

    /// What a statement of the query language gives.
    public enum Answer: Sendable, Equatable {
        case objects(PostgresObjects)
        /// A query with SELECT or GROUP.
        case rows(PostgresProjectedRows)
        /// `sum`, `avg`, `min`, `max`: the function's name and its value.
        case value(String, Value)
    }

    /// Runs a query (`Person where age > 3`, `Person GROUP(age) SELECT(age, @count)`) or an
    /// aggregate statement (`sum Person.age where ...`). A statement a store refuses throws
    /// the store's `QueryError`.
    public func run(_ text: String, arguments: [Value] = []) throws -> Answer {
        let statement = try Self.cached(text, in: &parsedStatements, parse: QueryParser.parseStatement)
        switch statement {
        case .query(let query) where !query.select.isEmpty || !query.group.isEmpty:
            let (sql, parameters, columns) = try rowsTranslation(statement, query, text, arguments: arguments)
            func exactRows() throws -> Answer {
                // The exact form's answer stands (`PostgresQueryTranslator.doubleSum`).
                var translator = PostgresQueryTranslator(tables: tables, arguments: arguments)
                translator.exactSums = true
                let (sql, columns) = try Self.translating(text) { try translator.rows(query) }
                return .rows(try projectedRows(query, text, arguments: arguments, sql: sql, parameters: translator.parameters.values, columns: columns))
            }
            let rows: PostgresProjectedRows
            do {
                rows = try projectedRows(query, text, arguments: arguments, sql: sql, parameters: parameters, columns: columns)
            } catch is FastSumHidesAnOverflow {
                return try exactRows()
            }
            guard rows.fastSumsAreFinite(columns) else { return try exactRows() }
            return .rows(rows)
        case .query:
            return .objects(try objects(text, arguments: arguments))
        case .aggregate(let aggregate):
            let (sql, parameters, type) = try aggregateTranslations.translation(.aggregate, text, arguments: arguments) {
                try queryCheck.check(statement, text: text, arguments: arguments)
                var translator = PostgresQueryTranslator(tables: tables, arguments: arguments)
                let (sql, type) = try Self.translating(text) { try translator.aggregate(aggregate) }
                return (sql, translator.parameters, type, aggregate.predicate)
            }
            let value = try aggregateValue(aggregate, text, arguments: arguments, sql: sql, parameters: parameters, type: type)
            if aggregate.function == .sum || aggregate.function == .avg, case .value(_, .double(let fast)) = value, !fast.isFinite {
                // A fast sum that is not finite: the exact form's answer stands (`PostgresQueryTranslator.doubleSum`).
                var translator = PostgresQueryTranslator(tables: tables, arguments: arguments)
                translator.exactSums = true
                let (sql, type) = try Self.translating(text) { try translator.aggregate(aggregate) }
                return try aggregateValue(aggregate, text, arguments: arguments, sql: sql, parameters: translator.parameters.values, type: type)
            }
            return value
        }
    }

    /// What statement `text` answers, known from its translation before it runs: a caller that
    /// reads the answer's links to objects without a primary key (which `.reference` stands
    /// for) runs it once, in the snapshot it reads those objects in.
    public enum AnswerKind: Sendable, Equatable {
        /// Objects of the model of this name.
        case objects(model: String)
        /// Rows of SELECT or GROUP, `readsReferences` when a column holds links to objects of a
        /// model without a primary key (`.reference`, or a list of them).
        case rows(readsReferences: Bool)
        /// An aggregate statement's value.
        case value
    }

    /// What statement `text` answers (`AnswerKind`), without running it. A statement `run`
    /// refuses is refused here as there.
    public func answerKind(of text: String, arguments: [Value] = []) throws -> AnswerKind {
        let statement = try Self.cached(text, in: &parsedStatements, parse: QueryParser.parseStatement)
        switch statement {
        case .query(let query) where !query.select.isEmpty || !query.group.isEmpty:
            let columns = try rowsTranslation(statement, query, text, arguments: arguments).reading
            return .rows(readsReferences: columns.contains { column in
                switch column.reading {
                case .reference, .references: true
                default: false
                }
            })
        case .query(let query): return .objects(model: query.model.name)
        case .aggregate: return .value
        }
    }

    /// The SQL, parameters and columns of `query` (`statement`, `text`), a query with SELECT
    /// or GROUP, kept for running again.
    private func rowsTranslation(_ statement: QueryStatement, _ query: Query, _ text: String,
                                 arguments: [Value]) throws -> (sql: String, parameters: [String?], reading: [PostgresProjectedColumn]) {
        try rowTranslations.translation(.rows, text, arguments: arguments) {
            try queryCheck.check(statement, text: text, arguments: arguments)
            var translator = PostgresQueryTranslator(tables: tables, arguments: arguments)
            let (sql, columns) = try Self.translating(text) { try translator.rows(query) }
            return (sql, translator.parameters, columns, query.predicate)
        }
    }

    /// The rows of `query` (`text`), run as `sql` and read as `columns`, with a store's errors.
    private func projectedRows(_ query: Query, _ text: String, arguments: [Value], sql: String, parameters: [String?],
                               columns: [PostgresProjectedColumn]) throws -> PostgresProjectedRows {
        let rows: PostgresRows
        do {
            rows = try read { try connection.execute(sql, parameters) }
        } catch let error as PostgresError where error.sqlState == "22003" {
            // A store computes the condition before the items.
            let model = try model(query.model.name)
            let only = !columns.contains(where: \.overflows)
            if let refusal = try overflowingSum(in: query.predicate, model: model, text, arguments: arguments, only: only)
                ?? overflowingColumn(query, columns, text, arguments: arguments) { throw refusal }
            throw error
        }
        do {
            return try PostgresProjectedRows(columns: columns, rows: rows.rows)
        } catch let error as PostgresProjectedRows.DecimalSumOutOfRange {
            // A fast double sum beside it may be an infinity where the exact form overflows, in
            // an item a store computes first: the exact form names the sum.
            if columns.contains(where: \.fastSum) { throw FastSumHidesAnOverflow() }
            guard query.select.indices.contains(error.column), let refusal = Self.sumOutOfRange(query.select[error.column], decimal: true, in: text) else {
                throw PostgresError("the sum in column \(error.column + 1) is out of the range of decimal")
            }
            throw refusal
        }
    }

    /// A decimal sum out of range in rows whose fast double sums (`PostgresProjectedColumn.fastSum`)
    /// may hide an overflow of the exact form: the statement runs again exactly.
    private struct FastSumHidesAnOverflow: Error {}

    /// The value of the aggregate statement `aggregate` (`text`), run as `sql`, of `type`,
    /// with a store's errors.
    private func aggregateValue(_ aggregate: QueryAggregateStatement, _ text: String, arguments: [Value], sql: String, parameters: [String?],
                                type: PropertyType) throws -> Answer {
        let rows = try summing(aggregate, text, arguments: arguments, fractional: type != .int) { try read { try connection.execute(sql, parameters) } }
        let row = rows.rows.first ?? []
        let name = String(aggregate.function.rawValue.dropFirst())
        if aggregate.function == .avg, type == .decimal {
            return .value(name, try PostgresValues.decimalAverage(sum: row.first ?? nil, count: row.count > 1 ? row[1] : nil))
        }
        if aggregate.function == .sum, type == .decimal, let keyPath = aggregate.keyPath {
            guard let sum = try PostgresValues.decimalSum(row.first ?? nil) else {
                throw QueryError.sumOutOfRange(keyPath.description, decimal: true, at: keyPath.range.start, in: text)
            }
            return .value(name, sum)
        }
        return .value(name, try PostgresValues.value(row.first ?? nil, type: type))
    }

    /// The store's error for the SELECT item whose sum left its type's range, where PostgreSQL
    /// ran `query` (translated as `columns`) into "out of range" (22003); nil when no item
    /// can. Only the items that can overflow (`PostgresProjectedColumn.overflows`) are
    /// candidates; of several, the first in SELECT order that fails alone is the one, as a
    /// store computes them in that order: each is run again with the items that cannot
    /// overflow, which keeps SORT's names (without SORT, OFFSET and LIMIT when it names an
    /// item left out). A query that succeeds pays nothing for this. In a unit (`atomically`),
    /// whose transaction the statement failed, the first candidate is named without re-checks.
    private func overflowingColumn(_ query: Query, _ columns: [PostgresProjectedColumn], _ text: String, arguments: [Value]) throws -> QueryError? {
        guard columns.count == query.select.count else { return nil }
        let candidates = columns.indices.filter { columns[$0].overflows }
        func refusal(_ index: Int) -> QueryError? {
            let fractional = if case .scalar(.int) = columns[index].reading { false } else { true }
            return Self.sumOutOfRange(query.select[index], fractional: fractional, in: text)
        }
        // A unit's failed statement failed its transaction: nothing more runs there.
        guard candidates.count > 1, !isInUnit else { return candidates.first.flatMap(refusal) }
        for candidate in candidates {
            var alone = query
            alone.select = query.select.indices.filter { !columns[$0].overflows || $0 == candidate }.map { query.select[$0] }
            // The exact form: a fast sum overflows only where it does, but can be an infinity
            // where it overflows (`PostgresQueryTranslator.doubleSum`).
            var translator = PostgresQueryTranslator(tables: tables, arguments: arguments)
            translator.exactSums = true
            var translated = try? translator.rows(alone)
            if translated == nil {
                // SORT names an item left out: the groups or objects unordered, all of them.
                (alone.sort, alone.offset, alone.limit) = ([], 0, nil)
                translator = PostgresQueryTranslator(tables: tables, arguments: arguments)
                translator.exactSums = true
                translated = try? translator.rows(alone)
            }
            guard let sql = translated?.sql else { continue }
            do {
                _ = try read { try connection.execute(sql, translator.parameters.values) }
            } catch let error as PostgresError where error.sqlState == "22003" {
                return refusal(candidate)
            }
        }
        return refusal(candidates[0])
    }

    /// `body`'s result; PostgreSQL's "out of range" (SQLSTATE 22003) of a sum becomes the
    /// store's error for the same sum, at the same place: a sum of the condition's
    /// (`overflowingSum`), which a store computes first, else the aggregate statement's key
    /// path; `fractional` says whether it adds fractional numbers. Nothing else in these
    /// statements' SQL leaves the range of its type.
    private func summing<T>(_ aggregate: QueryAggregateStatement, _ text: String, arguments: [Value], fractional: Bool, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError where error.sqlState == "22003" {
            let sums = aggregate.function == .sum || aggregate.function == .avg
            if let refusal = try overflowingSum(in: aggregate.predicate, model: model(aggregate.model.name), text, arguments: arguments, only: !sums) {
                throw refusal
            }
            if sums, let keyPath = aggregate.keyPath {
                throw QueryError.sumOutOfRange(keyPath.description, fractional: fractional, at: keyPath.range.start, in: text)
            }
            throw error
        }
    }

    /// The store's error for the sum of the SELECT item `item` beyond its type's range, at the
    /// same place; nil for an item that is no sum or average.
    private static func sumOutOfRange(_ item: QuerySelectItem, fractional: Bool = false, decimal: Bool = false, in text: String) -> QueryError? {
        switch item.kind {
        case .groupAggregate(.sum, let keyPath?), .groupAggregate(.avg, let keyPath?):
            return QueryError.sumOutOfRange(keyPath.description, fractional: fractional, decimal: decimal, at: keyPath.range.start, in: text)
        case .listAggregate(let aggregate) where aggregate.function == .sum || aggregate.function == .avg:
            let summed = aggregate.collection.description + (aggregate.property.map { "." + $0.description } ?? "")
            return QueryError.sumOutOfRange(summed, fractional: fractional, decimal: decimal, at: aggregate.collection.range.start, in: text)
        default:
            return nil
        }
    }

    /// The objects a query statement (`Person where age > 3 SORT(name)`) selects, each as its
    /// stored properties in schema order.
    public func objects(_ queryText: String, arguments: [Value] = []) throws -> PostgresObjects {
        // A kept translation keeps what reading its rows takes, so a query run again (a lookup
        // in a loop) is found once, by its text, and neither parsed nor looked up again.
        let (sql, parameters, reading) = try objectTranslations.translation(.objects, queryText, arguments: arguments) {
            let query = try parsed(queryText)
            guard query.select.isEmpty, query.group.isEmpty else {
                throw PostgresError("a query with SELECT or GROUP gives rows, not objects: run it with run(_:arguments:)")
            }
            try queryCheck.check(.query(query), text: queryText, arguments: arguments)
            var translator = PostgresQueryTranslator(tables: tables, arguments: arguments)
            let sql = try Self.translating(queryText) { try translator.select(query) }
            let model = try model(query.model.name)
            return (sql, translator.parameters, ObjectReading(model: model, types: try PostgresObjects.types(model, schema: schema)), query.predicate)
        }
        let rows: PostgresRows
        do {
            rows = try read { try connection.execute(sql, parameters) }
        } catch let error as PostgresError where error.sqlState == "22003" {
            let query = try parsed(queryText)
            if let refusal = try overflowingSum(in: query.predicate, model: reading.model, queryText, arguments: arguments, only: true) { throw refusal }
            throw error
        }
        return try PostgresObjects(model: reading.model, types: reading.types, rows: rows.rows)
    }

    /// What reading a query's objects takes: their model, and the type each column is read as
    /// (`PostgresObjects.types`). A class, so that taking a kept translation copies one
    /// reference, not the model's every field.
    private final class ObjectReading {
        let model: ModelSchema
        let types: [PropertyType]

        init(model: ModelSchema, types: [PropertyType]) {
            self.model = model
            self.types = types
        }
    }

    /// Starts receiving a notification at each commit that changes the schema's tables, from
    /// any client; `connection.takeNotifications()` collects them. Commits to the tables of
    /// another PostgreSQL schema of the database send none, unless an older Trove made that
    /// schema's notify function (`PostgresTables.listenChannels`).
    public func listen() throws {
        for channel in PostgresTables.listenChannels(connection.schemaName) {
            try connection.execute("LISTEN \(PostgresTables.quoted(channel))")
        }
    }

    /// How many objects of `model` satisfy `predicate` (all when nil).
    public func count(_ model: String, where predicate: String? = nil, arguments: [Value] = []) throws -> Int {
        let model = try self.model(model)
        let (sql, parameters) = try translations.sql(.count(model: model.name, filtered: predicate != nil), predicate ?? "", arguments: arguments) {
            var translator = PostgresQueryTranslator(tables: tables, arguments: arguments)
            let checked = try checkedPredicate(predicate, model: model, arguments: arguments)
            let sql = try Self.translating(predicate ?? "") { try translator.count(model, where: checked) }
            return (sql, translator.parameters, checked)
        }
        let rows: PostgresRows
        do {
            rows = try read { try connection.execute(sql, parameters) }
        } catch let error as PostgresError where error.sqlState == "22003" {
            throw try overflowingSum(in: predicate, of: model, arguments: arguments) ?? error
        }
        return Int(rows.rows.first?.first.flatMap { $0 } ?? "0") ?? 0
    }

    /// PostgreSQL's plan of a query, after the SQL it runs.
    public func explain(_ queryText: String, arguments: [Value] = []) throws -> (sql: String, plan: [String]) {
        let sql: String, parameters: [String?]
        if case .aggregate(let aggregate)? = try? QueryParser.parseStatement(queryText) {
            try queryCheck.check(.aggregate(aggregate), text: queryText, arguments: arguments)
            var translator = PostgresQueryTranslator(tables: tables, arguments: arguments)
            sql = try Self.translating(queryText) { try translator.aggregate(aggregate).sql }
            parameters = translator.parameters.values
        } else {
            (sql, parameters) = try self.sql(queryText, arguments: arguments)
        }
        let plan = try read { try connection.execute("EXPLAIN " + sql, parameters) }.rows.map { $0.first.flatMap { $0 } ?? "" }
        return (sql, plan)
    }

    /// Parsed query texts, statements and predicates, by their bytes: one run again (with other
    /// arguments) is not parsed again.
    private var parsedQueries: [ExactText: Query] = [:]
    private var parsedStatements: [ExactText: QueryStatement] = [:]
    private var translations = PostgresTranslations<Void>()
    private var objectTranslations = PostgresTranslations<ObjectReading>()
    /// Translations of queries with SELECT or GROUP, with their columns, and of aggregate
    /// statements, with their value's type.
    private var rowTranslations = PostgresTranslations<[PostgresProjectedColumn]>()
    private var aggregateTranslations = PostgresTranslations<PropertyType>()
    /// What inserting an object of each model takes (see `insertPlan`), by model name.
    private var insertPlans: [String: InsertPlan] = [:]
    private var parsedPredicates: [ExactText: QueryPredicate] = [:]
    private static let parsedLimit = 256

    private func parsed(_ text: String) throws -> Query {
        try Self.cached(text, in: &parsedQueries, parse: Self.parse)
    }

    private func parsedPredicate(_ text: String) throws -> QueryPredicate {
        try Self.cached(text, in: &parsedPredicates, parse: Self.parsePredicate)
    }

    /// `text` parsed, from `cache` or into it; a full cache is emptied rather than ordered,
    /// since a working set of statements is far smaller than `parsedLimit`.
    private static func cached<T>(_ text: String, in cache: inout [ExactText: T], parse: (String) throws -> T) throws -> T {
        let key = ExactText(text)
        if let value = cache[key] { return value }
        let value = try parse(text)
        if cache.count >= parsedLimit { cache.removeAll() }
        cache[key] = value
        return value
    }

    static func parse(_ text: String) throws -> Query {
        try QueryParser.parseQuery(text)
    }

    static func parsePredicate(_ text: String) throws -> QueryPredicate {
        try QueryParser.parsePredicate(text)
    }

    /// Runs the translation of `text`: a construct it refuses is a `QueryError` that echoes
    /// the statement, as a store's do.
    static func translating<T>(_ text: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch var error as QueryError where error.statement == nil {
            error.statement = text
            throw error
        }
    }

    /// `text` parsed and checked as a predicate on `model`, as a store binds it.
    func checkedPredicate(_ text: String?, model: ModelSchema, arguments: [Value]) throws -> QueryPredicate? {
        guard let text else {
            // No predicate uses any argument given.
            try QueryParameters.check(arguments, of: nil, statement: nil)
            return nil
        }
        let predicate = try parsedPredicate(text)
        try queryCheck.check(predicate, model: model.name, text: text, arguments: arguments)
        return predicate
    }

    // MARK: Writes

    /// The values of a JSON object (as `insert` and import take it) for `model`: a link is
    /// its target's primary key, a list a JSON array.
    public func values(fromJSON json: JSONObject, model: String) throws -> [String: Value] {
        let model = try self.model(model)
        var values: [String: Value] = [:]
        for (name, item) in json.pairs {
            let property = try model.storedProperty(name)
            do {
                switch property.type {
                case .link(let target):
                    values[name] = try jsonScalar(item, as: try keyType(target), for: name, target: target)
                case .list(let element):
                    guard case .array(let items) = item else {
                        if case .null = item { values[name] = .list([]); continue }
                        throw PostgresError(CoercionError(property: name, type: property.type, found: item.typeDescription).description)
                    }
                    let type = try element.objectType.map(keyType) ?? element
                    values[name] = .list(try items.enumerated().map { try jsonScalar($1, as: type, for: name, target: element.objectType, element: $0 + 1) })
                default:
                    values[name] = try jsonScalar(item, as: property.type, for: name)
                }
            }
        }
        return values
    }

    /// `item` as a value of `type`, for the property `name` or for element `element` (from 1)
    /// of its list.
    private func jsonScalar(_ item: JSONValue, as type: PropertyType, for name: String, target: String? = nil, element: Int? = nil) throws -> Value {
        if case .null = item { return .null }
        if case .object(let object) = item {
            guard let target else { throw PostgresError("'\(name)' takes \(type), not an object") }
            return .object(try values(fromJSON: object, model: target))
        }
        // As in a store, an object without a primary key is given whole: a number would name
        // it by its internal `"@key"`, which no client sees.
        if let target, try model(target).primaryKey == nil {
            throw PostgresError(StoreError.typeMismatch(property: name, expected: "a nested object (\(target) has no primary key)", found: item.typeDescription).description)
        }
        do {
            return try Coercion.scalar(.json(item), as: type, for: name)
        } catch {
            throw PostgresError((element.map(error.inElement) ?? error).description)
        }
    }

    /// Inserts one object; properties left out get their defaults.
    public func insert(_ model: String, _ values: [String: Value]) throws {
        let plan = try insertPlan(model)
        let insert = try preparedInsert(plan, values, checked: false)
        _ = try write(oneStatement: !plan.hasLists && insert.nested.isEmpty) { try send(insert) }
    }

    /// Inserts an object, or updates the given properties of the one with the same primary key.
    /// Returns whether it inserted. As on a store, a model without a primary key has no upsert.
    @discardableResult
    public func upsert(_ model: String, _ values: [String: Value]) throws -> Bool {
        let model = try self.model(model)
        guard let pk = model.primaryKey else { throw StoreError.noPrimaryKey(model: model.name) }
        guard let key = values[pk], !key.isNull else {
            // As on a store: an upsert names its object by its primary key, null only for an
            // optional one.
            guard values[pk] != nil, model.primaryKeyProperty?.isOptional == true else { throw StoreError.missingPrimaryKey(model: model.name) }
            try insert(model.name, values)
            return true
        }
        let checked = try checked(model, values)
        return try write { try upsertRow(checked) }
    }

    /// Inserts the object `values` names by its primary key, or sets them on the one there;
    /// returns whether it inserted.
    @discardableResult
    private func upsertRow(_ values: CheckedValues) throws -> Bool {
        let model = values.model
        guard let pk = model.primaryKeyProperty, let key = values.values[pk.name], !key.isNull else {
            try send(try preparedInsert(try insertPlan(model.name), values.values, checked: true))
            return true
        }
        let keyText = try PostgresValues.parameter(key, type: pk.type).0
        let exists = try connection.execute("SELECT 1 FROM \(tables.table(model.name)) WHERE \(PostgresTables.quoted(pk.name)) = \(try keyParameter(model, key))",
                                            [keyText])
        if exists.rows.isEmpty {
            try send(try preparedInsert(try insertPlan(model.name), values.values, checked: true))
            return true
        }
        var rest = values
        rest.values[pk.name] = nil
        _ = try updateRows(model, condition: try keyCondition(model), conditionParameters: [keyText], values: rest)
        return false
    }

    /// Sets `values` on the objects of `model` matching `predicate`; returns how many.
    @discardableResult
    public func update(_ model: String, where predicate: String?, arguments: [Value] = [], set values: [String: Value]) throws -> Int {
        let model = try self.model(model)
        var translator = PostgresQueryTranslator(tables: tables, arguments: arguments)
        let checked = try checkedPredicate(predicate, model: model, arguments: arguments)
        let condition = try Self.translating(predicate ?? "") { try translator.rowCondition(model, where: checked) }
        let values = try self.checked(model, values)
        do {
            return try write(oneStatement: Self.isOneStatement(model, values.values)) {
                try updateRows(model, condition: condition, conditionParameters: translator.parameters.values, values: values)
            }
        } catch let error as PostgresError where error.sqlState == "22003" {
            throw try overflowingSum(in: predicate, of: model, arguments: arguments) ?? error
        }
    }

    /// Deletes the objects of `model` matching `predicate` (all when nil); returns how many.
    @discardableResult
    public func delete(_ model: String, where predicate: String?, arguments: [Value] = []) throws -> Int {
        let model = try self.model(model)
        var translator = PostgresQueryTranslator(tables: tables, arguments: arguments)
        let checked = try checkedPredicate(predicate, model: model, arguments: arguments)
        let condition = try Self.translating(predicate ?? "") { try translator.rowCondition(model, where: checked) }
        // Links to the deleted objects become null, and their list rows go, by the tables' own
        // foreign keys: one statement.
        do {
            return try write(oneStatement: true) {
                try connection.execute("DELETE FROM \(tables.table(model.name)) AS t0 WHERE \(condition)", translator.parameters.values).affected
            }
        } catch let error as PostgresError where error.sqlState == "22003" {
            throw try overflowingSum(in: predicate, of: model, arguments: arguments) ?? error
        }
    }

    /// Whether `model` holds an object with this primary key.
    public func contains(_ model: String, primaryKey: Value) throws -> Bool {
        let model = try self.model(model)
        guard let pk = model.primaryKey else { throw PostgresError("'\(model.name)' has no primary key") }
        return try read {
            !(try connection.execute("SELECT 1 FROM \(tables.table(model.name)) WHERE \(PostgresTables.quoted(pk)) = \(try keyParameter(model, primaryKey))",
                                     [try keyText(model, primaryKey)]).rows.isEmpty)
        }
    }

    /// The object of `model` with this primary key (none or one), found as an update or a
    /// delete by key finds it: through the key's unique index, and for a string key by the
    /// spelling given, as on a store (a query's `==` also matches canonically equivalent
    /// spellings).
    public func object(_ model: String, primaryKey: Value) throws -> PostgresObjects {
        let model = try self.model(model)
        guard model.primaryKey != nil else { throw PostgresError("'\(model.name)' has no primary key") }
        let translator = PostgresQueryTranslator(tables: tables, arguments: [])
        let columns = try translator.outputColumns(model, alias: "t0") + [translator.keyOutput(model, alias: "t0")]
        let sql = "SELECT \(columns.joined(separator: ", ")) FROM \(tables.table(model.name)) AS t0 WHERE \(try keyCondition(model))"
        let rows = try read { try connection.execute(sql, [try keyText(model, primaryKey)]) }
        return try PostgresObjects(model: model, schema: schema, rows: rows.rows)
    }

    /// Sets `values` on the object of `model` with this primary key; returns whether there is
    /// one.
    @discardableResult
    public func update(_ model: String, primaryKey: Value, set values: [String: Value]) throws -> Bool {
        let model = try self.model(model)
        guard model.primaryKey != nil else { throw PostgresError("'\(model.name)' has no primary key") }
        let key = try keyText(model, primaryKey)
        let values = try checked(model, values)
        return try write(oneStatement: Self.isOneStatement(model, values.values)) {
            try updateRows(model, condition: try keyCondition(model), conditionParameters: [key], values: values) > 0
        }
    }

    /// Deletes the objects with these primary keys; returns how many existed.
    @discardableResult
    public func delete(_ model: String, primaryKeys: [Value]) throws -> Int {
        let model = try self.model(model)
        guard let pk = model.primaryKey else { throw PostgresError("'\(model.name)' has no primary key") }
        let sql = "DELETE FROM \(tables.table(model.name)) WHERE \(PostgresTables.quoted(pk)) = \(try keyParameter(model, .null))"
        // Every key is checked before the first is deleted.
        let keys = try primaryKeys.map { try keyText(model, $0) }
        return try write {
            var deleted = 0
            for key in keys {
                deleted += try connection.execute(sql, [key]).affected
            }
            return deleted
        }
    }

    private func keyParameter(_ model: ModelSchema, _ key: Value) throws -> String {
        "$1::\(PostgresTables.castType(model.primaryKeyProperty?.type ?? .int))"
    }

    /// The row condition of the object whose primary key is `$1`.
    private func keyCondition(_ model: ModelSchema) throws -> String {
        "t0.\(PostgresTables.quoted(model.primaryKey ?? "")) = \(try keyParameter(model, .null))"
    }

    /// Whether setting `values` on objects of `model` is one `UPDATE`: no list to replace, no
    /// nested object to write first.
    private static func isOneStatement(_ model: ModelSchema, _ values: [String: Value]) -> Bool {
        !values.contains { name, value in value.isObject || model[property: name]?.type.isList == true }
    }

    func keyText(_ model: ModelSchema, _ key: Value) throws -> String {
        guard let pk = model.primaryKeyProperty else {
            return try PostgresValues.parameter(try coerce(key, .int, "primary key of '\(model.name)'"), type: .int).0
        }
        // Through `stored`, so that a key holding a NUL (a get, delete, upsert or merge by it) is
        // refused naming the key's property, as a written value is.
        return try PostgresValues.parameter(try stored(key, pk.type, model: model.name, property: pk.name), type: pk.type).0
    }

    /// `value` as a value of `type`, for the property `name` (named in errors).
    func coerce(_ value: Value, _ type: PropertyType, _ name: @autoclosure () -> String) throws -> Value {
        if let same = Self.ownKind(value, type) { return same }
        do { return try Coercion.scalar(.value(value), as: type, for: name()) } catch { throw PostgresError(error.description) }
    }

    /// `value` as a value of `type` written to the property `property` of `model` (or to
    /// element `element`, from 1, of its list): a string holding a NUL is refused here, where
    /// the property is known, and not by the connection.
    func stored(_ value: Value, _ type: PropertyType, model: String, property: String, element: Int? = nil) throws -> Value {
        let coerced: Value
        if let same = Self.ownKind(value, type) { coerced = same } else {
            // Named as a store names it: the property, and the element of a list.
            do { coerced = try Coercion.scalar(.value(value), as: type, for: property) } catch {
                throw PostgresError((element.map(error.inElement) ?? error).description)
            }
        }
        try refuseNUL(coerced, model: model, property: property, element: element)
        // Refused here, before the write sends anything, not only when it is bound.
        if case .date(let date) = coerced { _ = try PostgresValues.microseconds(date) }
        return coerced
    }

    /// Throws when `value` is a string holding a NUL, which PostgreSQL text cannot hold, naming
    /// where it was to go: checked here, where the property is known, not by the connection.
    private func refuseNUL(_ value: Value, model: String, property: String, element: Int? = nil) throws {
        if case .string(let text) = value, text.utf8.contains(0) {
            throw PostgresError.nulCharacter(model: model, property: property, element: element)
        }
    }

    /// `value` itself when it is null or of `type`'s own kind, which no coercion changes (and
    /// no name is made for an error); nil when it needs coercing.
    private static func ownKind(_ value: Value, _ type: PropertyType) -> Value? {
        switch (type, value) {
        case (_, .null): return .null
        case (.bool, .bool), (.int, .int), (.int64, .int), (.float, .float), (.double, .double), (.string, .string),
             (.date, .date), (.data, .data), (.uuid, .uuid):
            return value
        // A NaN is coerced, which refuses it. (A bare `nil` here would be `Value.null`.)
        case (.decimal, .decimal(let d)): return d.isNaN ? Value?.none : value
        default: return nil
        }
    }

    /// A link's value (or element `element`, from 1, of a list of links) as the key of its
    /// target: its primary-key value, or null. Nothing is written: a nested object is no key,
    /// and its values are checked and written apart (`checked`, `writtenKey`).
    func linkKey(_ value: Value, target: String, property: String, element: Int? = nil) throws -> Value {
        let targetModel = try self.model(target)
        switch value {
        case .null: return .null
        case .reference, .list, .object:
            throw PostgresError("'\(property)' takes the primary key of a '\(target)' on PostgreSQL, not \(value.kindDescription)")
        default:
            // As in a store: any other value names the target by its primary key, and a
            // target without one is given whole (its `"@key"` is no value a client holds).
            guard let pk = targetModel.primaryKeyProperty else {
                throw StoreError.typeMismatch(property: property, expected: "an object of \(target)", found: value.kindDescription)
            }
            let key: Value
            if let same = Self.ownKind(value, pk.type) { key = same } else {
                // An element of a list of links is named by its position in the list, as on a store.
                do { key = try Coercion.scalar(.value(value), as: pk.type, for: element == nil ? pk.name : property) } catch {
                    throw StoreError.invalidValue(element.map(error.inElement) ?? error)
                }
            }
            // The key names an object of `target`: a NUL in it is refused naming that key.
            try refuseNUL(key, model: target, property: pk.name)
            return key
        }
    }

    /// The key a checked link's value stands for: a nested object's once it is written
    /// (upserted, or inserted when it names no object by a primary key), else the key it gives.
    private func writtenKey(_ value: Value, target: String) throws -> Value {
        guard case .object(let values) = value else { return try linkKey(value, target: target, property: "") }
        let model = try self.model(target)
        if let pk = model.primaryKey, let key = values[pk], !key.isNull {
            try upsertRow(CheckedValues(model: model, values: values))
            return key
        }
        let key = try send(try preparedInsert(try insertPlan(target), values, checked: true), returningKey: true)
        return try PostgresValues.value(key, type: model.primaryKeyProperty?.type ?? .int)
    }

    /// Sends a prepared insert: the nested objects it holds, then its row, then its lists'
    /// rows; returns the row's key as text when `returningKey` (or when the model has lists,
    /// whose rows name it), else nil.
    @discardableResult
    func send(_ insert: PreparedInsert, returningKey: Bool = false) throws -> String? {
        let model = insert.plan.model
        var parameters = insert.parameters, written = insert.written
        var nestedKeys = [[Int: Value]](repeating: [:], count: insert.lists.count)
        for nested in insert.nested {
            let target = nested.values.model.name
            let key = try writtenKey(.object(nested.values.values), target: target)
            switch nested.place {
            case .parameter(let index):
                let text = try PostgresValues.parameter(key, type: try keyType(target)).0
                written.links.append((nested.property.name, target, model.name, nested.property.name, text, key))
                parameters[index] = text
            case .element(let list, let position):
                nestedKeys[list][position] = key
            }
        }
        let sql = returningKey || insert.plan.hasLists ? insert.plan.returningSQL : insert.plan.sql
        let inserted = try translateConstraint(model, written) { try connection.execute(sql, parameters) }
        let owner = inserted.rows.first?.first ?? nil
        for (index, list) in insert.lists.enumerated() {
            try replaceList(model, list.property, owner: owner, list.elements, written: nestedKeys[index])
        }
        return owner
    }

    /// What inserting an object of a model takes, made once and found by the model's name
    /// alone: the model, its `INSERT` (a parameter for each stored property but lists, in
    /// schema order, NULL binding as a null parameter, so that one statement serves every
    /// insert) and the same `RETURNING` the key, for when it is asked for or list rows need it.
    struct InsertPlan {
        var model: ModelSchema
        /// The names of its computed properties (linkingObjects), which an insert cannot set.
        var computed: [String]
        var sql: String
        var returningSQL: String
        var columnCount: Int
        var hasLists: Bool
    }

    func insertPlan(_ name: String) throws -> InsertPlan {
        if let plan = insertPlans[name] { return plan }
        let model = try self.model(name)
        let columns = model.properties.filter { $0.isStored && !$0.type.isList }
        var placeholders: [String] = []
        for (index, property) in columns.enumerated() {
            var type = property.type
            if case .link(let target) = type { type = schema[target]?.primaryKeyProperty?.type ?? .int }
            placeholders.append(PostgresValues.expression(placeholder: "$\(index + 1)", type: type))
        }
        let table = tables.table(model.name)
        let sql = columns.isEmpty
            ? "INSERT INTO \(table) DEFAULT VALUES"
            : "INSERT INTO \(table) (\(columns.map { PostgresTables.quoted($0.name) }.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", ")))"
        let plan = InsertPlan(model: model, computed: model.properties.filter { !$0.isStored }.map(\.name), sql: sql, returningSQL: sql + " RETURNING \(tables.keyColumn(model))::pg_catalog.text",
                              columnCount: columns.count, hasLists: model.properties.contains { $0.isStored && $0.type.isList })
        insertPlans[name] = plan
        return plan
    }

    func keyType(_ model: String) throws -> PropertyType {
        try self.model(model).primaryKeyProperty?.type ?? .int
    }

    /// Replaces the list `property` of the row `owner` with `elements`, checked
    /// (`CheckedValues`); `written` holds the keys of the nested objects among them, which the
    /// write has written already, by position.
    private func replaceList(_ model: ModelSchema, _ property: PropertySchema, owner: String?, _ elements: [Value],
                             written nested: [Int: Value] = [:]) throws {
        guard case .list(let element) = property.type else { return }
        let side = tables.listTable(model.name, property.name)
        let ownerCast = PostgresTables.castType(model.primaryKeyProperty?.type ?? .int)
        try connection.execute("DELETE FROM \(side) WHERE owner = $1::\(ownerCast)", [owner])
        guard !elements.isEmpty else { return }
        var parameters = SQLParameters()
        let ownerPlaceholder = parameters.add(owner)
        var rows: [String] = []
        var written = WrittenKeys(isListRows: true)
        let linkTable = model.name + "." + property.name
        for (position, value) in elements.enumerated() {
            let sqlValue: String
            if case .link(let target) = element {
                let key = try nested[position] ?? writtenKey(value, target: target)
                let type = try keyType(target)
                let rendered = try PostgresValues.parameter(key, type: type)
                written.links.append((property.name, target, linkTable, "value", rendered.0, value.isObject ? key : value))
                sqlValue = PostgresValues.sql(rendered: rendered, type: type, &parameters)
            } else {
                sqlValue = try PostgresValues.sql(value, type: element, &parameters)
            }
            rows.append("(\(ownerPlaceholder)::\(ownerCast), \(position), \(sqlValue))")
        }
        let values = "VALUES \(rows.joined(separator: ", "))"
        // Links to several objects share one foreign key, whose error names the missing one
        // only in translated text: the rows whose target exists are inserted, and a target
        // missing from them is looked for by its key.
        guard case .link(let target) = element, Set(written.links.map(\.key)).count > 1, let targetModel = schema[target] else {
            try translateConstraint(model, written) {
                try connection.execute("INSERT INTO \(side) (owner, position, value) \(values)", parameters.values)
            }
            return
        }
        let targetTable = tables.table(target), targetKey = tables.keyColumn(targetModel)
        let inserted = try translateConstraint(model, written) {
            try connection.execute("INSERT INTO \(side) (owner, position, value) SELECT * FROM (\(values)) AS v (owner, position, value) "
                                   + "WHERE EXISTS (SELECT 1 FROM \(targetTable) AS t WHERE t.\(targetKey) = v.value)", parameters.values)
        }
        guard inserted.affected < rows.count else { return }
        let cast = PostgresTables.castType(try keyType(target))
        for link in written.links {
            if try connection.execute("SELECT 1 FROM \(targetTable) WHERE \(targetKey) = $1::\(cast)", [link.key]).rows.isEmpty {
                throw StoreError.linkTargetNotFound(property: link.property, model: link.target, primaryKey: link.given.description)
            }
        }
        throw PostgresError("a list of '\(model.name)' links to an object that does not exist")
    }

    /// Sets `values` on the rows of `model` (the table under the alias `t0`) that `condition`
    /// selects, its parameters `conditionParameters`; returns how many. One `UPDATE` when no
    /// list is set; lists are replaced for the keys it returns. Nested objects are written
    /// first, once, as a store writes them.
    func updateRows(_ model: ModelSchema, condition: String, conditionParameters: [String?], values: CheckedValues) throws -> Int {
        var parameters = SQLParameters()
        for value in conditionParameters { _ = parameters.add(value) }
        var assignments: [String] = []
        var lists: [(PropertySchema, [Value], written: [Int: Value])] = []
        var written = WrittenKeys()
        var newKey: Value?
        for (name, value) in values.values.sorted(by: { $0.key < $1.key }) {
            let property = try model.storedProperty(name)
            switch property.type {
            case .list(let element):
                guard case .list(let elements) = value else { continue }
                var nested: [Int: Value] = [:]
                if case .link(let target) = element {
                    for (position, element) in elements.enumerated() where element.isObject {
                        nested[position] = try writtenKey(element, target: target)
                    }
                }
                lists.append((property, elements, nested))
            case .link(let target):
                let key = try writtenKey(value, target: target)
                let type = try keyType(target)
                let sqlValue: String
                if key.isNull {
                    sqlValue = try PostgresValues.sql(key, type: type, &parameters)
                } else {
                    let rendered = try PostgresValues.parameter(key, type: type)
                    written.links.append((name, target, model.name, name, rendered.0, value.isObject ? key : value))
                    sqlValue = PostgresValues.sql(rendered: rendered, type: type, &parameters)
                }
                assignments.append("\(PostgresTables.quoted(name)) = \(sqlValue)")
            default:
                // A primary key stays as it is (checked below): not assigned.
                if name == model.primaryKey { newKey = value; continue }
                assignments.append("\(PostgresTables.quoted(name)) = \(try PostgresValues.sql(value, type: property.type, &parameters))")
            }
        }
        let key = "t0.\(tables.keyColumn(model))"
        let table = tables.table(model.name)
        // A primary key given is checked in the statement that writes, so that no other
        // client's commit comes between the check and the write.
        let keyCheck = try newKey.flatMap { newKey in
            try model.primaryKeyProperty.map { try KeyCheck(pk: $0, newKey: newKey, &parameters) }
        }
        guard !assignments.isEmpty else {
            let rows = try connection.execute(
                "SELECT \(key)::pg_catalog.text\(keyCheck.map { ", \($0.differs)" } ?? "") FROM \(table) AS t0 WHERE \(condition) ORDER BY t0.\(PostgresTables.orderColumn)",
                parameters.values).rows
            if let keyCheck { try keyCheck.refuse(model, changed: rows.first { $0[1] == "t" }.flatMap { $0[0] }) }
            for (property, elements, nested) in lists {
                for row in rows { try replaceList(model, property, owner: row[0], elements, written: nested) }
            }
            return rows.count
        }
        let set = "SET \(assignments.joined(separator: ", "))"
        let returning = lists.isEmpty ? "" : " RETURNING \(key)::pg_catalog.text"
        let updated = try translateConstraint(model, written) {
            guard let keyCheck else {
                return try connection.execute("UPDATE \(table) AS t0 \(set) WHERE \(condition)\(returning)", parameters.values)
            }
            // The first row of the condition whose key differs, if any, is named and nothing
            // is updated; the update takes only rows with the key given, and returns them
            // after the one row a difference gives (its first column says which).
            return try connection.execute(
                "WITH changed AS (SELECT \(key)::pg_catalog.text AS key FROM \(table) AS t0 WHERE (\(condition)) AND \(keyCheck.differs) "
                + "ORDER BY t0.\(PostgresTables.orderColumn) LIMIT 1), "
                + "updated AS (UPDATE \(table) AS t0 \(set) WHERE (\(condition)) AND NOT \(keyCheck.differs) "
                + "AND NOT EXISTS (SELECT FROM changed) RETURNING \(key)::pg_catalog.text AS key) "
                + "SELECT true, key FROM changed UNION ALL SELECT false, key FROM updated",
                parameters.values)
        }
        if let keyCheck {
            connection.noteRowsWritten(updated.rows.count { $0[0] == "f" })
            try keyCheck.refuse(model, changed: updated.rows.first { $0[0] == "t" }.flatMap { $0[1] })
            for (property, elements, nested) in lists {
                for row in updated.rows { try replaceList(model, property, owner: row[1], elements, written: nested) }
            }
            return updated.rows.count
        }
        guard !lists.isEmpty else { return updated.affected }
        for (property, elements, nested) in lists {
            for row in updated.rows { try replaceList(model, property, owner: row[0], elements, written: nested) }
        }
        return updated.rows.count
    }

    /// The primary key an update gives, bound as the statement's last parameter: whether a
    /// row's key differs from it, and the store's refusal of a row whose key does (a store
    /// refuses to change an object's primary key, which links, lists and a repository's
    /// entities find it by).
    private struct KeyCheck {
        let pk: PropertySchema
        let newKey: Value
        /// A condition on the row `t0`: its key differs from the one given.
        let differs: String

        init(pk: PropertySchema, newKey: Value, _ parameters: inout SQLParameters) throws {
            self.pk = pk
            self.newKey = newKey
            let placeholder = PostgresValues.expression(placeholder: parameters.add(try PostgresValues.parameter(newKey, type: pk.type).0),
                                                        type: pk.type)
            differs = "t0.\(PostgresTables.quoted(pk.name)) <> \(placeholder)"
        }

        /// Throws the store's error when `changed`, the key text of the first row whose key
        /// differs, is one.
        func refuse(_ model: ModelSchema, changed: String?) throws {
            guard let changed else { return }
            throw StoreError.primaryKeyChanged(model: model.name, from: try PostgresValues.value(changed, type: pk.type), to: newKey)
        }
    }

    /// The keys a write's statement sets, by which a constraint it breaks is named as a store
    /// names it: the primary key it writes, and each link's key (its property, target, the
    /// table and column holding it, the key as bound, the value as given).
    struct WrittenKeys {
        /// Whether the statement inserts a list's rows, keyed by their object and positions
        /// (see `translateConstraint`).
        var isListRows = false
        var primaryKey: Value?
        var links: [(property: String, target: String, table: String, column: String, key: String, given: Value)] = []
    }

    /// Runs `body`, a statement writing `written`, naming a broken constraint in the store's
    /// words.
    @discardableResult
    private func translateConstraint<T>(_ model: ModelSchema, _ written: WrittenKeys, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError {
            // A list's rows are replaced whole, their old ones deleted first: a position taken
            // is another client's replacement of the same list, committed meanwhile.
            // It fails as a serialization failure does (an open transaction fails whole),
            // which is what it is.
            if written.isListRows, error.sqlState == "23505" {
                throw Self.conflict(PostgresError(error.message, sqlState: "40001"))
            }
            throw storeError(model, error, written) ?? Self.constraintError(model, error)
        }
    }

    /// A broken constraint as the store's `StoreError`, when `written` says which: a duplicate
    /// primary key, or a link to an object that does not exist. The foreign key is found by
    /// its name (which no `lc_messages` translates) in `foreignKeys`; of its links, the one
    /// key they share.
    func storeError(_ model: ModelSchema, _ error: PostgresError, _ written: WrittenKeys) -> StoreError? {
        switch error.sqlState {
        case "23505":
            return written.primaryKey.map { .duplicatePrimaryKey(model: model.name, value: $0.description) }
        case "23503":
            let candidates = error.constraint.map { name in
                written.links.filter { foreignKeys.names(name, table: $0.table, column: $0.column) }
            } ?? written.links
            guard let link = candidates.first, candidates.allSatisfy({ $0.target == link.target && $0.key == link.key }) else { return nil }
            return .linkTargetNotFound(property: link.property, model: link.target, primaryKey: link.given.description)
        default:
            return nil
        }
    }

    /// A broken constraint the store's `StoreError` does not name (its key unknown), in the
    /// store's words; another error as it is.
    static func constraintError(_ model: ModelSchema, _ error: PostgresError) -> PostgresError {
        switch error.sqlState {
        case "23505":
            return PostgresError("'\(model.name)' already has an object with this primary key", sqlState: error.sqlState)
        case "23503":
            return PostgresError("a link of '\(model.name)' names an object that does not exist (\(error.message))", sqlState: error.sqlState)
        default:
            return error
        }
    }
}

extension Value {
    /// Whether this is a nested object (a link written as the object it names).
    fileprivate var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}

extension ModelSchema {
    /// The stored property `name`: throws `noSuchProperty` when the model has none, and
    /// `readOnlyProperty` when it is computed (linking objects).
    func storedProperty(_ name: String) throws -> PropertySchema {
        guard let property = self[property: name] else { throw StoreError.noSuchProperty(model: self.name, property: name) }
        guard property.isStored else { throw StoreError.readOnlyProperty(model: self.name, property: name) }
        return property
    }
}
