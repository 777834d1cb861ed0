import Trove

/// A query statement run against a snapshot by the store's query engine, with errors mapped
/// back to where they stand in the statement.
struct StoreQuery {
    let spec: QuerySpec
    let arguments: ParameterValues

    init(_ spec: QuerySpec, arguments: ParameterValues) {
        self.spec = spec
        self.arguments = arguments
    }

    var modelName: String { spec.model.text }

    func run(in snapshot: Snapshot, context: ExecutionContext) throws -> Results {
        try Self.mapping(spec.text) { try snapshot.query(spec.text.text, arguments: arguments.values) }
    }

    /// What the statement answers: objects, rows (SELECT, GROUP) or one value (`sum`, ...).
    func answer(in snapshot: Snapshot) throws -> QueryAnswer {
        try Self.mapping(spec.text) { try snapshot.answer(spec.text.text, arguments: arguments.values) }
    }

    /// The answer as the shell prints it.
    func result(in snapshot: Snapshot, context: ExecutionContext) throws -> ShellResult {
        switch try answer(in: snapshot) {
        case .objects(let results):
            return .objects(try ResultRows.make(results, context: context))
        case .rows(let rows):
            return .objects(try ResultRows.make(rows, in: snapshot))
        case .value(let value):
            return .value(name: Self.function(of: spec.text.text), value)
        }
    }

    /// `sum`, `avg`, `min` or `max`: the first word of an aggregate statement.
    static func function(of text: String) -> String {
        String(text.prefix { $0.isLetter }).lowercased()
    }

    func explain(in snapshot: Snapshot) throws -> JSONObject {
        let plan = try Self.mapping(spec.text) { try snapshot.explain(spec.text.text, arguments: arguments.values) }
        return JSONObject([
            ("model", .string(plan.model)),
            ("access", .string(Self.describe(plan.access))),
            ("indexes", .array(plan.indexes.map(JSONValue.string))),
            ("steps", .array(plan.steps.map(JSONValue.string))),
            ("estimatedRows", .int(Int64(plan.estimatedRows))),
            ("examinedRows", .int(Int64(plan.examinedRows))),
            ("returnedRows", .int(Int64(plan.actualRows))),
        ])
    }

    /// `scan`, `index name`, `primary key id`, `union(index a, index b)`, `none`.
    private static func describe(_ access: QueryPlan.Access) -> String {
        switch access {
        case .scan: "scan"
        case .primaryKey(let property): "primary key \(property)"
        case .index(let property): "index \(property)"
        case .union(let parts): "union(" + parts.map(describe).joined(separator: ", ") + ")"
        case .backlinks(let link): "backlinks of \(link)"
        case .none: "none"
        }
    }

    static func matching(_ model: String, _ predicate: SourceFragment, arguments: ParameterValues, in snapshot: Snapshot) throws -> Results {
        try mapping(predicate) { try snapshot.objects(model, where: predicate.text, arguments: arguments.values) }
    }

    static func update(_ model: String, where predicate: SourceFragment, arguments: ParameterValues, set values: [String: Value],
                       in tx: Transaction) throws -> Int {
        try mapping(predicate) { try tx.update(model, where: predicate.text, arguments: arguments.values, set: values) }
    }

    static func delete(_ model: String, where predicate: SourceFragment, arguments: ParameterValues, in tx: Transaction) throws -> Int {
        try mapping(predicate) { try tx.delete(model, where: predicate.text, arguments: arguments.values) }
    }

    /// Runs `body` on the text of `fragment`; a `QueryError` in it is reported at its place in
    /// the statement.
    private static func mapping<R>(_ fragment: SourceFragment, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as QueryError {
            throw StatementError(error, at: fragment.offset + error.location.offset)
        }
    }
}
