import Trove

/// Links an import gives by primary key to objects that are not stored yet: later in the
/// file, or the record's own object. They are left out of the record's write and set once
/// every record is in; a target that never came is then an error naming where the link stood.
struct ForwardLinks {
    private struct Pending {
        var primaryKey: Value
        var property: String
        var value: Value
        var place: String
        /// Where the record stands in the statement, for an insert's error; nil in a file.
        var offset: Int?
    }

    let model: ModelSchema
    private var pending: [Pending] = []

    init(model: ModelSchema) { self.model = model }

    /// Takes out of `values` the links (and lists of links) that name a primary key not
    /// stored yet; `place` says where a property's value stood, for errors, and `offset` where
    /// the record stands in a statement.
    mutating func setAside(_ values: inout [String: Value], in destination: ImportDestination, at offset: Int? = nil,
                           place: (String) -> String) throws {
        for property in model.properties where property.objectType != nil {
            guard let value = values[property.name], try isUnresolved(value, target: property.objectType!, in: destination) else { continue }
            guard let pk = model.primaryKeyProperty, let key = values[pk.name] else {
                throw ImportFailure("\(place(property.name)): no \(property.objectType!) has the primary key \(value)")
            }
            values[property.name] = nil
            pending.append(Pending(primaryKey: key, property: property.name, value: value, place: place(property.name), offset: offset))
        }
    }

    /// Sets the links set aside.
    mutating func finish(in destination: ImportDestination) throws {
        for link in pending {
            do {
                try destination.update(model.name, primaryKey: link.primaryKey, set: [link.property: link.value])
            } catch StoreError.linkTargetNotFound(link.property, let target, let key) {
                // The place names the property already.
                throw ImportFailure("\(link.place): links to '\(target)' with primary key \(key), which does not exist", at: link.offset)
            } catch {
                throw ImportFailure("\(link.place): \(error)", at: link.offset)
            }
        }
        pending = []
    }

    private func isUnresolved(_ value: Value, target: String, in destination: ImportDestination) throws -> Bool {
        switch value {
        case .null, .object, .reference: return false
        case .list(let items): return try items.contains { try isUnresolved($0, target: target, in: destination) }
        default: return try !destination.contains(target, primaryKey: value)
        }
    }
}

/// Why a record of an import failed, with where it stands.
struct ImportFailure: Error, CustomStringConvertible {
    var description: String
    /// Where the record stands in a statement (an insert's); nil in a file.
    var offset: Int?
    init(_ description: String, at offset: Int? = nil) {
        self.description = description
        self.offset = offset
    }
}
