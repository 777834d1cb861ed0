import Trove
import TrovePostgres

/// The objects of models without a primary key that some objects (a batch `.dump` reads, or
/// an export's) reach through links, directly or through other such objects: what `.dump` and
/// `export` write nested. They are read at the first need, level by level, one statement per
/// model and level with every key wanted there (`PostgresObjectReader.objects(of:keys:)`),
/// rather than one per object and link.
final class PostgresNestedObjects {
    let reader: PostgresObjectReader
    var schema: Schema { reader.schema }
    /// The objects whose links are followed, until they are.
    private var roots: (model: ModelSchema, objects: [[Value]])?
    /// The stored values of each object read, by model, then `"@key"`.
    private var read: [String: [Int64: [Value]]] = [:]

    /// `objects` of `model`, each its stored values in schema order (links as their targets' keys).
    init(reader: PostgresObjectReader, model: ModelSchema, objects: [[Value]]) {
        self.reader = reader
        roots = (model, objects)
    }

    /// The stored values of the object of `model` (a model without a primary key) whose
    /// `"@key"` is `key`, when the roots reach it.
    func values(of model: ModelSchema, key: Int64) throws -> [Value]? {
        if let roots {
            self.roots = nil
            try readReached(from: roots)
        }
        return read[model.name]?[key]
    }

    private func readReached(from roots: (model: ModelSchema, objects: [[Value]])) throws {
        var level = [roots]
        while !level.isEmpty {
            // The keys wanted of each model, each once, models in the order first met.
            var wanted: [(model: ModelSchema, keys: [Int64])] = []
            var seen: [String: Set<Int64>] = [:]
            for (model, objects) in level {
                for (index, property) in model.properties.filter(\.isStored).enumerated() {
                    guard let targetName = property.type.objectType, let target = schema[targetName], target.primaryKey == nil else { continue }
                    var keys: [Int64] = []
                    for values in objects where index < values.count {
                        let items: [Value] = if case .list(let items) = values[index] { items } else { [values[index]] }
                        for case .int(let key) in items where read[targetName]?[key] == nil && seen[targetName, default: []].insert(key).inserted {
                            keys.append(key)
                        }
                    }
                    guard !keys.isEmpty else { continue }
                    if let at = wanted.firstIndex(where: { $0.model.name == targetName }) { wanted[at].keys += keys } else { wanted.append((target, keys)) }
                }
            }
            level = []
            for (model, keys) in wanted {
                let objects = try reader.objects(of: model, keys: keys)
                for (key, values) in zip(objects.keys, objects.objects) {
                    guard let key = Int64(key) else { continue }
                    read[model.name, default: [:]][key] = values
                }
                level.append((model, objects.objects))
            }
        }
    }
}
