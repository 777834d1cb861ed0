import Trove
import TrovePostgres

/// The objects of models without a primary key that some objects (a batch `.dump` reads, or
/// an export's) reach through links, directly or through other such objects, or that the rows
/// of a SELECT or GROUP name (`.reference`s) and those reach: what `.dump`, `export` and rows
/// write nested. They are read at the first need, level by level, one statement per model and
/// level with every key wanted there (`PostgresObjectReader.objects(of:keys:)`), rather than
/// one per object and link.
final class PostgresNestedObjects {
    let reader: PostgresObjectReader
    var schema: Schema { reader.schema }
    /// What the first need reads from, until it has.
    private var start: Start?
    /// The stored values of each object read, by model, then `"@key"`.
    private var read: [String: [Int64: [Value]]] = [:]

    private enum Start {
        /// Objects whose links are followed.
        case roots(ModelSchema, [[Value]])
        /// The objects themselves, by model.
        case keys([(model: ModelSchema, keys: [Int64])])
    }

    /// `objects` of `model`, each its stored values in schema order (links as their targets' keys).
    init(reader: PostgresObjectReader, model: ModelSchema, objects: [[Value]]) {
        self.reader = reader
        start = .roots(model, objects)
    }

    /// The objects `references` name (of models without a primary key, by `"@key"`).
    init(reader: PostgresObjectReader, references: [ObjectReference]) {
        self.reader = reader
        var wanted = Wanted()
        for reference in references {
            guard let model = reader.schema[reference.model], model.primaryKey == nil else { continue }
            wanted.add(Int64(bitPattern: reference.key), of: model)
        }
        start = .keys(wanted.keys)
    }

    /// The stored values of the object of `model` (a model without a primary key) whose
    /// `"@key"` is `key`, when the roots reach it.
    func values(of model: ModelSchema, key: Int64) throws -> [Value]? {
        if let start {
            self.start = nil
            switch start {
            case .roots(let model, let objects): try readReached(from: reached(from: [(model, objects)]))
            case .keys(let wanted): try readReached(from: wanted)
            }
        }
        return read[model.name]?[key]
    }

    /// Reads `wanted`, then what it reaches, level by level.
    private func readReached(from wanted: [(model: ModelSchema, keys: [Int64])]) throws {
        var wanted = wanted
        while !wanted.isEmpty {
            var level: [(model: ModelSchema, objects: [[Value]])] = []
            for (model, keys) in wanted {
                let objects = try reader.objects(of: model, keys: keys)
                for (key, values) in zip(objects.keys, objects.objects) {
                    guard let key = Int64(key) else { continue }
                    read[model.name, default: [:]][key] = values
                }
                level.append((model, objects.objects))
            }
            wanted = reached(from: level)
        }
    }

    /// The keys `level`'s objects link to that are not read yet, each once, models in the
    /// order first met.
    private func reached(from level: [(model: ModelSchema, objects: [[Value]])]) -> [(model: ModelSchema, keys: [Int64])] {
        var wanted = Wanted()
        for (model, objects) in level {
            for (index, property) in model.properties.filter(\.isStored).enumerated() {
                guard let targetName = property.type.objectType, let target = schema[targetName], target.primaryKey == nil else { continue }
                for values in objects where index < values.count {
                    let items: [Value] = if case .list(let items) = values[index] { items } else { [values[index]] }
                    for case .int(let key) in items where read[targetName]?[key] == nil { wanted.add(key, of: target) }
                }
            }
        }
        return wanted.keys
    }

    /// The keys wanted of each model, each once, models in the order first met.
    private struct Wanted {
        private(set) var keys: [(model: ModelSchema, keys: [Int64])] = []
        private var seen: [String: Set<Int64>] = [:]

        mutating func add(_ key: Int64, of model: ModelSchema) {
            guard seen[model.name, default: []].insert(key).inserted else { return }
            if let at = keys.firstIndex(where: { $0.model.name == model.name }) { keys[at].keys.append(key) } else { keys.append((model, [key])) }
        }
    }

    /// The object `reference` names, as `.dump` reads objects, when it is read.
    func object(_ reference: ObjectReference) throws -> (any DumpObject)? {
        guard let model = schema[reference.model] else { return nil }
        let key = Int64(bitPattern: reference.key)
        return try values(of: model, key: key).map { PostgresDumpObject(nested: self, model: model, key: String(key), values: $0) }
    }
}
