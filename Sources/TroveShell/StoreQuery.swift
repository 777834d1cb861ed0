import Trove

/// A query statement run against a snapshot.
///
/// Until the query engine lands this build runs queries without a predicate or clauses
/// only; the rest fails with a clear message.
struct StoreQuery {
    let spec: QuerySpec
    let arguments: ParameterValues

    init(_ spec: QuerySpec, arguments: ParameterValues) {
        self.spec = spec
        self.arguments = arguments
    }

    var modelName: String { spec.model.text }

    func run(in snapshot: Snapshot, context: ExecutionContext) throws -> Results {
        if let predicate = spec.predicate { throw Self.unavailable(at: predicate.offset) }
        if !spec.modifiers.isEmpty { throw Self.unavailable(at: spec.model.offset) }
        return try snapshot.objects(modelName)
    }

    func explain(in snapshot: Snapshot) throws -> JSONObject {
        throw Self.unavailable(at: spec.model.offset)
    }

    static func matching(_ model: String, _ predicate: SourceFragment, arguments: ParameterValues, in snapshot: Snapshot) throws -> Results {
        throw unavailable(at: predicate.offset)
    }

    static func update(_ model: String, where predicate: SourceFragment, arguments: ParameterValues, set values: [String: Value],
                       in tx: Transaction) throws -> Int {
        throw unavailable(at: predicate.offset)
    }

    static func delete(_ model: String, where predicate: SourceFragment, arguments: ParameterValues, in tx: Transaction) throws -> Int {
        throw unavailable(at: predicate.offset)
    }

    private static func unavailable(at offset: Int) -> StatementError {
        StatementError("this build of trove has no query engine yet: only 'MODEL' without 'where' or clauses runs", at: offset)
    }
}
