@testable import Trove

/// A suite of the statement caches' tests, over a store of one model of sales. Each suite names
/// the model its own (`model`): the caches are the process's, and suites run at once.
protocol SalesStoreSuite {
    static var model: String { get }
}

extension SalesStoreSuite {
    /// A new in-memory store of `model`: `id`, an indexed `region`, and `amount` declared as
    /// `amount` (schema JSON: a type, or a property object).
    static func store(_ amount: String) throws -> Store {
        try Store(configuration: .inMemory(schema: try schemaFromJSON("""
        {"schemaVersion": 0, "models": [{"name": "\(model)", "primaryKey": "id", "properties": {
          "id": "int", "region": {"type": "string", "indexed": true}, "amount": \(amount)}}]}
        """)))
    }

    /// Each row's values.
    static func values(_ rows: QueryRows) -> [[Value]] { rows.rows.map(\.values) }
}
