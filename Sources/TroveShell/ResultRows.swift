import Trove

/// Query results as the rows the shell prints.
enum ResultRows {
    /// The stored properties of `model`, in schema order: the columns of its objects.
    static func columns(of model: ModelSchema) -> [String] {
        model.properties.filter(\.isStored).map(\.name)
    }

    /// Every object of `results` as JSON, stopping early at Ctrl-C.
    static func make(_ results: Results, context: ExecutionContext) throws -> ResultSet {
        guard let model = results.snapshot.schema[results.modelName] else { return ResultSet(columns: [], rows: []) }
        var rows: [JSONObject] = []
        rows.reserveCapacity(results.count)
        for (i, object) in results.enumerated() {
            if i % 1024 == 0, context.isCancelled { throw StatementError("interrupted") }
            rows.append(try object.json())
        }
        return ResultSet(columns: columns(of: model), rows: rows, decimalColumns: decimalColumns(of: model))
    }

    /// The properties of `model` that hold a decimal.
    static func decimalColumns(of model: ModelSchema) -> Set<String> {
        Set(model.properties.filter { $0.type == .decimal }.map(\.name))
    }

    /// The `columns` where a decimal stands in `rows` (each row's values in column order).
    static func decimalColumns(_ columns: [String], of rows: some Sequence<[Value]>) -> Set<String> {
        var result: Set<String> = []
        for row in rows {
            for (name, value) in zip(columns, row) {
                if case .decimal = value { result.insert(name) }
            }
        }
        return result
    }

    /// Projected or grouped rows as the shell prints them.
    static func make(_ rows: QueryRows) -> ResultSet {
        ResultSet(columns: rows.columns, rows: rows.map(\.json), decimalColumns: decimalColumns(rows.columns, of: rows.map(\.values)))
    }
}
