import Trove

/// Objects read from PostgreSQL: each one's stored properties in schema order. A link holds
/// its target's primary key (or `"@key"`), a list its elements.
public struct PostgresObjects: Sendable, Equatable {
    public var model: ModelSchema
    public var objects: [[Value]]
    /// Each object's key (its primary key, or `"@key"`) as text: what tells objects apart.
    public var keys: [String]

    init(model: ModelSchema, schema: Schema, rows: [[String?]]) throws {
        try self.init(model: model, types: try Self.types(model, schema: schema), rows: rows)
    }

    /// `rows` of `model`, each value read as the type `types(_:schema:)` gives its column.
    init(model: ModelSchema, types: [PropertyType], rows: [[String?]]) throws {
        self.model = model
        keys = []
        keys.reserveCapacity(rows.count)
        objects = []
        objects.reserveCapacity(rows.count)
        for row in rows {
            var values: [Value] = []
            let count = min(types.count, row.count - 1)
            values.reserveCapacity(count)
            for index in 0..<count {
                let type = types[index]
                if case .list(let element) = type {
                    values.append(try PostgresValues.list(row[index] ?? "[]", element: element))
                } else {
                    values.append(try PostgresValues.value(row[index], type: type))
                }
            }
            objects.append(values)
            keys.append(row.last.flatMap { $0 } ?? "")
        }
    }

    /// The type each stored property of `model` is read as: a link as its target's key.
    static func types(_ model: ModelSchema, schema: Schema) throws -> [PropertyType] {
        try model.properties.filter(\.isStored).map { property in
            switch property.type {
            case .link(let target):
                return schema[target]?.primaryKeyProperty?.type ?? .int
            case .list(.link(let target)):
                return .list(schema[target]?.primaryKeyProperty?.type ?? .int)
            default:
                guard property.isStored else { throw PostgresError("not stored") }
                return property.type
            }
        }
    }

    /// The property names, in the order of each object's values.
    public var columns: [String] { model.properties.filter(\.isStored).map(\.name) }

    /// The objects as the JSON the shell prints.
    public var json: [JSONObject] {
        objects.map { values in JSONObject(zip(columns, values).map { ($0, $1.jsonValue) }) }
    }
}
