import Trove
import TrovePostgres

/// What `.dump` (`StoreDump`) reads, on a store or a PostgreSQL database alike: one
/// consistent snapshot's schema and objects.
protocol DumpSource {
    var schema: Schema { get }
    /// Calls `body` with each object of `model` in turn, in the order results without `SORT`
    /// come in, without holding them all.
    func forEachObject(of model: ModelSchema, _ body: (any DumpObject) throws -> Void) throws
}

/// An object as `.dump` reads it.
protocol DumpObject {
    /// What tells the object apart from every other of the snapshot.
    var identity: AnyHashable { get }
    /// Every stored property in schema order, links as the target's primary key.
    func json() throws -> JSONObject
    /// The objects link `property` (a link or list of links) points at, in its order.
    func linked(_ property: PropertySchema) throws -> [any DumpObject]
    /// The identities of `linked(property)`, which may be found without reading the objects.
    func linkedIdentities(_ property: PropertySchema) throws -> [AnyHashable]
}

extension Snapshot: DumpSource {
    func forEachObject(of model: ModelSchema, _ body: (any DumpObject) throws -> Void) throws {
        for object in try objects(model.name) { try body(object) }
    }
}

extension DynamicObject: DumpObject {
    var identity: AnyHashable { reference }

    func linked(_ property: PropertySchema) throws -> [any DumpObject] {
        property.type.isList ? try list(property.name) : try object(property.name).map { [$0] } ?? []
    }

    func linkedIdentities(_ property: PropertySchema) throws -> [AnyHashable] {
        try linked(property).map(\.identity)
    }
}

/// A PostgreSQL database's snapshot as `.dump` reads it: each batch's nested objects are read
/// together (`PostgresNestedObjects`).
struct PostgresDumpSource: DumpSource {
    let reader: PostgresObjectReader
    var schema: Schema { reader.schema }

    func forEachObject(of model: ModelSchema, _ body: (any DumpObject) throws -> Void) throws {
        try reader.forEachBatch(of: model) { batch in
            let nested = PostgresNestedObjects(reader: reader, model: model, objects: batch.objects)
            for (key, values) in zip(batch.keys, batch.objects) {
                try body(PostgresDumpObject(nested: nested, model: model, key: key, values: values))
            }
        }
    }
}

/// An object read from PostgreSQL: its key's text and its stored values in schema order, links
/// as their targets' keys.
struct PostgresDumpObject: DumpObject {
    /// The model and the key's bytes: a `String` would make canonically equivalent keys
    /// (`é`, `e` + U+0301) one.
    struct Identity: Hashable {
        let model: String
        let key: [UInt8]
    }

    /// The objects without a primary key that this one and those read with it reach.
    let nested: PostgresNestedObjects
    let model: ModelSchema
    let key: String
    let values: [Value]

    var identity: AnyHashable { Identity(model: model.name, key: Array(key.utf8)) }

    func json() throws -> JSONObject {
        JSONObject(zip(model.properties.filter(\.isStored), values).map { ($0.name, $1.jsonValue) })
    }

    func linked(_ property: PropertySchema) throws -> [any DumpObject] {
        guard let targetName = property.type.objectType, let target = nested.schema[targetName] else { return [] }
        guard target.primaryKey == nil else {
            throw StatementError("cannot dump '\(model.name).\(property.name)': its targets are read by their keys")
        }
        // Once per occurrence; a key no object has is skipped.
        return try targetKeys(property).compactMap { key in
            try nested.values(of: target, key: key).map { PostgresDumpObject(nested: nested, model: target, key: String(key), values: $0) }
        }
    }

    func linkedIdentities(_ property: PropertySchema) throws -> [AnyHashable] {
        guard let targetName = property.type.objectType else { return [] }
        return try targetKeys(property).map { Identity(model: targetName, key: Array(String($0).utf8)) }
    }

    /// The `"@key"`s link `property`, to a model without a primary key, holds.
    private func targetKeys(_ property: PropertySchema) throws -> [Int64] {
        guard let index = model.properties.filter(\.isStored).firstIndex(where: { $0.name == property.name }) else { return [] }
        let items: [Value] = if case .list(let items) = values[index] { items } else { [values[index]] }
        return items.compactMap { if case .int(let key) = $0 { key } else { nil } }
    }
}
